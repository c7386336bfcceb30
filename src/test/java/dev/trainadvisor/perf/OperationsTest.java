package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.Training;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The step as a list of operations (issue 9): its FLOPs add up to Narayanan et al.'s count, tensor parallelism splits
 * each GEMM's columns, each GEMM pays its own wave quantization, and the passes follow the recomputation; the
 * collectives come from one type per parallel dimension, and a new type is all a new dimension needs to add its
 * collectives.
 */
class OperationsTest {

    private static Map<String, Operation> byName(List<Operation> ops) {
        return ops.stream().collect(Collectors.toMap(Operation::name, o -> o));
    }

    /**
     * Narayanan et al. 2021, section 5.1, without recomputation and with full s^2 attention (flash_attention false):
     * 72 B s l h^2 (1 + s/(6h) + V/(12 l h)) per iteration, i.e. per token 72 l h^2 + 12 l s h + 6 h V; the operations'
     * forward FLOPs are a third of it. GPT-3 175B: l 96, h 12288, s 2048, V 51200.
     */
    @Test
    void forwardFlopsOfTheOperationsAreAThirdOfNarayanansCount() {
        Model gpt3 = PerfFixtures.gpt3_175b();
        double l = 96, h = 12288, s = 2048, vocab = 51200;
        Training t = PerfFixtures.training(2048, 1, 1, Recompute.NONE, Precision.BF16, false);
        Parallel p = PerfFixtures.parallel(1, 1, 1, false, 0, 1, 1);
        double forward = 0;
        for (Operation o : StepOperations.of(gpt3, p, t)) forward += o.flops();
        double perToken = 72 * l * h * h + 12 * l * s * h + 6 * h * vocab;
        assertEquals(perToken / 3 * s, forward, 1e-9 * forward);
    }

    /**
     * Tensor parallelism 8 splits every GEMM's output columns and the FLOPs; pipeline parallelism 4 gives a stage a
     * quarter of the layers but the whole head; the shapes are Megatron's: QKV N = 3h / tp, MLP up N = 4h / tp, the
     * down projection and the attention output keep N = h (their K is split).
     */
    @Test
    void tensorAndPipelineParallelismSplitTheOperations() {
        Model gpt3 = PerfFixtures.gpt3_175b();
        Training t = PerfFixtures.training(2048, 1, 1, Recompute.NONE, Precision.BF16, true);
        Map<String, Operation> one = byName(StepOperations.of(gpt3, PerfFixtures.parallel(1, 1, 1, false, 0, 1, 1), t));
        Map<String, Operation> split = byName(StepOperations.of(gpt3, PerfFixtures.parallel(8, 4, 1, false, 0, 1, 1), t));
        double h = 12288;
        assertEquals(3 * h / 8, split.get("qkv").n(), 0);
        assertEquals(4 * h / 8, split.get("mlp-up").n(), 0);
        assertEquals(h, split.get("mlp-down").n(), 0);
        assertEquals(h, split.get("attention-out").n(), 0);
        for (String layerOp : List.of("qkv", "attention-core", "attention-out", "mlp-up", "mlp-down"))
            assertEquals(one.get(layerOp).flops() / 32, split.get(layerOp).flops(), 1e-9 * one.get(layerOp).flops(), layerOp);
        // the head is not divided by stages: the slowest stage holds it
        assertEquals(one.get("logits").flops() / 8, split.get("logits").flops(), 1e-9 * one.get("logits").flops());
        // a causal flash kernel runs half the score matrix: 4 s h per token and layer, halved
        assertEquals(2048 * 96 * 4.0 * 2048 * h * 0.5, one.get("attention-core").flops(), 1e-3);
    }

