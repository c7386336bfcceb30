package dev.trainadvisor.perf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainadvisor.spec.FlopsConvention;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.SpecReader;
import dev.trainadvisor.spec.Training;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.trainadvisor.perf.PerfFixtures.rel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FLOPs per token: the house count against Narayanan et al. 2021 (Megatron-LM, arXiv 2104.04473,
 * section 5.1), and each framework's printed-TFLOPS convention against real log lines
 * (docs/model.md, "FLOPs conventions"; the public logs of docs/logs.md).
 */
class FlopsTest {

    /** A model preset as the run-file reader resolves it (model/*.json on the classpath). */
    private static Model preset(String name) {
        ObjectMapper json = new ObjectMapper();
        JsonNode tree = json.createObjectNode()
                .put("cluster", "dgx-a100-80gb")
                .put("model", name)
                .set("training", json.createObjectNode().put("seq_len", 2048).put("micro_batch_size", 1));
        return new SpecReader().read(tree, "preset-" + name).run().model();
    }

    // ------------------------------------------------------------------ Megatron-LM, section 5.1

    /**
     * Eq. 3 of Narayanan et al. 2021: with full activation recomputation one iteration costs
     * F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)). Per token, multiplied out:
     * 96 l h^2 + 16 l s h + 6 h V. For GPT-3 175B (l = 96, h = 12288, s = 2048, V = 51200):
     * <pre>
     *   h^2            = 150,994,944
     *   96 l h^2       = 9216 x 150,994,944           = 1,391,569,403,904
     *   16 l s h       = 1536 x 2048 x 12288           =    38,654,705,664
     *   6 h V          = 6 x 12288 x 51200             =     3,774,873,600
     *   per token                                      = 1,433,998,983,168
     * </pre>
     * Eq. 3 counts full s^2 attention: flash_attention = false keeps the code from halving anything it reports.
     */
    @Test
    void hardwareFlopsWithFullRecomputeMatchMegatronEquation3() {
        Model gpt3 = PerfFixtures.gpt3_175b();
        int l = 96, h = 12288, s = 2048, vocab = 51200, globalBatchSeqs = 1536;
        Training t = PerfFixtures.training(s, 1, 1, Recompute.FULL, Precision.FP32, false);

        double eq3FlopsPerIteration = 96.0 * globalBatchSeqs * s * l * (double) h * h
                * (1 + s / (6.0 * h) + vocab / (16.0 * l * h));
        double codeFlopsPerIteration = FlopsPerToken.of(gpt3, t).hardware() * globalBatchSeqs * s;
        assertEquals(0, rel(codeFlopsPerIteration, eq3FlopsPerIteration), 1e-9,
                "hardware() x B x s against eq. 3");

        double handFlopsPerToken = 1_433_998_983_168.0;
        assertEquals(0, rel(FlopsPerToken.of(gpt3, t).hardware(), handFlopsPerToken), 1e-12);
    }

    /**
     * Without recomputation (model FLOPs, the MFU numerator): 72 B s l h^2 (1 + s/(6h) + V/(12 l h))
     * (Narayanan et al. 2021 eq. 3 without the recomputed forward; PaLM appendix B). Per token:
     * <pre>
     *   72 l h^2 = 6912 x 150,994,944     = 1,043,677,052,928
     *   12 l s h = 1152 x 25,165,824       =    28,991,029,248
     *   6 h V                              =     3,774,873,600
     *   per token                          = 1,076,442,955,776
     * </pre>
     * Model FLOPs must not depend on the recomputation setting.
     */
    @Test
    void modelFlopsWithoutRecomputeMatchTheFactorThreeForm() {
        Model gpt3 = PerfFixtures.gpt3_175b();
        int l = 96, h = 12288, s = 2048, vocab = 51200;
        double expectedFlopsPerToken = 72.0 * l * (double) h * h * (1 + s / (6.0 * h) + vocab / (12.0 * l * h));
        assertEquals(0, rel(expectedFlopsPerToken, 1_076_442_955_776.0), 1e-12, "formula vs hand arithmetic");
        for (Recompute rc : Recompute.values()) {
            FlopsPerToken f = FlopsPerToken.of(gpt3, PerfFixtures.training(s, 1, 1, rc, Precision.FP32, false));
            assertEquals(0, rel(f.model(), expectedFlopsPerToken), 1e-12, "model FLOPs with recompute " + rc);
        }
        // no recomputation: hardware FLOPs are the model FLOPs
        FlopsPerToken none = FlopsPerToken.of(gpt3, PerfFixtures.training(s, 1, 1, Recompute.NONE, Precision.FP32, false));
        assertEquals(0, rel(none.hardware(), expectedFlopsPerToken), 1e-12);
    }

