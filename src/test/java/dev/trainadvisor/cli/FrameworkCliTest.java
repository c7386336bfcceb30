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
