package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.Training;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static dev.trainadvisor.perf.PerfFixtures.rel;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Memory: model states per ZeRO stage (Rajbhandari et al. 2019, arXiv 1910.02054, figure 1) and
 * activations per layer (Korthikanti et al. 2022, arXiv 2205.05198, table 2).
 */
class MemoryTest {

    private static final double BYTES_PER_GB = 1e9;

    private static double modelStatesGb(double psi, int stage) {
        return Arrays.stream(MemoryModel.modelStatesBytes(psi, stage, 64, 2, 2)).sum() / BYTES_PER_GB;
    }

    /**
     * ZeRO paper figure 1: Psi = 7.5B parameters, N_d = 64, K = 12, fp16 weights and gradients.
     * <pre>
     *   baseline   (2 + 2 + K) Psi         = 16 x 7.5             = 120 GB
     *   P_os       (2 + 2) Psi + K Psi/N_d = 30 + 90/64           = 31.40625 GB  (printed 31.4)
     *   P_os+g     2 Psi + (2 + K) Psi/N_d = 15 + 105/64          = 16.640625 GB (printed 16.6)
     *   P_os+g+p   (2 + 2 + K) Psi/N_d     = 120/64               = 1.875 GB     (printed 1.9)
     * </pre>
     */
    @Test
    void zeroStagesMatchFigure1() {
        double psi = 7.5e9;
        double[] handGb = {120.0, 31.40625, 16.640625, 1.875};
        double[] printedGb = {120, 31.4, 16.6, 1.9};
        for (int stage = 0; stage <= 3; stage++) {
            double gb = modelStatesGb(psi, stage);
            assertEquals(0, rel(gb, handGb[stage]), 1e-12, "stage " + stage + " against the hand calculation");
            assertEquals(printedGb[stage], gb, 0.05, "stage " + stage + " against figure 1 (printed to 0.1 GB)");
        }
    }

    /** Per component: stage 1 shards only the 12 optimizer bytes, stage 2 also the gradients, stage 3 all three. */
    @Test
    void zeroStagesShardTheRightComponents() {
        double psi = 1e9;   // 1B parameters -> 2 GB weights, 2 GB gradients, 12 GB optimizer unsharded
        double[][] expectedBytes = {
                {2e9, 2e9, 12e9},
                {2e9, 2e9, 12e9 / 64},
                {2e9, 2e9 / 64, 12e9 / 64},
                {2e9 / 64, 2e9 / 64, 12e9 / 64}};
        for (int stage = 0; stage <= 3; stage++) {
            double[] bytes = MemoryModel.modelStatesBytes(psi, stage, 64, 2, 2);
            for (int i = 0; i < 3; i++) {
                assertEquals(0, rel(bytes[i], expectedBytes[stage][i]), 1e-12, "stage " + stage + " component " + i);
            }
        }
    }

    // ------------------------------------------------------------------ Korthikanti et al. 2022, table 2

    /**
     * One GPT-3 175B layer, s = 2048, b = 1, h = 12288, a = 96, t = 8, 16-bit activations with dropout:
     * sbh = 2048 x 12288 = 25,165,824 and 5as/h = 5 x 96 x 2048 / 12288 = 80.
     */
    private static final double SBH = 2048.0 * 12288;

    private static double layerBytes(int tp, boolean sp, Recompute rc, boolean flash) {
        Model gpt3 = new Model("gpt3-175b", 96, 12288, 96, 96, 4 * 12288, 51200, false, true, false, null, 4.0);
        return ActivationMemory.perLayerBytes(gpt3, 2048, 1, tp, sp, rc, flash, true);
    }

    /** No parallelism: sbh (34 + 5as/h) = 114 sbh = 2,868,903,936 bytes. */
    @Test
    void noParallelism() {
        assertEquals(0, rel(layerBytes(1, false, Recompute.NONE, false), 114 * SBH), 1e-12);
        assertEquals(0, rel(114 * SBH, 2_868_903_936.0), 1e-15);
    }

    /** Tensor parallel: sbh (10 + 24/t + 5as/(ht)) = sbh (10 + 3 + 10) = 23 sbh = 578,813,952 bytes. */
    @Test
    void tensorParallel() {
        assertEquals(0, rel(layerBytes(8, false, Recompute.NONE, false), 23 * SBH), 1e-12);
    }

    /** Tensor + sequence parallel: sbh/t (34 + 5as/h) = 114/8 sbh = 14.25 sbh = 358,612,992 bytes. */
    @Test
    void tensorAndSequenceParallel() {
        assertEquals(0, rel(layerBytes(8, true, Recompute.NONE, false), 14.25 * SBH), 1e-12);
    }