    /**
     * Selective recomputation (Korthikanti et al. 2022) reruns only the forward of the attention core,
     * Q K^T and scores x V: 2 x 2 s h FLOPs per token per layer, i.e. 4 l s h per token on top of the
     * model FLOPs: 4 x 96 x 2048 x 12288 = 9,663,676,416; 1,076,442,955,776 + 9,663,676,416 = 1,086,106,632,192.
     */
    @Test
    void selectiveRecomputeAddsOneForwardOfTheAttentionCore() {
        FlopsPerToken f = FlopsPerToken.of(PerfFixtures.gpt3_175b(),
                PerfFixtures.training(2048, 1, 1, Recompute.SELECTIVE, Precision.FP32, false));
        assertEquals(0, rel(f.hardware(), 1_086_106_632_192.0), 1e-12);
    }

    /**
     * Narayanan et al. 2021, section 5.1, eq. 4: training time ~ 8 T P / (n X). "For the GPT-3 model with
     * P = 175 billion parameters, T = 300 billion tokens, n = 1024 A100 GPUs using batch size 1536 and
     * X = 140 teraFLOP/s per GPU, estimated training time is 34 days"; for the 1 trillion parameter model
     * (l = 128, h = 25600) with T = 450 billion tokens on 3072 GPUs at X = 163 teraFLOP/s, 84 days.
     * Eq. 4 drops the s/(6h) and V/(16 l h) terms of eq. 3, so our count (which keeps them) should give
     * slightly more:
     * <pre>
     *   175B: 1 + 2048/73728 + 51200/18874368 = 1.0305;  300e9 x 1.434e12 / (1024 x 140e12) / 86400 = 34.73 days
     *   1T:   1 + 2048/153600 + 51200/52428800 = 1.0143; 450e9 x 8.168e12 / (3072 x 163e12) / 86400 = 84.96 days
     * </pre>
     * Both within 3% of the paper's rounded figures.
     */
    @Test
    void endToEndTrainingTimeMatchesSection51Estimates() {
        Training t = PerfFixtures.training(2048, 1, 1, Recompute.FULL, Precision.FP32, false);
        double secondsPerDay = 86_400;

        double flops175bPerToken = FlopsPerToken.of(PerfFixtures.gpt3_175b(), t).hardware();
        double days175b = 300e9 * flops175bPerToken / (1024 * 140e12) / secondsPerDay;
        assertEquals(34.0, days175b, 34.0 * 0.03, "GPT-3 175B training days");

        Model oneTrillion = new Model("megatron-1t", 128, 25600, 160, 160, 4 * 25600, 51200, false, true, false, null, 4.0);
        double flops1tPerToken = FlopsPerToken.of(oneTrillion, t).hardware();
        double days1t = 450e9 * flops1tPerToken / (3072 * 163e12) / secondsPerDay;
        assertEquals(84.0, days1t, 84.0 * 0.03, "1T model training days");
    }

    // ------------------------------------------------------------------ InternEvo (docs/model.md (FLOPs conventions))

