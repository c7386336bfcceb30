package dev.trainadvisor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** `search` from the command line: a run file or flags, each format, the same bytes twice, bad input exit 2. */
class SearchCommandTest {
    @Test
    void jsonIsTheLayoutsBestFirstAndTheSameTwice() throws Exception {
        CliTest.Result a = CliTest.run("search", "examples/internlm-7b-pcie-1node.yaml", "--format", "json", "--top", "3");
        CliTest.Result b = CliTest.run("search", "examples/internlm-7b-pcie-1node.yaml", "--format", "json", "--top", "3");
        assertEquals(0, a.code());
        assertEquals(a.out(), b.out());
        JsonNode j = new ObjectMapper().readTree(a.out());
        assertEquals(3, j.get("layouts").size());
        double prev = Double.MAX_VALUE;
        for (JsonNode l : j.get("layouts")) {
            assertTrue(l.get("tokens_per_gpu_per_s").asDouble() <= prev);
            prev = l.get("tokens_per_gpu_per_s").asDouble();
            assertTrue(l.get("layout").has("parallel.tp") && l.has("changes") && l.has("step_parts"));
        }
        assertTrue(j.get("layouts").get(0).get("speedup").asDouble() > 1.2);
    }

    @Test
    void withoutARunFileTheFlagsMakeTheBase() {
        CliTest.Result r = CliTest.run("search", "--model", "llama-3-70b", "--cluster", "dgx-h100", "--gpus", "64",
                "--global-batch-tokens", "1048576", "--seq-len", "8192", "--format", "csv", "--top", "2");
        assertEquals(0, r.code(), r.err());
        String[] lines = r.out().split("\n");
        assertEquals(3, lines.length);
        assertTrue(lines[0].startsWith("rank,parallel.tp,"));
    }

    @Test
    void badInputNamesTheOptionAndExitsTwo() {
        CliTest.Result none = CliTest.run("search");
        assertEquals(2, none.code());
        assertTrue(none.err().contains("--model, --cluster, --gpus"), none.err());
        CliTest.Result knob = CliTest.run("search", "examples/internlm-7b-pcie-1node.yaml", "--vary", "tp,foo");
        assertEquals(2, knob.code());
        assertTrue(knob.err().contains("--vary") && knob.err().contains("'foo'"), knob.err());
        CliTest.Result odd = CliTest.run("search", "--model", "llama-3-70b", "--cluster", "dgx-h100", "--gpus", "64",
                "--global-batch-tokens", "1000000", "--seq-len", "8192");
        assertEquals(2, odd.code());
        assertTrue(odd.err().contains("--global-batch-tokens"), odd.err());
        assertFalse(odd.err().contains("Exception"), odd.err());
    }

    /** Asking for fp8 on a GPU without it is not silently dropped: a note on standard error, the search as without it. */
    @Test
    void fp8AskedOfAGpuWithoutItIsSaid() {
        CliTest.Result r = CliTest.run("search", "examples/internlm-7b-pcie-1node.yaml", "--vary", "tp,pp,fp8", "--format", "json");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("A100-PCIe-80GB has no fp8 tensor cores"), r.err());
        assertEquals(CliTest.run("search", "examples/internlm-7b-pcie-1node.yaml", "--vary", "tp,pp", "--format", "json").out(), r.out());
    }
}