    /**
     * Each GEMM pays its own waves (NVIDIA's Matrix Multiplication Background guide): 128 x 128 tiles, one per SM a
     * wave. On an A100 (108 SMs), GPT-3's MLP up projection at tp 8, 2048 tokens x 6144 columns = 16 x 48 = 768
     * tiles: 8 waves, 768 / 864 = 0.889 busy; its down projection, 2048 x 12288 = 16 x 96 = 1536 tiles: 15 waves,
     * 1536 / 1620 = 0.948.
     */
    @Test
    void everyGemmPaysItsOwnWaves() {
        Cluster c = PerfFixtures.dgxA100(1);
        Training t = PerfFixtures.training(2048, 1, 1, Recompute.NONE, Precision.BF16, true);
        Efficiency eff = Efficiency.defaults(c.gpu(), PerfFixtures.run(PerfFixtures.gpt3_175b(),
                PerfFixtures.parallel(8, 1, 1, false, 0, 1, 1), t));
        Roofline r = new Roofline(c.gpu(), t, eff);
        Map<String, Operation> ops = byName(StepOperations.of(PerfFixtures.gpt3_175b(),
                PerfFixtures.parallel(8, 1, 1, false, 0, 1, 1), t));
        assertEquals(768.0 / 864, r.waveEfficiency(ops.get("mlp-up")), 1e-12);
        assertEquals(1536.0 / 1620, r.waveEfficiency(ops.get("mlp-down")), 1e-12);
        double rate = c.gpu().peakTflops(Precision.BF16) * 1e12 * eff.gemmFractionOfPeak();
        assertEquals(ops.get("mlp-up").flops() / (rate * 768.0 / 864), r.forwardSeconds(ops.get("mlp-up")),
                1e-12 * r.forwardSeconds(ops.get("mlp-up")));
    }

    /**
     * A micro-batch's compute is its operations' forward times over their passes: 3 without recomputation (forward,
     * two for backward); full recomputation adds the layers' forward again but not the head's; selective adds the
     * attention core only.
     */
    @Test
    void passesFollowTheRecomputation() {
        ComputeTime none = gpt3Micro(Recompute.NONE, true), full = gpt3Micro(Recompute.FULL, true),
                selective = gpt3Micro(Recompute.SELECTIVE, true);
        double layerForward = 0, headForward = 0, attentionForward = 0;
        for (ComputeTime.Timed o : none.operations()) {
            assertEquals(3, o.passes(), 0, o.operation().name());
            if (o.operation().inLayer()) layerForward += o.forwardSeconds();
            else headForward += o.forwardSeconds();
            if (o.operation().kind() == Operation.Kind.ATTENTION) attentionForward += o.forwardSeconds();
        }
        assertTrue(headForward > 0);
        // the GPU's work (the host's launches apart, HostOverheadTest)
        assertEquals(3 * (layerForward + headForward), gpu(none), 1e-9);
        assertEquals(gpu(none) + layerForward, gpu(full), 1e-9);
        assertEquals(gpu(none) + attentionForward, gpu(selective), 1e-9);
    }

    /**
     * Without a flash kernel the attention core writes its scores to HBM and a softmax kernel reads them back; Megatron's
     * selective recomputation checkpoints the whole core (megatron/model/transformer.py at d07d29d,
     * _checkpointed_attention_forward over CoreAttention: baddbmm, scale_mask_softmax, dropout, bmm), so the softmax's
     * forward runs again with the attention kernel's, and nothing else does.
     */
    @Test
    void selectiveRecomputationRunsTheUnfusedSoftmaxAgain() {
        ComputeTime none = gpt3Micro(Recompute.NONE, false), selective = gpt3Micro(Recompute.SELECTIVE, false);
        double core = 0, softmax = 0;
        for (ComputeTime.Timed o : none.operations()) {
            if (o.operation().kind() == Operation.Kind.ATTENTION) core += o.forwardSeconds();
            if (o.operation().name().equals("softmax")) softmax += o.forwardSeconds();
        }
        assertTrue(softmax > 0, "an unfused core has a softmax kernel");
        for (ComputeTime.Timed o : selective.operations())
            assertEquals(o.operation().attentionCore() ? 4 : 3, o.passes(), 0, o.operation().name());
        assertEquals(gpu(none) + core + softmax, gpu(selective), 1e-9);
    }

    private static double gpu(ComputeTime c) { return c.microBatchSeconds() - c.hostBoundSeconds(); }