    /**
     * InternEvo get_megatron_flops per token: ckpt ((8 + 4r) h^2 + 4 s h) L + 6 h V with r = 1.5 x mlp_ratio
     * = 1.5 x 8/3 = 4 (SwiGLU), ckpt = 3 without checkpointing. InternLM-7B, s = 2048:
     * <pre>
     *   (8 + 16) h^2 = 24 x 16,777,216    = 402,653,184
     *   4 s h        = 4 x 2048 x 4096     =  33,554,432
     *   layer term   = 436,207,616;  x 3 x 32 = 41,875,931,136
     *   6 h V        = 6 x 4096 x 103168   =  2,535,456,768
     *   per token                          = 44,411,387,904
     * </pre>
     * The InternLM log of https://github.com/InternLM/InternLM/blob/912fc8f8aa96de040e3c1068e777d11ba977dafe/doc/en/usage.md
     * (shared/samples/logs/internlm-1.log) step 1 prints tgs 4274.45 and tflops=189.83371103277346:
     * 44,411,387,904 x 4274.45 / 1e12 = 189.834257. knowledge-base/reference-runs/ row
     * internlm-issue22-7b-1node-nvlink: tgs 4233.73, tflops 188.03: 44,411,387,904 x 4233.73 / 1e12 = 188.0258.
     */
    @Test
    void internEvoConventionReproducesPrintedTflops() {
        Model internlm = preset("internlm-7b");
        Training t = PerfFixtures.training(2048, 2, 4, Recompute.NONE, Precision.FP32, true);
        double flopsPerToken = ConventionFlops.perToken(FlopsConvention.INTERNEVO, internlm, t);
        assertEquals(0, rel(flopsPerToken, 44_411_387_904.0), 1e-12, "hand-computed FLOPs per token");

        double tgsLog = 4274.45;
        double printedTflopsLog = 189.83371103277346;
        assertEquals(0, rel(flopsPerToken * tgsLog / 1e12, printedTflopsLog), 1e-4, "internlm-1.log step 1");

        double tgsIssue = 4233.73;
        assertEquals(188.03, flopsPerToken * tgsIssue / 1e12, 0.01, "InternLM issue 22, NVLink node");
    }

    /**
     * With checkpointing InternEvo counts the recomputed forward: ckpt = 4 on the layer term, the LM head
     * stays at 6 h V: 4 x 436,207,616 x 32 + 2,535,456,768 = 55,834,574,848 + 2,535,456,768 = 58,370,031,616.
     */
    @Test
    void internEvoConventionCountsRecomputeWithFactorFour() {
        Model internlm = preset("internlm-7b");
        Training full = PerfFixtures.training(2048, 2, 4, Recompute.FULL, Precision.FP32, true);
        assertEquals(0, rel(ConventionFlops.perToken(FlopsConvention.INTERNEVO, internlm, full), 58_370_031_616.0), 1e-12);
    }

    // ------------------------------------------------------------------ Megatron-LM core_r0.8 (docs/model.md (FLOPs conventions))

    /**
     * Megatron-LM core_r0.8 num_floating_point_operations on the log of https://github.com/NVIDIA/Megatron-LM/issues/756 (megatron-1.log)
     * (Mixtral 8x7B on 16 H100, global batch 128, s = 2048 as docs/model.md (FLOPs conventions) verifies; h = 4096, L = 32,
     * ffn 14336, 8 of 32 query groups, top-2, SwiGLU, V = 32000):
     * <pre>
     *   bracket = (1 + 8/32 + 2048/4096) x 1 + (14336/4096) x 2 x 1.5 + 32000/(2 x 32 x 4096)
     *           = 1.75 + 10.5 + 0.1220703125 = 12.3720703125
     *   per token = 12 h^2 L x bracket = 6,442,450,944 x 12.3720703125 = 79,706,456,064
     *   per iteration = 79,706,456,064 x 128 x 2048 = 2.0894569e16
     *   iteration 2: 2.0894569e16 / (5.6301 s x 16 GPUs x 1e12) = 231.9516 (printed 231.9)
     * </pre>
     * The printed TFLOP/s ({:.1f}) and elapsed ms ({:.1f}) are both rounded, so a line is reproduced when
     * the difference is within 0.05 + tflops x 0.05 / ms.
     */
    @Test
    void megatronLegacyConventionReproducesMixtralLog() {
        Model mixtral = preset("mixtral-8x7b");
        int seqLen = 2048, globalBatchSeqs = 128, gpus = 16;
        Training t = PerfFixtures.training(seqLen, 1, 1, Recompute.NONE, Precision.FP32, true);
        double flopsPerToken = ConventionFlops.perToken(FlopsConvention.MEGATRON_LEGACY, mixtral, t);
        assertEquals(0, rel(flopsPerToken, 79_706_456_064.0), 1e-12, "hand-computed FLOPs per token");

        double[][] msAndPrintedTflops = {   // iterations 2, 3, 43, 44, 45 of megatron-1.log
                {5630.1, 231.9}, {5410.6, 241.4}, {5444.9, 239.8}, {5533.8, 236.0}, {5718.6, 228.4}};
        for (double[] row : msAndPrintedTflops) {
            double elapsedMs = row[0], printedTflops = row[1];
            double tflops = flopsPerToken * globalBatchSeqs * seqLen / (elapsedMs / 1000 * gpus * 1e12);
            double roundingTflops = 0.05 + printedTflops * 0.05 / elapsedMs;
            assertEquals(printedTflops, tflops, roundingTflops, "iteration at " + elapsedMs + " ms");
        }
    }

