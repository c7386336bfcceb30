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
}