    /**
     * A micro-batch of one 2048-token sequence of GPT-3 175B at tp 8, pp 8 on a DGX A100, recomputing as {@code r},
     * with or without a flash kernel, at the efficiencies of the same run without recomputation.
     */
    private static ComputeTime gpt3Micro(Recompute r, boolean flash) {
        Cluster c = PerfFixtures.dgxA100(1);
        Model m = PerfFixtures.gpt3_175b();
        Parallel p = PerfFixtures.parallel(8, 8, 1, false, 0, 1, 1);
        Efficiency eff = Efficiency.defaults(c.gpu(), PerfFixtures.run(m, p,
                PerfFixtures.training(2048, 1, 1, Recompute.NONE, Precision.BF16, flash)));
        return ComputeTime.of(m, p, PerfFixtures.training(2048, 1, 1, r, Precision.BF16, flash), c.gpu(), eff);
    }

    /**
     * A parallel dimension is one type: given to the communication and memory models next to the shipped ones, a new
     * one's collective is placed on the link its group lands on, timed as calls x alpha + factor x bytes / busbw and
     * hidden behind its window together with the others', and what it shards of the memory is divided. Here a pair of
     * GPUs that split Adam's states between them and copy 1 GB per micro-batch to each other behind the forward.
     */
    @Test
    void aNewDimensionIsOneType() {
        Cluster c = PerfFixtures.dgxA100(1);
        Model m = PerfFixtures.gpt3_175b();
        Parallel p = PerfFixtures.parallel(8, 1, 1, false, 0, 1, 1);
        Training t = PerfFixtures.training(2048, 1, 4, Recompute.NONE, Precision.BF16, true);
        Efficiency eff = Efficiency.defaults(c.gpu(), PerfFixtures.run(m, p, t));
        ComputeTime compute = ComputeTime.of(m, p, t, c.gpu(), eff);
        ParallelDimension pairs = new ParallelDimension() {
            @Override
            public List<CollectivePlan> collectives(StepContext s) {
                LinkChoice link = s.topology().place(2, 1);
                long calls = s.training().microBatches();
                return List.of(new CollectivePlan(CollectiveOp.PP_SEND_RECV, 2, 1e9, calls, calls, link,
                        OverlapWindow.FORWARD, 1.0, false));
            }

            @Override
            public double shards(MemoryPart part, Parallel q) { return part == MemoryPart.OPTIMIZER_STATES ? 2 : 1; }
        };
        List<ParallelDimension> dims = new ArrayList<>(ParallelDimension.SHIPPED);
        dims.add(pairs);
        List<Collective> shipped = CommModel.of(c, m, p, t, compute, eff);
        List<Collective> with = CommModel.of(dims, c, m, p, t, compute, eff);
        assertEquals(shipped, with.subList(0, shipped.size()));
        Collective added = with.get(with.size() - 1);
        // NVLink3 in the catalogue: send-recv factor 1, 4 calls of 1 GB
        double expected = 4 * c.intraNode().alphaUs() * 1e-6 + 4e9 / (c.intraNode().busbwGbps() * 1e9);
        assertEquals(expected, added.seconds(), 1e-12);
        // the forward window (4 micro-batches' forward x 0.8) hides it whole
        assertTrue(eff.overlapFraction() * 4 * compute.forwardSeconds() > added.seconds());
        assertEquals(0, added.exposedSeconds(), 1e-12);
        // Adam's states halve; nothing else moves
        MemoryEstimate before = MemoryModel.of(c, m, p, t), after = MemoryModel.of(dims, c, m, p, t);
        assertEquals(before.optimizerGb() / 2, after.optimizerGb(), 1e-12);
        assertEquals(before.weightsGb(), after.weightsGb(), 0);
        assertEquals(before.activationsGb(), after.activationsGb(), 0);
    }

    /** A dimension of size 1 adds nothing. */
    @Test
    void dimensionsOfSizeOneAddNothing() {
        Cluster c = PerfFixtures.dgxA100(1);
        Model m = PerfFixtures.gpt3_175b();
        Training t = PerfFixtures.training(2048, 1, 4, Recompute.NONE, Precision.BF16, true);
        StepContext s = StepContext.of(c, m, PerfFixtures.parallel(1, 1, 1, false, 0, 1, 1), t);
        for (ParallelDimension d : ParallelDimension.SHIPPED) assertEquals(List.of(), d.collectives(s), d.getClass().getSimpleName());
    }
}