    /**
     * From core_v0.12 the attention core s/h is halved: bracket 12.3720703125 - 0.25 = 12.1220703125,
     * 6,442,450,944 x 12.1220703125 = 78,095,843,328.
     */
    @Test
    void megatronCausalConventionHalvesTheAttentionTerm() {
        Model mixtral = preset("mixtral-8x7b");
        Training t = PerfFixtures.training(2048, 1, 1, Recompute.NONE, Precision.FP32, true);
        assertEquals(0, rel(ConventionFlops.perToken(FlopsConvention.MEGATRON, mixtral, t), 78_095_843_328.0), 1e-12);
    }

    // ------------------------------------------------------------------ torchtitan (docs/model.md (FLOPs conventions))

    /**
     * torchtitan: 6 (N - N_embedding) + 12 L H d s. torchtitan-1.log does not state the model; its
     * tflops/tps = 339.16e12 / 5856 = 5.7917e10 FLOPs per token is reproduced by torchtitan's default Llama 3 8B
     * config (dim 4096, 32 layers, 32 heads, 8 KV heads, FFN 14336, vocab 128256, seq_len 8192) on every line
     * to within print rounding, and the printed MFU implies an H100 (339.16 / 0.3429 = 989). So the model is
     * inferred, not stated. Hand count:
     * <pre>
     *   per layer: q, o 2 x 4096^2 = 33,554,432; k, v 2 x 4096 x 1024 = 8,388,608; MLP 3 x 4096 x 14336
     *              = 176,160,768; 2 norms 8,192; total 218,112,000; x 32 = 6,979,584,000
     *   + final norm 4,096 + output head 4096 x 128256 = 525,336,576  ->  N - N_emb = 7,504,924,672
     *   6 x 7,504,924,672 = 45,029,548,032;  12 x 32 x 4096 x 8192 = 12,884,901,888
     *   per token = 57,914,449,920
     * </pre>
     * tps is printed as an integer (+-0.5) and tflops with 2 decimals (+-0.005).
     */
    @Test
    void torchtitanConventionReproducesLlama3_8bLog() {
        Model llama3 = new Model("llama-3-8b", 32, 4096, 32, 8, 14336, 128256, true, false, false, null, 3.5);
        Training t = PerfFixtures.training(8192, 1, 1, Recompute.NONE, Precision.FP32, true);
        double flopsPerToken = ConventionFlops.perToken(FlopsConvention.TORCHTITAN, llama3, t);
        assertEquals(0, rel(flopsPerToken, 57_914_449_920.0), 1e-12, "hand-computed FLOPs per token");

        double[][] tpsAndTflops = {   // steps 200-250 of torchtitan-1.log
                {5856, 339.16}, {5593, 323.92}, {5868, 339.82}, {5869, 339.88}, {5864, 339.59}, {5862, 339.48}};
        for (double[] row : tpsAndTflops) {
            double tps = row[0], printedTflops = row[1];
            double roundingRel = 0.5 / tps + 0.005 / printedTflops;
            assertTrue(rel(flopsPerToken * tps / 1e12, printedTflops) <= roundingRel,
                    "step with tps " + tps + ": " + flopsPerToken * tps / 1e12 + " vs " + printedTflops);
        }
    }

    /**
     * torchtitan from 5a090f2 (2025-10-29) halves the attention term: the same Llama 3 8B, by hand,
     * 6 x 7,504,924,672 + 6 x 32 x 4096 x 8192 = 45,029,548,032 + 6,442,450,944 = 51,471,998,976 a token, so a log
     * printed since then reads 11.1% fewer TFLOPS for the same tokens/s than one printed before.
     */
    @Test
    void torchtitanSince2025_10CountsCausalAttentionAtHalf() {
        Model llama3 = new Model("llama-3-8b", 32, 4096, 32, 8, 14336, 128256, true, false, false, null, 3.5);
        Training t = PerfFixtures.training(8192, 1, 1, Recompute.NONE, Precision.FP32, true);
        assertEquals(0, rel(ConventionFlops.perToken(FlopsConvention.TORCHTITAN_2025_10, llama3, t), 51_471_998_976.0),
                1e-12, "hand-computed FLOPs per token");
    }

    // ------------------------------------------------------------------ house count beyond GPT