    /** Tensor parallel + selective recompute: sbh (10 + 24/t) = 13 sbh = 327,155,712 bytes. */
    @Test
    void tensorParallelWithSelectiveRecompute() {
        assertEquals(0, rel(layerBytes(8, false, Recompute.SELECTIVE, false), 13 * SBH), 1e-12);
    }

    /** Tensor + sequence parallel + selective recompute: sbh/t x 34 = 4.25 sbh = 106,954,752 bytes. */
    @Test
    void tensorAndSequenceParallelWithSelectiveRecompute() {
        assertEquals(0, rel(layerBytes(8, true, Recompute.SELECTIVE, false), 4.25 * SBH), 1e-12);
    }

    /**
     * FlashAttention keeps no s x s tensor (docs/model.md): with TP + SP and no recompute the layer holds
     * what selective recompute leaves, sbh/t x 34 = 4.25 sbh.
     */
    @Test
    void flashAttentionDropsTheScoreTerm() {
        assertEquals(0, rel(layerBytes(8, true, Recompute.NONE, true), 4.25 * SBH), 1e-12);
        assertEquals(0, rel(layerBytes(1, false, Recompute.NONE, true), 34 * SBH), 1e-12);
    }

    /** Full recomputation keeps only the layer input: 2 sbh = 50,331,648 bytes (table 2, no sequence parallelism). */
    @Test
    void fullRecompute() {
        assertEquals(0, rel(layerBytes(1, false, Recompute.FULL, false), 2 * SBH), 1e-12);
        assertEquals(0, rel(layerBytes(8, false, Recompute.FULL, false), 2 * SBH), 1e-12);
    }

    // ------------------------------------------------------------------ the whole estimate, by hand

    /**
     * InternLM-7B, 8 GPUs, ZeRO-1 over 8, bf16 weights, fp32 gradient buffers, s = 2048, b = 2, flash, no dropout:
     * <pre>
     *   Psi per layer = 4h^2 (QKVO) + 3h (QKV bias) + 3 h f (SwiGLU) + 2h (norms)
     *                 = 67,108,864 + 12,288 + 135,266,304 + 8,192 = 202,395,648
     *   Psi = 32 x 202,395,648 + 2 x 4096 x 103168 (untied embeddings) + 4096 = 7,321,817,088
     *   weights 2 Psi = 14.643634176 GB; gradients 4 Psi = 29.287268352 GB; optimizer 12 Psi / 8 = 10.982725632 GB
     *   activations per layer (flash, no dropout, tp = 1):
     *     kept across TP: 2 norm inputs + QKV input + MLP input = 8 sbh
     *     split by TP: Q, K, V, projection input 8 sbh (kv = h) + SwiGLU 2 x 2sbf + 2sbf = 6 sbf
     *     = sb (16h + 6f) = 4096 x (65,536 + 66,048) = 4096 x 131,584 = 538,968,064 bytes
     *   32 layers, one micro-batch in flight (pp = 1): 17.246978048 GB
     *   logits: 4096 tokens x 103168 x (2 + 4) bytes = 2.535456768 GB; buffers 2 GB
     * </pre>
     */
    @Test
    void internlm7bEstimateByHand() {
        Model m = PerfFixtures.internlm7b();
        Training t = PerfFixtures.training(2048, 2, 4, Recompute.NONE, Precision.FP32, true);
        MemoryEstimate e = MemoryModel.of(PerfFixtures.dgxA100(1), m, PerfFixtures.parallel(1, 1, 8, false, 1, 8, 1), t);
        double psi = 7_321_817_088.0;
        assertEquals(0, rel(Params.total(m), psi), 1e-15, "parameter count");
        assertEquals(0, rel(e.weightsGb(), 2 * psi / 1e9), 1e-12, "weights");
        assertEquals(0, rel(e.gradientsGb(), 4 * psi / 1e9), 1e-12, "fp32 gradient buffers");
        assertEquals(0, rel(e.optimizerGb(), 12 * psi / 8 / 1e9), 1e-12, "optimizer shard");
        assertEquals(0, rel(e.activationsGb(), 32 * 538_968_064.0 / 1e9), 1e-12, "activations");
        assertEquals(0, rel(e.logitsGb(), 4096.0 * 103168 * 6 / 1e9), 1e-12, "logits");
        assertEquals(80, e.capacityGb(), 0, "A100-SXM4-80GB");
    }
}
