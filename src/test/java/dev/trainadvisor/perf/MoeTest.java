package dev.trainadvisor.perf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.SpecReader;
import dev.trainadvisor.spec.Training;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MoE as Megatron-Core runs it (issue 9, item 2): expert parallelism with its own expert-tensor-parallel size folded
 * over the attention's TP x CP x DP ranks, the router, the permutation of routed copies, the experts as grouped GEMMs,
 * capacity padding and shared experts. Every figure is computed by hand from Qwen3-235B-A22B's published shape
 * (94 layers, hidden 4096, 64 query heads of 128, 4 KV heads, 128 experts of 1536 top-8) and the layout.
 */
class MoeTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Qwen3-235B-A22B on 32 DGX H100 nodes, seq 4096, micro-batch 1, with the given parallel keys. */
    static RunSpec qwen(Map<String, Integer> parallel, ObjectNode moeOverride) {
        ObjectNode t = JSON.createObjectNode();
        t.putObject("cluster").put("preset", "dgx-h100").put("nodes", 32);
        if (moeOverride == null) {
            t.put("model", "qwen3-235b-a22b");
        } else {
            ObjectNode m = t.putObject("model");
            m.put("layers", 94).put("hidden", 4096).put("heads", 64).put("kv_heads", 4).put("head_dim", 128)
                    .put("ffn_hidden", 12288).put("vocab", 151936);
            m.set("moe", moeOverride);
        }
        ObjectNode p = t.putObject("parallel").put("sequence_parallel", true).put("zero_stage", 1);
        parallel.forEach(p::put);
        t.putObject("training").put("seq_len", 4096).put("micro_batch_size", 1).put("micro_batches", 128);
        return new SpecReader().read(t, "qwen");
    }

    /** The layout: EP 32 with TP 2 and DP 16, experts unsplit (ETP 1), PP 8. */
    static RunSpec ep32() {
        return qwen(Map.of("tp", 2, "pp", 8, "dp", 16, "ep", 32, "etp", 1), null);
    }

    static Map<String, Operation> ops(RunSpec s) {
        Parallel p = s.run().parallel();
        return StepOperations.of(s.run().model(), p, s.run().training()).stream()
                .collect(Collectors.toMap(Operation::name, Function.identity()));
    }

    static Collective collective(StepPrediction p, CollectiveOp op) {
        return p.collectives().stream().filter(c -> c.op() == op).findFirst().orElseThrow(() -> new AssertionError(op + " missing"));
    }

    @Test
    void foldedExpertParallelismIsWritten() {
        Parallel p = ep32().run().parallel();
        assertEquals(32, p.ep());
        assertEquals(1, p.etp());
        // 2 x 1 x 16 attention ranks a stage = 32 experts ranks x 1: each expert on one GPU, no expert replicas
        assertEquals(1, p.expertDataParallel());
        // without etp it defaults to tp (2): 32 x 2 = 64 does not divide the 32 ranks of a stage
        SpecException e = assertThrows(SpecException.class, () -> qwen(Map.of("tp", 2, "pp", 8, "dp", 16, "ep", 32), null));
        assertTrue(e.getMessage().contains("ep*etp (32*2=64) to divide tp*cp*dp (32)"), e.getMessage());
        // expert tensor parallelism must split the expert width
        e = assertThrows(SpecException.class, () -> qwen(Map.of("tp", 2, "pp", 8, "dp", 16, "ep", 8, "etp", 5), null));
        assertTrue(e.getMessage().contains("etp") && e.getMessage().contains("1536"), e.getMessage());
    }

    /**
     * Each of a GPU's 128 / 32 = 4 experts multiplies tokens x top-k x ep x etp / (experts x tp) = 4096 x 8 x 32 /
     * (128 x 2) = 4096 routed rows: the same FLOPs as the GPU's share of all routed copies, 4096 / 2 x 8 x 6 h f.
     */
    @Test
    void expertsAreGroupedGemmsAtTheTokensEachExpertGets() {
        RunSpec s = ep32();
        Map<String, Operation> ops = ops(s);
        Operation up = ops.get("expert-up"), down = ops.get("expert-down");
        double h = 4096, f = 1536, layers = 94, stageLayers = 94.0 / 8;
        assertEquals(4096, up.m(), 1e-9);
        assertEquals(2 * f, up.n(), 1e-9);          // gate and up projections of SwiGLU, unsplit (etp 1)
        assertEquals(4, up.groups(), 1e-9);
        assertEquals(h, down.n(), 1e-9);
        // FLOPs of the whole model's expert layers for this GPU's tokens (4096 / (tp 2)), then the stage's eighth
        double tokensPerGpu = 4096 / 2.0 / 8;
        assertEquals(layers * 2 * 2 * h * f * 8 * tokensPerGpu, up.flops(), 1);
        assertEquals(layers * 2 * h * f * 8 * tokensPerGpu, down.flops(), 1);
        // the grouped GEMM reads its 4 experts' weights (h x 2f) and tokens and writes its output, bf16, per layer
        assertEquals(stageLayers * 4 * (h * 2 * f + 4096 * (h + 2 * f)) * 2, up.bytes(), 1);
        // routed copies: this TP rank's 2048 tokens x 8, read and written by the permutation and the unpermutation,
        // and again by the sort by local expert after the all-to-all (4 local experts)
        assertEquals(stageLayers * 2048 * 8 * h * 2 * 2 * 2 * 2, ops.get("permutation").bytes(), 1);
        assertEquals(Operation.Kind.COPY, ops.get("permutation").kind());
    }

    /**
     * A grouped GEMM of few tokens per expert is bound by reading its weights: 128 experts of 64 tokens, h 2048 x 768,
     * measured 141 us on an H200 (knowledge-base/measurements/h200-moe-kernels.json); the roofline's p-norm of the
     * compute (at the catalogue's bf16 MAMF, half of each 128-row tile busy) and the bytes at the HBM fraction gives it
     * within 15%.
     */
    @Test
    void aGroupedGemmOfFewTokensIsBoundByItsWeights() {
        Operation o = Operation.groupedGemm("g", 2.0 * 128 * 64 * 2048 * 768, 64, 768, 2048, 128, 1);
        var gpu = dev.trainadvisor.spec.Catalog.builtIn().gpu("H200-SXM-141GB", "gpus.json", "key");
        Efficiency bench = new Efficiency(gpu.mamfTflopsBf16() / gpu.peakTflops(dev.trainadvisor.spec.Precision.BF16),
                0.35, Efficiency.HBM_FRACTION, 0.8, 1.9);
        Training t = new Training(4096, 1, 1, dev.trainadvisor.spec.Recompute.NONE, dev.trainadvisor.spec.Precision.BF16,
                dev.trainadvisor.spec.Precision.FP32, true);
        double seconds = new Roofline(gpu, t, bench).forwardSeconds(o);
        // by hand: 6 x 128 = 768 tiles over 132 SMs in 6 waves, half of each tile's rows used
        double tiles = 128 * 1 * 6, wave = tiles / (Math.ceil(tiles / 132) * 132) * 0.5;
        double compute = o.flops() / (gpu.mamfTflopsBf16() * 1e12 * wave);
        double read = 128 * (2048 * 768 + 64 * (2048 + 768)) * 2 / (gpu.hbmGbps() * 1e9 * Efficiency.HBM_FRACTION);
        assertEquals(Math.pow(Math.pow(compute, 1.5) + Math.pow(read, 1.5), 1 / 1.5), seconds, 1e-12);
        assertEquals(141e-6, seconds, 141e-6 * 0.15);
        assertTrue(read > compute, "weights dominate at 64 tokens an expert");
    }

    /**
     * Dispatch and combine, forward and backward: each moves this rank's routed copies, 2048 tokens x 8 x 4096 x 2
     * bytes, over the 32 EP ranks; with ETP 1 the EP group is 32 consecutive ranks, four nodes, so it crosses them.
     */
    @Test
    void theAllToAllCarriesTheRoutedCopiesOverTheLinksItCrosses() {
        RunSpec s = ep32();
        StepPrediction p = StepModel.predict(s.cluster(), s.run());
        Collective a2a = collective(p, CollectiveOp.EP_ALL_TO_ALL);
        assertEquals(32, a2a.groupSize());
        assertEquals(2048.0 * 8 * 4096 * 2, a2a.bytesPerPass(), 1e-6);
        assertEquals(2 * (long) Math.ceil(94.0 / 8 * 128 * 2), a2a.passesPerStep());
        assertTrue(a2a.link().crossesNodes());
        // EP 8 inside a node instead (tp 2, dp 16: 8 x 1 divides 32) stays on NVLink
        RunSpec in = qwen(Map.of("tp", 2, "pp", 8, "dp", 16, "ep", 8, "etp", 1), null);
        Collective a2aIn = collective(StepModel.predict(in.cluster(), in.run()), CollectiveOp.EP_ALL_TO_ALL);
        assertFalse(a2aIn.link().crossesNodes());
        assertEquals("NVLink4", a2aIn.link().linkKey());
        assertTrue(p.collectives().stream().noneMatch(c -> c.group() == ProcessGroup.ETP), "no ETP collectives at etp 1");
    }

    /** ETP 2 under TP 4: the copies an EP rank receives are gathered over its 2 ETP ranks and reduce-scattered back. */
    @Test
    void expertTensorParallelismGathersTheRoutedTokens() {
        RunSpec s = qwen(Map.of("tp", 4, "pp", 8, "dp", 8, "ep", 8, "etp", 2), null);
        StepPrediction p = StepModel.predict(s.cluster(), s.run());
        double routed = 4096 / 4.0 * 8 * 4096 * 2;
        Collective ag = collective(p, CollectiveOp.ETP_ALL_GATHER), rs = collective(p, CollectiveOp.ETP_REDUCE_SCATTER);
        assertEquals(2, ag.groupSize());
        assertEquals(routed * 2, ag.bytesPerPass(), 1e-6);
        assertEquals(routed * 2, rs.bytesPerPass(), 1e-6);
        // each expert's width split in two: 2 x 1536 / 2 columns; tokens per expert 4096 x 8 x 8 x 2 / (128 x 4)
        Operation up = ops(s).get("expert-up");
        assertEquals(1536, up.n(), 1e-9);
        assertEquals(1024, up.m(), 1e-9);
        assertEquals(16, up.groups(), 1e-9);
    }

    /** The experts' weights divide over ep x etp, the dense ones over tp: 128 x 3 h f per layer / 32 against / 2. */
    @Test
    void expertWeightsDivideOverEpTimesEtp() {
        Sharding sh = Sharding.of(ep32().run().parallel());
        assertEquals(32 * 8, sh.divisor(MemoryPart.EXPERT_WEIGHTS), 0);     // ep 32 x etp 1, x pp 8
        assertEquals(2 * 8, sh.divisor(MemoryPart.LAYER_WEIGHTS), 0);       // tp 2 x pp 8
        Sharding etp2 = Sharding.of(qwen(Map.of("tp", 4, "pp", 8, "dp", 8, "ep", 8, "etp", 2), null).run().parallel());
        assertEquals(8 * 2 * 8, etp2.divisor(MemoryPart.EXPERT_WEIGHTS), 0);
    }

    /**
     * head_dim 128 over hidden 4096 and 64 heads: queries and the attention output are 8192 wide, so a layer's
     * attention GEMMs are 2 h (8192 + 2 x 512) + 2 x 8192 h per token, and its parameters h (8192 + 1024) + 8192 h.
     */
    @Test
    void aHeadDimOfItsOwnWidensTheQueries() {
        Model m = ep32().run().model();
        assertEquals(8192, m.attentionWidth(), 0);
        LayerFlops f = LayerFlops.of(m, 0, 4096);
        assertEquals(2.0 * 4096 * (8192 + 2 * 512), f.qkv(), 0);
        assertEquals(2.0 * 8192 * 4096, f.outProjection(), 0);
        assertEquals(4.0 * 4096 * 8192, f.attentionCore(), 0);
        double attn = 4096.0 * (8192 + 1024) + 8192.0 * 4096;
        double experts = 128 * 3.0 * 4096 * 1536, router = 4096.0 * 128;
        assertEquals(attn + experts + router + 2 * 4096, Params.layer(m, 0), 0);
        // 235.1B in all, as published (235B)
        assertEquals(235.1e9, Params.total(m), 0.2e9);
    }

    /**
     * Padded to a capacity factor of 1.25, every expert multiplies a quarter more rows and the all-to-all carries a
     * quarter more; shared experts add a dense MLP every token passes, split over TP.
     */
    @Test
    void capacityAndSharedExpertsScaleTheirWork() {
        ObjectNode plain = JSON.createObjectNode().put("experts", 128).put("top_k", 8).put("ffn_hidden", 1536);
        ObjectNode padded = plain.deepCopy().put("capacity_factor", 1.25);
        ObjectNode shared = plain.deepCopy().put("shared_experts", 1).put("shared_ffn_hidden", 4096);
        Map<String, Integer> layout = Map.of("tp", 2, "pp", 8, "dp", 16, "ep", 32, "etp", 1);
        RunSpec a = qwen(layout, plain), b = qwen(layout, padded), c = qwen(layout, shared);
        assertEquals(1.25 * ops(a).get("expert-up").flops(), ops(b).get("expert-up").flops(), 1);
        assertEquals(1.25 * ops(a).get("expert-up").m(), ops(b).get("expert-up").m(), 1e-9);
        double a2aA = collective(StepModel.predict(a.cluster(), a.run()), CollectiveOp.EP_ALL_TO_ALL).bytesPerPass();
        double a2aB = collective(StepModel.predict(b.cluster(), b.run()), CollectiveOp.EP_ALL_TO_ALL).bytesPerPass();
        assertEquals(1.25 * a2aA, a2aB, 1e-6);
        Operation sharedUp = ops(c).get("shared-expert-up");
        assertEquals(2 * 4096.0 / 2, sharedUp.n(), 1e-9);                   // gate and up, split over tp 2
        assertEquals(94 * 2 * 2 * 4096.0 * 4096 * (4096 / 2.0 / 8), sharedUp.flops(), 1);
        assertEquals(Params.layer(a.run().model(), 0) + 3 * 4096.0 * 4096, Params.layer(c.run().model(), 0), 0);
        assertFalse(ops(a).containsKey("shared-expert-up"));
        // a capacity below 1 would drop tokens the model could not count
        assertThrows(SpecException.class, () -> qwen(layout, plain.deepCopy().put("capacity_factor", 0.5)));
        // dropless with the busiest rank receiving 1.3x the mean: its experts, permutation and all-to-all carry 1.3x
        RunSpec d = qwen(layout, plain.deepCopy().put("load_imbalance", 1.3));
        assertEquals(1.3 * ops(a).get("expert-down").flops(), ops(d).get("expert-down").flops(), 1);
        assertEquals(1.3 * ops(a).get("permutation").bytes(), ops(d).get("permutation").bytes(), 1);
        assertEquals(1.3 * a2aA, collective(StepModel.predict(d.cluster(), d.run()), CollectiveOp.EP_ALL_TO_ALL).bytesPerPass(), 1e-6);
        SpecException both = assertThrows(SpecException.class,
                () -> qwen(layout, padded.deepCopy().put("load_imbalance", 1.3)));
        assertTrue(both.getMessage().contains("model.moe.load_imbalance"), both.getMessage());
    }

    /** DeepSeek-style leading dense layers: the first k layers have an MLP, the rest experts. */
    @Test
    void leadingDenseLayersAreDense() {
        ObjectNode moe = JSON.createObjectNode().put("experts", 128).put("top_k", 8).put("ffn_hidden", 1536)
                .put("first_dense", 3);
        Model m = qwen(Map.of("tp", 2, "pp", 8, "dp", 16, "ep", 32, "etp", 1), moe).run().model();
        assertEquals(91, m.moeLayers());
        assertFalse(m.isMoeLayer(2));
        assertTrue(m.isMoeLayer(3));
        assertEquals(3, m.firstMoeLayer());
        List<Operation> list = StepOperations.of(m, ep32().run().parallel(), ep32().run().training());
        assertTrue(list.stream().anyMatch(o -> o.name().equals("mlp-up")) && list.stream().anyMatch(o -> o.name().equals("expert-up")));
    }
}
