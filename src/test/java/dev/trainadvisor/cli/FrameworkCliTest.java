package dev.trainadvisor.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/** A framework the catalogue does not know, or one named twice, is bad input: exit 2, the field named, no trace. */
class FrameworkCliTest {

    @TempDir
    Path dir;

    @Test
    void anUnknownFrameworkExitsTwoWithTheNearestKnown() throws IOException {
        Path f = dir.resolve("run.yaml");
        Files.writeString(f, """
                cluster: {preset: dgx-a100-80gb, nodes: 1}
                model: llama-2-7b
                training: {seq_len: 4096, micro_batch_size: 1, framework: megatorn-core}
                """);
        CliTest.Result r = CliTest.run("advise", f.toString());
        assertEquals(Main.BAD_INPUT, r.code());
        assertTrue(r.err().contains(f + ": field 'training.framework'"), r.err());
        assertTrue(r.err().contains("nearest known: megatron-core"), r.err());
        assertFalse(r.err().contains("\tat "), r.err());
    }

    /**
     * A framework named without its version runs at its profile's default version, which nobody chose: the JSON's
     * named_by and the report's header say so, as they do of one a log names; named with its version, neither does.
     * internevo's default is 2024 (knowledge-base/frameworks/internevo.json); the example names 2023.
     */
    @Test
    void aFrameworkNamedWithoutItsVersionIsSaidToBeAtTheDefault() throws IOException {
        Path example = Path.of("examples/internlm-7b-pcie-1node.yaml");
        Path f = dir.resolve("run.yaml");
        Files.writeString(f, Files.readString(example).replace(", framework_version: \"2023\"", ""));
        CliTest.Result json = CliTest.run("advise", f.toString());
        assertEquals(0, json.code(), json.err());
        com.fasterxml.jackson.databind.JsonNode fw = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json.out())
                .path("framework");
        assertEquals("2024", fw.path("version").asText());
        assertEquals("training.framework, at its profile's default version", fw.path("named_by").asText());
        CliTest.Result md = CliTest.run("advise", f.toString(), "--format", "md");
        assertTrue(md.out().contains("**Framework:** internevo 2024 (at the profile's default version; set"
                + " training.framework_version for another)"), md.out());
        CliTest.Result given = CliTest.run("advise", example.toString(), "--format", "md");
        assertTrue(given.out().contains("**Framework:** internevo 2023\n"), given.out());
        assertEquals("training.framework", new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(CliTest.run("advise", example.toString()).out()).path("framework").path("named_by").asText());
    }

    /**
     * torchtitan-1.log was printed on 2025-06-16, before torchtitan's default version (2026-06, FlexAttention) began on
     * 2026-06-09: the log, and a run file naming torchtitan without its version beside it, are read at the version
     * current that day, and the header, standard error and named_by say why.
     */
    @Test
    void aLogOlderThanTheDefaultVersionIsReadAtTheVersionOfItsDay() throws IOException {
        Path log = Path.of("../shared/samples/logs/torchtitan-1.log");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(log), "shared samples not present");
        String why = "at the version current on 2025-06-16, the log's date (the default, 2026-06, began 2026-06-09)";
        CliTest.Result byLog = CliTest.run("advise", "--log", log.toString(), "--cluster", "dgx-h100", "--model",
                "llama-3-8b", "--seq-len", "8192", "--format", "md");
        assertEquals(Main.OK, byLog.code(), byLog.err());
        assertTrue(byLog.out().contains("**Framework:** torchtitan before-2025-10 (named by the log's format (torchtitan), "
                + why + "; set training.framework and training.framework_version for another)"), byLog.out());
        assertTrue(byLog.err().contains("warning: framework torchtitan before-2025-10 taken from the log's format "
                + "(torchtitan), " + why + " (set"), byLog.err());
        Path run = dir.resolve("titan.yaml");
        Files.writeString(run, """
                cluster: dgx-h100
                model: llama-3-8b
                log: %s
                training: {seq_len: 8192, micro_batch_size: 1, framework: torchtitan}
                parallel: {zero_stage: 3}
                """.formatted(log.toAbsolutePath()));
        CliTest.Result named = CliTest.run("advise", run.toString(), "--format", "md");
        assertEquals(Main.OK, named.code(), named.err());
        assertTrue(named.out().contains("**Framework:** torchtitan before-2025-10 (" + why
                + "; set training.framework_version for another)"), named.out());
    }

    /** The release a DeepSpeed log states chooses its version, whatever its date: 0.10.3 ran before 2afa1c7 (v0.12.4). */
    @Test
    void aLogThatStatesItsReleaseIsReadAtItsVersion() throws IOException {
        Path sample = Path.of("../shared/samples/logs/deepspeed-1.log");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(sample), "shared samples not present");
        Path log = dir.resolve("old-deepspeed.log");
        Files.writeString(log, "[2024-04-21 02:40:00,100] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: "
                + "version=0.10.3, git-hash=unknown, git-branch=unknown\n" + Files.readString(sample));
        CliTest.Result r = CliTest.run("advise", "--log", log.toString(), "--cluster", "dgx-a100-80gb", "--model",
                "llama-2-7b", "--format", "md");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("**Framework:** deepspeed before-2023-11 (named by the log's format (deepspeed), at the "
                + "version of release 0.10.3, which the log states; set training.framework and training.framework_version "
                + "for another)"), r.out());
        assertTrue(r.err().contains("warning: framework deepspeed before-2023-11 taken from the log's format (deepspeed), "
                + "at the version of release 0.10.3, which the log states (set"), r.err());
    }

    @Test
    void searchTakesTheFrameworkFromTheRunFileNotAnOptionBesideIt() {
        CliTest.Result r = CliTest.run("search", "examples/internlm-7b-pcie-1node.yaml", "--framework", "deepspeed");
        assertEquals(Main.BAD_INPUT, r.code());
        assertTrue(r.err().contains("--framework") && r.err().contains("training.framework"), r.err());
        // without a run file the option names it, and the search varies only the stages that framework runs
        CliTest.Result ok = CliTest.run("search", "--model", "llama-2-7b", "--cluster", "dgx-a100-80gb", "--gpus", "8",
                "--global-batch-tokens", "1048576", "--seq-len", "4096", "--framework", "internevo", "--top", "3");
        assertEquals(Main.OK, ok.code(), ok.err());
        assertTrue(ok.out().contains("ZeRO 1"), ok.out());
        assertFalse(ok.out().contains("ZeRO 2") || ok.out().contains("ZeRO 3"), ok.out());
    }

    /**
     * A NeMo log (src/test/resources/logs/nemo/, NemoLogTest says how its lines were built) prints no ZeRO stage; NeMo's
     * and Megatron-Bridge's recipes turn Megatron-Core's distributed optimizer on (recipe_zero_stage of
     * knowledge-base/frameworks/nemo.json), so where the run fits at ZeRO 1 the advice takes 1, not the lowest stage that
     * fits (0), and says why; read at NeMo 2.0's version, not at Megatron-Bridge, the profile's default.
     */
    @Test
    void aNemoLogTakesTheStageItsRecipesRun() throws IOException {
        CliTest.Result r = CliTest.run("advise", "--log", "src/test/resources/logs/nemo/gpt3-1.3b-progress-bar.log",
                "--cluster", "dgx-a100-80gb", "--model", "gpt3-1.3b", "--seq-len", "2048", "--micro-batch-size", "4",
                "--tp", "1", "--pp", "1");
        assertEquals(Main.OK, r.code(), r.err());
        assertTrue(r.err().contains("warning: parallel.zero_stage not printed by the log; assumed 1, the stage nemo's recipes "
                + "run (recipe_zero_stage of knowledge-base/frameworks/nemo.json) (set --zero-stage)"), r.err());
        com.fasterxml.jackson.databind.JsonNode a = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
        assertEquals(1, a.path("run").path("parallel").path("zero_stage").asInt());
        assertEquals("nemo-2.0", a.path("run").path("training").path("framework_version").asText(),
                "undated: the newest version a nemo log runs under");
        // the same log with the stage given: taken, nothing assumed
        CliTest.Result given = CliTest.run("advise", "--log", "src/test/resources/logs/nemo/gpt3-1.3b-progress-bar.log",
                "--cluster", "dgx-a100-80gb", "--model", "gpt3-1.3b", "--seq-len", "2048", "--micro-batch-size", "4",
                "--tp", "1", "--pp", "1", "--zero-stage", "0");
        assertEquals(Main.OK, given.code(), given.err());
        assertFalse(given.err().contains("parallel.zero_stage"), given.err());
    }

    /** --rank-order numbers a log's ranks as Megatron's --use-tp-pp-dp-mapping does; a bad order names the option. */
    @Test
    void aLogsRankOrderIsGivenOnTheCommandLine() throws IOException {
        String[] run = {"advise", "--log", "src/test/resources/logs/nemo/gpt3-1.3b-progress-bar.log", "--cluster",
                "dgx-a100-80gb", "--model", "gpt3-1.3b", "--seq-len", "2048", "--micro-batch-size", "4", "--tp", "1",
                "--pp", "2", "--zero-stage", "1", "--rank-order"};
        CliTest.Result r = CliTest.run(java.util.stream.Stream.concat(java.util.Arrays.stream(run),
                java.util.stream.Stream.of("tp-cp-pp-dp")).toArray(String[]::new));
        assertEquals(Main.OK, r.code(), r.err());
        com.fasterxml.jackson.databind.JsonNode a = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
        assertEquals("tp-cp-pp-dp", a.path("run").path("parallel").path("rank_order").asText());
        CliTest.Result bad = CliTest.run(java.util.stream.Stream.concat(java.util.Arrays.stream(run),
                java.util.stream.Stream.of("dp-pp")).toArray(String[]::new));
        assertEquals(Main.BAD_INPUT, bad.code(), bad.err());
        assertTrue(bad.err().contains("--rank-order") && bad.err().contains("tp-cp-dp-pp, tp-cp-pp-dp"), bad.err());
    }
}
