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
        // more GPUs than a run file may describe (Bounds.GPUS), refused as --gpus, not as the nodes derived from it
        CliTest.Result many = CliTest.run("search", "--model", "llama-3-70b", "--cluster", "dgx-h100", "--gpus", "1600000000",
                "--global-batch-tokens", "6553600000000", "--seq-len", "4096");
        assertEquals(2, many.code());
        assertEquals("error: --gpus: at most 1048576 GPUs, got 1600000000", many.err().strip());
    }

    /**
     * --cluster and --model take a file of fields as well as a preset (their help says so): the search from the flags
     * with the files is the search of a run file holding the same fields and the base the flags make (dp 1, tp 1, pp 1,
     * four micro-batches of one sequence), layout for layout.
     */
    @Test
    void aClusterAndAModelFileAreReadAsTheirFields(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) throws Exception {
        CliTest.Result flags = CliTest.run("search", "--model", "examples/logs/model-tinyllama-1.1b.yaml",
                "--cluster", "examples/logs/cluster-1xh200.yaml", "--gpus", "1", "--global-batch-tokens", "8192", "--seq-len",
                "2048", "--format", "csv");
        assertEquals(0, flags.code(), flags.err());
        java.nio.file.Path run = tmp.resolve("run.yaml");
        String model = java.nio.file.Files.readString(java.nio.file.Path.of("examples/logs/model-tinyllama-1.1b.yaml"))
                .replaceAll("(?m)^#.*\n", "").replaceAll("(?m)^", "  ");
        java.nio.file.Files.writeString(run, "cluster: {gpu: H200-SXM-141GB, nodes: 1, gpus_per_node: 1}\nmodel:\n" + model
                + "\nparallel: {tp: 1, pp: 1, dp: 1}\ntraining: {seq_len: 2048, micro_batch_size: 1, micro_batches: 4}\n");
        CliTest.Result file = CliTest.run("search", run.toString(), "--format", "csv");
        assertEquals(0, file.code(), file.err());
        assertEquals(file.out(), flags.out());
        assertTrue(flags.out().split("\n").length > 2, flags.out());
    }

    /** A bad --cluster or --model names the option, or the file it named and the file's own field. */
    @Test
    void aBadClusterOrModelNamesTheOptionOrItsFile(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) throws Exception {
        String[] rest = {"--gpus", "16", "--global-batch-tokens", "4194304", "--seq-len", "4096"};
        CliTest.Result preset = CliTest.run(concat(new String[]{"search", "--model", "llama-2-7b", "--cluster", "dgx-h10"}, rest));
        assertEquals(2, preset.code());
        assertEquals("error: --cluster: a known cluster preset, got 'dgx-h10'; nearest known: dgx-h100", preset.err().strip());
        java.nio.file.Path model = tmp.resolve("model.yaml");
        java.nio.file.Files.writeString(model, "name: x\nlayers: 22\nhiden: 2048\n");
        CliTest.Result file = CliTest.run(concat(new String[]{"search", "--model", model.toString(), "--cluster", "dgx-h100"}, rest));
        assertEquals(2, file.code());
        assertTrue(file.err().startsWith("error: " + model + ": field 'hiden': unknown key"), file.err());
    }

    /** A cluster file's node count is not silently replaced by --gpus: where they differ, a note says which is searched. */
    @Test
    void aClusterFilesNodesBesideGpusAreNoted(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) throws Exception {
        java.nio.file.Path cluster = tmp.resolve("cluster.yaml");
        java.nio.file.Files.writeString(cluster, "preset: hgx-h200\nnodes: 4\n");   // 8 GPUs a node
        String[] rest = {"--global-batch-tokens", "4194304", "--seq-len", "4096", "--format", "csv"};
        CliTest.Result two = CliTest.run(concat(new String[]{"search", "--model", "llama-2-7b", "--cluster", cluster.toString(),
                "--gpus", "16"}, rest));
        assertEquals(0, two.code(), two.err());
        assertEquals("note: --gpus 16 is 2 node(s) of 8 GPUs; the search is for them, not for the 4 node(s) " + cluster
                + " gives", two.err().strip());
        CliTest.Result four = CliTest.run(concat(new String[]{"search", "--model", "llama-2-7b", "--cluster", cluster.toString(),
                "--gpus", "32"}, rest));
        assertEquals(0, four.code(), four.err());
        assertEquals("", four.err().strip());
    }

    private static String[] concat(String[] a, String[] b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** Asking for fp8 on a GPU without it is not silently dropped: a note on standard error, the search as without it. */
    @Test
    void fp8AskedOfAGpuWithoutItIsSaid() {
        CliTest.Result r = CliTest.run("search", "examples/internlm-7b-pcie-1node.yaml", "--vary", "tp,pp,fp8", "--format", "json");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("A100-PCIe-80GB has no fp8 tensor cores"), r.err());
        assertEquals(CliTest.run("search", "examples/internlm-7b-pcie-1node.yaml", "--vary", "tp,pp", "--format", "json").out(), r.out());
    }

    /**
     * Asking to vary the rank order of a framework that numbers its ranks one way only is said, not silently dropped
     * (InternLM 2023 has no switch); the search is as without it.
     */
    @Test
    void aRankOrderAskedOfAFrameworkWithoutASwitchIsSaid() {
        CliTest.Result r = CliTest.run("search", "examples/internlm-7b-pcie-1node.yaml", "--vary", "tp,pp,rank_order",
                "--format", "json");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("internevo 2023 numbers its ranks tp-cp-pp-dp with no switch for the other order"),
                r.err());
        assertEquals(CliTest.run("search", "examples/internlm-7b-pcie-1node.yaml", "--vary", "tp,pp", "--format", "json").out(),
                r.out());
    }
}
