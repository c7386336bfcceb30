package dev.trainadvisor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A batch parses a run file once, when it lists the folder, and advises the tree it parsed (BatchCommand.Glance): handed
 * over once, and kept only while the run files kept come to BatchCommand.KEPT_BYTES or less, past which a run file is
 * parsed again when advised, to the same tree.
 */
class BatchGlanceTest {

    @TempDir
    Path dir;

    private Path runFile() throws Exception {
        Path f = dir.resolve("run-1.yaml");
        Files.copy(Path.of("examples/internlm-7b-pcie-1node.yaml"), f);
        return f;
    }

    @Test
    void theListingsTreeIsTheOneAdvisedOnce() throws Exception {
        Path f = runFile();
        AtomicLong kept = new AtomicLong();
        BatchCommand.Glance g = BatchCommand.Glance.of(f, kept);
        assertEquals(Files.size(f), kept.get(), "the run file's bytes counted against the budget");
        BatchCommand.Item item = new BatchCommand.Item("run-1.yaml", dir, null, null, g.tree());
        ObjectNode first = item.read();
        assertEquals(SpecReader.parse(f), first, "the tree the listing parsed is the file's");
        assertNull(g.take(), "handed over once: the batch holds it no longer");
        // read again (it is not, but were it), the file is parsed anew: another tree, equal
        ObjectNode again = item.read();
        assertNotSame(first, again);
        assertEquals(first, again);
    }

    @Test
    void pastTheBudgetARunFileIsParsedAgainWhenAdvised() throws Exception {
        Path f = runFile();
        AtomicLong kept = new AtomicLong(BatchCommand.KEPT_BYTES - Files.size(f) + 1);
        BatchCommand.Glance g = BatchCommand.Glance.of(f, kept);
        assertNull(g.take(), "one byte over the budget: not kept");
        BatchCommand.Item item = new BatchCommand.Item("run-1.yaml", dir, null, null, BatchCommand.Glance.of(f, kept).tree());
        assertEquals(SpecReader.parse(f), item.read());
        // at the budget exactly, kept
        AtomicLong atBudget = new AtomicLong(BatchCommand.KEPT_BYTES - Files.size(f));
        BatchCommand.Glance last = BatchCommand.Glance.of(f, atBudget);
        JsonNode tree = last.take();
        assertEquals(SpecReader.parse(f), tree);
        assertNull(last.take());
    }

    @Test
    void aLogOfTheSameStemIsJoinedToTheKeptTree() throws Exception {
        Path f = runFile();
        Path log = Files.writeString(dir.resolve("run-1.log"), "");
        BatchCommand.Glance g = BatchCommand.Glance.of(f, new AtomicLong());
        ObjectNode tree = new BatchCommand.Item("run-1.yaml", dir, null, log, g.tree()).read();
        assertEquals(log.toAbsolutePath().toString(), tree.get("log").asText());
        assertEquals(SpecReader.parse(f).get("cluster"), tree.get("cluster"));
    }
}
