package dev.trainadvisor.assemble;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.input.SpecException;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Whom an error in a run read around a log names (Described.attribute): the user's values are theirs, named by the
 * option, the file or the code that gave them; what the log printed, or a preset, stays the log's. Each case builds
 * the error as the reader makes it (the log's file, the run-file field) and the user's part of the run by hand.
 */
class DescribedTest {
    static final String LOG = "train.log";
    static final ObjectMapper JSON = new ObjectMapper();

    /** What `advise --log train.log --cluster my-cluster.yaml --model llama-2-7b --zero-stage 5 --nodes 2` gives. */
    static ObjectNode given() throws Exception {
        return (ObjectNode) JSON.readTree("{\"cluster\": {\"gpu\": \"H200-SXM-141G\", \"gpus_per_node\": 8, \"nodes\": 2},"
                + " \"model\": \"llama-2-7b\", \"parallel\": {\"zero_stage\": 5}}");
    }

    static final Described CLI = Described.commandLine(
            Map.of("cluster", "--cluster", "cluster.nodes", "--nodes", "model", "--model", "parallel.zero_stage", "--zero-stage"),
            Map.of("cluster", "my-cluster.yaml"));

    static SpecException error(String field) { return new SpecException(LOG, field, "what was expected"); }

    @Test
    void anOptionsValueNamesTheOption() throws Exception {
        SpecException e = CLI.attribute(error("parallel.zero_stage"), LOG, given(), Set.of());
        assertEquals("--zero-stage: what was expected", e.getMessage());
        assertEquals("--model: what was expected", CLI.attribute(error("model"), LOG, given(), Set.of()).getMessage());
    }

    @Test
    void theLongestOptionWins() throws Exception {
        // cluster.nodes is --nodes's, though it lies inside --cluster's section
        assertEquals("--nodes: what was expected", CLI.attribute(error("cluster.nodes"), LOG, given(), Set.of()).getMessage());
    }

    @Test
    void aFieldOfAFileGivenWholeNamesTheFileAndItsOwnField() throws Exception {
        SpecException e = CLI.attribute(error("cluster.gpu"), LOG, given(), Set.of());
        assertEquals("my-cluster.yaml", e.file());
        assertEquals("gpu", e.field());
        assertEquals("my-cluster.yaml: field 'gpu': what was expected", e.getMessage());
    }

    @Test
    void aFieldMissingFromTheFileThatTheLogDoesNotPrintBelongsInTheFile() throws Exception {
        SpecException e = CLI.attribute(error("cluster.intra_node.link"), LOG, given(), Set.of());
        assertEquals("my-cluster.yaml: field 'intra_node.link': what was expected", e.getMessage());
    }

    @Test
    void aValueTheLogPrintedStaysTheLogs() throws Exception {
        SpecException printed = error("cluster.intra_node.link");
        assertSame(printed, CLI.attribute(printed, LOG, given(), Set.of("cluster.intra_node.link")));
        SpecException layout = error("parallel.tp");   // no option gave it
        assertSame(layout, CLI.attribute(layout, LOG, given(), Set.of("parallel.tp")));
        SpecException derived = error("training.micro_batches");
        assertSame(derived, CLI.attribute(derived, LOG, given(), Set.of()));
    }

    @Test
    void aPresetsFieldTheUserDidNotGiveStaysTheLogs() throws Exception {
        ObjectNode preset = (ObjectNode) JSON.readTree("{\"cluster\": {\"preset\": \"dgx-a100\"}}");
        Described cli = Described.commandLine(Map.of("cluster", "--cluster"), Map.of());
        assertEquals("--cluster: what was expected", cli.attribute(error("cluster.preset"), LOG, preset, Set.of()).getMessage());
        SpecException nodes = error("cluster.nodes");
        assertSame(nodes, cli.attribute(nodes, LOG, preset, Set.of()));
    }

    @Test
    void codeNamesItsCallerAndTheField() throws Exception {
        Described code = Described.code(Map.of("parallel.zero_stage", "Run.Layout.zeroStage"), "Run.builder()");
        SpecException e = code.attribute(error("parallel.zero_stage"), LOG, given(), Set.of());
        assertEquals("Run.builder()", e.file());
        assertEquals("parallel.zero_stage", e.field());
    }

    @Test
    void anotherFilesErrorOrARunFilesIsLeftAsItIs() throws Exception {
        SpecException other = new SpecException("nccl.txt", "parallel.zero_stage", "what was expected");
        assertSame(other, CLI.attribute(other, LOG, given(), Set.of()));
        SpecException whole = new SpecException(LOG, null, "a training log");
        assertSame(whole, CLI.attribute(whole, LOG, given(), Set.of()));
        SpecException file = error("parallel.zero_stage");
        assertSame(file, Described.FILE.attribute(file, LOG, given(), Set.of()));
    }
}