    /**
     * House model FLOPs with GQA (Llama 3 8B, 8 KV heads, s = 8192), forward per layer per token:
     * <pre>
     *   QKV  2h(h + 2 x 1024) = 2 x 4096 x 6144 = 50,331,648     out 2h^2 = 33,554,432
     *   MLP  6 h f = 6 x 4096 x 14336 = 352,321,536              core 4 s h = 134,217,728
     *   layer = 570,425,344; x 32 = 18,253,611,008; logits 2 h V = 1,050,673,152
     *   x 3 (forward + backward) = 3 x 19,304,284,160 = 57,912,852,480
     * </pre>
     */
    @Test
    void houseModelFlopsCountGqaProjections() {
        Model llama3 = new Model("llama-3-8b", 32, 4096, 32, 8, 14336, 128256, true, false, false, null, 3.5);
        FlopsPerToken f = FlopsPerToken.of(llama3, PerfFixtures.training(8192, 1, 1, Recompute.NONE, Precision.FP32, true));
        assertEquals(0, rel(f.model(), 57_912_852_480.0), 1e-12);
        assertEquals(0, rel(f.logits(), 3 * 1_050_673_152.0), 1e-12);
    }

    /**
     * House model FLOPs of Mixtral 8x7B (top-2 of 8 experts, s = 2048), per layer per token: QKV 50,331,648,
     * out 33,554,432, two experts 2 x 6 x 4096 x 14336 = 704,643,072, router 2 x 4096 x 8 = 65,536,
     * core 4 x 2048 x 4096 = 33,554,432; layer 822,149,120 x 32 = 26,308,771,840; logits 2 x 4096 x 32000
     * = 262,144,000; x 3 = 79,712,747,520. That is Megatron's 79,706,456,064 plus the router, 3 x 65,536 x 32
     * = 6,291,456, which Megatron does not count.
     */
    @Test
    void houseModelFlopsCountTopKExpertsAndRouter() {
        Model mixtral = preset("mixtral-8x7b");
        Training t = PerfFixtures.training(2048, 1, 1, Recompute.NONE, Precision.FP32, true);
        double house = FlopsPerToken.of(mixtral, t).model();
        assertEquals(0, rel(house, 79_712_747_520.0), 1e-12);
        assertEquals(6_291_456.0, house - ConventionFlops.perToken(FlopsConvention.MEGATRON_LEGACY, mixtral, t), 1e-3);
    }

    // ------------------------------------------------------------------ independence of the layout

    /**
     * FLOPs per token are a property of the model and the training, not of how the run is split. The
     * prediction for a layout must carry the same FLOPs per token, and its TFLOPS must be those FLOPs times
     * its own tokens per GPU per second. Tokens per GPU per step are s b m / (tp pp): 2048 x 2 x 4 = 16384
     * tokens per replica, shared by the tp x pp GPUs of the replica.
     */
    @Test
    void flopsPerTokenDoNotDependOnTheLayout() {
        Model m = PerfFixtures.internlm7b();
        Training t = PerfFixtures.training(2048, 2, 4, Recompute.NONE, Precision.FP32, true);
        FlopsPerToken reference = FlopsPerToken.of(m, t);
        record Layout(int tp, int pp, int dp, boolean sp, double tokensPerGpuPerStep) {}
        List<Layout> layouts = List.of(
                new Layout(1, 1, 16, false, 16384),
                new Layout(2, 1, 8, true, 16384 / 2.0),
                new Layout(4, 2, 2, true, 16384 / 8.0),
                new Layout(8, 2, 1, false, 16384 / 16.0));
        for (Layout l : layouts) {
            Parallel p = PerfFixtures.parallel(l.tp(), l.pp(), l.dp(), l.sp(), 1, l.dp(), 1);
            StepPrediction pred = StepModel.predict(PerfFixtures.dgxA100(2), PerfFixtures.run(m, p, t));
            String what = "tp=" + l.tp() + " pp=" + l.pp() + " dp=" + l.dp();
            assertEquals(reference, pred.flopsPerToken(), what);
            assertEquals(0, rel(pred.tokensPerGpuPerS() * pred.stepTimeS(), l.tokensPerGpuPerStep()), 1e-12,
                    what + ": tokens per GPU per step");
            assertEquals(0, rel(pred.tflopsPerGpu(), reference.model() * pred.tokensPerGpuPerS() / 1e12), 1e-12,
                    what + ": TFLOPS = model FLOPs/token x tokens/GPU/s");
        }
    }
}
