package dev.trainadvisor.spec;

import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.perf.CollectiveOp;
import dev.trainadvisor.perf.StepModel;
import dev.trainadvisor.perf.StepPrediction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** The framework profiles of knowledge-base/frameworks/ and how a run takes one. */
class FrameworksTest {

    @TempDir
    Path dir;

    static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    @Test
    void atLeastTenFrameworksBesideTheDefaultEachFactWithItsSource() throws IOException {
        Map<String, Frameworks.Profile> all = Frameworks.builtIn().profiles();
        List<String> named = new ArrayList<>(all.keySet());
        named.remove(Frameworks.DEFAULT);
        assertTrue(named.size() >= 10, named.toString());
        for (String key : List.of("megatron-core", "megatron-lm", "megatron-deepspeed", "deepspeed", "pytorch", "torchtitan",
                "composer", "internevo", "nemo", "hf-trainer", "nanotron", "llm.c"))
            assertTrue(all.containsKey(key), key);
        // every fact object of every file names its source: walk the raw JSON
        try (var files = Files.list(Path.of("knowledge-base/frameworks"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".json")).toList()) {
                List<String> missing = new ArrayList<>();
                walk(JSON.readTree(f.toFile()), "", missing);
                assertTrue(missing.isEmpty(), f + ": facts without a source: " + missing);
            }
        }
    }

    private static void walk(com.fasterxml.jackson.databind.JsonNode n, String path, List<String> missing) {
        if (!n.isObject()) return;
        if (n.has("value") && (!n.has("source") || n.get("source").asText().isBlank())) missing.add(path);
        for (Iterator<Map.Entry<String, com.fasterxml.jackson.databind.JsonNode>> it = n.fields(); it.hasNext(); ) {
            var e = it.next();
            walk(e.getValue(), path + "." + e.getKey(), missing);
        }
    }

    @Test
    void aVersionOverridesOnlyTheFactsItNames() {
        Framework newest = Frameworks.builtIn().find("internevo", null, "t", "training.framework");
        Framework july2023 = Frameworks.builtIn().find("InternLM", "2023", "t", "training.framework");
        assertEquals("2024", newest.version());
        assertEquals("internevo", july2023.key(), "an alias, any case");
        // InternLM's code of July 2023 ran FlashAttention 1.0.5; InternEvo runs FlashAttention 2
        assertEquals(AttentionKernel.FA1, july2023.attentionKernel().value());
        assertEquals(AttentionKernel.FA2, newest.attentionKernel().value());
        // the rest is the base's: the bf16 all-reduce and the per-rank broadcast
        assertEquals(Framework.Kind.ALL_REDUCE, july2023.stage(1).gradients().collective().value());
        assertEquals(Framework.Kind.BROADCAST, july2023.stage(1).parameters().collective().value());
        assertEquals(newest.bucket(), july2023.bucket());
    }

    @Test
    void anUnknownFrameworkOrVersionIsRefusedWithTheKnownOnes() {
        SpecException e = assertThrows(SpecException.class,
                () -> Frameworks.builtIn().find("megatorn-core", null, "run.yaml", "training.framework"));
        assertEquals("training.framework", e.field());
        assertTrue(e.getMessage().contains("nearest known: megatron-core"), e.getMessage());
        e = assertThrows(SpecException.class, () -> Frameworks.builtIn().find("deepspeed", "0.9", "run.yaml", "training.framework"));
        assertEquals("training.framework_version", e.field());
        assertTrue(e.getMessage().contains("2023-11"), e.getMessage());
    }

    /** A run file of 16 A100 on 2 NVLink nodes at ZeRO stage {@code zero}, with {@code extra} in its training block. */
    static com.fasterxml.jackson.databind.node.ObjectNode run(int zero, String extra) throws IOException {
        return (com.fasterxml.jackson.databind.node.ObjectNode) new com.fasterxml.jackson.databind.ObjectMapper(
                new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree("""
                cluster: {preset: dgx-a100-80gb, nodes: 2}
                model: llama-2-7b
                parallel: {zero_stage: %d}
                training: {seq_len: 4096, micro_batch_size: 1, micro_batches: 4%s}
                """.formatted(zero, extra));
    }

    @Test
    void aNewFrameworkIsOneDataFile() throws IOException {
        // a team's trainer: PyTorch's profile, but its ZeRO 1 all-gathers the parameters in one coalesced call where
        // ZeroRedundancyOptimizer broadcasts them per rank
        var tree = (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(
                Path.of("knowledge-base/frameworks/pytorch.json").toFile());
        tree.put("key", "our-trainer");
        tree.putArray("aliases");
        var params = (com.fasterxml.jackson.databind.node.ObjectNode) tree.get("zero").get("1").get("parameters");
        params.putObject("collective").put("value", "all-gather").put("source", "our trainer, zero.py line 40");
        params.putObject("calls").put("value", "one").put("source", "our trainer, zero.py line 41");
        Files.writeString(dir.resolve("our-trainer.json"), tree.toPrettyString());
        Frameworks mine = Frameworks.builtIn().with(dir);
        SpecReader reader = new SpecReader(Catalog.builtIn(), mine);
        RunSpec ours = reader.read(run(1, ", framework: our-trainer"), "ours.yaml");
        RunSpec torch = reader.read(run(1, ", framework: pytorch"), "torch.yaml");
        StepPrediction a = StepModel.predict(ours.cluster(), ours.run()), b = StepModel.predict(torch.cluster(), torch.run());
        var gather = a.collectives().stream().filter(c -> c.op() == CollectiveOp.ZERO_PARAM_ALL_GATHER).findFirst().orElseThrow();
        assertEquals(1, gather.calls());
        assertTrue(a.collectives().stream().noneMatch(c -> c.op() == CollectiveOp.ZERO_PARAM_BROADCAST));
        assertTrue(b.collectives().stream().anyMatch(c -> c.op() == CollectiveOp.ZERO_PARAM_BROADCAST));
        // and nothing else of the step differs
        assertEquals(b.computeSeconds(), a.computeSeconds(), 1e-12);
        // the built-in catalogue does not know it
        assertThrows(SpecException.class, () -> new SpecReader().read(run(1, ", framework: our-trainer"), "ours.yaml"));
    }

    @Test
    void aProfileWithoutItsSourcesIsRefused() throws IOException {
        var tree = (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(
                Path.of("knowledge-base/frameworks/generic.json").toFile());
        tree.put("key", "unsourced");
        ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("bucket")).remove("source");
        Files.writeString(dir.resolve("unsourced.json"), tree.toPrettyString());
        SpecException e = assertThrows(SpecException.class, () -> Frameworks.builtIn().with(dir));
        assertEquals("bucket.source", e.field());
    }

    @Test
    void aRunTakesTheFrameworkItsFileItsLogOrItsConventionNames() throws IOException {
        SpecReader reader = new SpecReader();
        RunSpec given = reader.read(run(1, ", framework: deepspeed"), "a.yaml");
        assertEquals("deepspeed", given.run().training().framework().key());
        assertTrue(given.run().training().implementation().given());
        var byConvention = run(1, "");
        byConvention.putObject("metrics").put("tflops_per_gpu", 150).put("tflops_convention", "megatron-legacy");
        RunSpec mcore = reader.read(byConvention, "b.yaml");
        // Megatron-Core printed full attention up to 0.11: the version whose own convention it is
        assertEquals("megatron-core 0.11", mcore.run().training().framework().label());
        assertEquals("metrics.tflops_convention (megatron-legacy)", mcore.run().training().implementation().origin());
        RunSpec byLog = reader.read(run(1, ""), "c.yaml", false, "deepspeed");
        assertEquals("deepspeed", byLog.run().training().framework().key());
        assertEquals("the log's format (deepspeed)", byLog.run().training().implementation().origin());
        RunSpec none = reader.read(run(1, ""), "d.yaml");
        assertTrue(none.run().training().implementation().defaulted());
        assertEquals(Frameworks.DEFAULT, none.run().training().framework().key());
        // a version without its framework, and a stage the framework does not run, are refused
        SpecException e = assertThrows(SpecException.class, () -> reader.read(run(1, ", framework_version: '2023'"), "e.yaml"));
        assertEquals("training.framework_version", e.field());
        e = assertThrows(SpecException.class, () -> reader.read(run(3, ", framework: internevo"), "f.yaml"));
        assertEquals("parallel.zero_stage", e.field());
        assertTrue(e.getMessage().contains("internevo 2024 runs, one of [0, 1]"), e.getMessage());
    }

    @Test
    void runFileKeysOverrideTheProfilesDefaults() throws IOException {
        SpecReader reader = new SpecReader();
        // Megatron-Core reduces fp32 gradients, overlaps neither collective and buckets max(40M, 1M x dp) parameters
        RunSpec mcore = reader.read(run(1, ", framework: megatron-core"), "a.yaml");
        assertEquals(Precision.FP32, mcore.run().training().gradReducePrecision());
        assertFalse(mcore.run().parallel().overlapGradReduce());
        assertFalse(mcore.run().parallel().overlapParamGather());
        assertEquals(40e6 * 4 / 1e6, mcore.run().parallel().bucketMb(), 1e-9, "40M fp32 parameters over dp 16");
        // Transformer Engine keeps FlashAttention on Ampere and prefers cuDNN's fused attention on Hopper
        assertEquals(AttentionKernel.FA2, mcore.run().training().attentionKernel());
        var mcoreH100 = run(1, ", framework: megatron-core");
        ((com.fasterxml.jackson.databind.node.ObjectNode) mcoreH100.get("cluster")).put("preset", "dgx-h100");
        assertEquals(AttentionKernel.CUDNN, reader.read(mcoreH100, "h.yaml").run().training().attentionKernel());
        var tree = run(1, ", framework: megatron-core, grad_reduce_precision: bf16");
        tree.putObject("parallel").put("zero_stage", 1).put("overlap_grad_reduce", true).put("bucket_mb", 100);
        RunSpec set = reader.read(tree, "b.yaml");
        assertEquals(Precision.BF16, set.run().training().gradReducePrecision());
        assertTrue(set.run().parallel().overlapGradReduce());
        assertEquals(100, set.run().parallel().bucketMb(), 1e-9);
        // the default profile keeps the run file's old defaults
        RunSpec plain = reader.read(run(1, ""), "c.yaml");
        assertEquals(Precision.BF16, plain.run().training().gradReducePrecision());
        assertTrue(plain.run().parallel().overlapGradReduce());
        assertEquals(Parallel.DEFAULT_BUCKET_MB, plain.run().parallel().bucketMb(), 1e-9);
        // PyTorch's SDPA runs cuDNN's attention on Hopper (measured, h200-sdpa-default.json), FlashAttention-2 elsewhere
        var h100 = run(0, ", framework: pytorch");
        ((com.fasterxml.jackson.databind.node.ObjectNode) h100.get("cluster")).put("preset", "dgx-h100");
        assertEquals(AttentionKernel.CUDNN, reader.read(h100, "d.yaml").run().training().attentionKernel());
        assertEquals(AttentionKernel.FA2, reader.read(run(0, ", framework: pytorch"), "e.yaml").run().training().attentionKernel());
    }
}
