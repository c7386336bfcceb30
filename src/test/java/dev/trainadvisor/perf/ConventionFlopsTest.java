package dev.trainadvisor.perf;

import dev.trainadvisor.spec.FlopsConvention;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.Training;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The 2021 Megatron-LM and the Megatron-DeepSpeed counts, against published figures. */
class ConventionFlopsTest {

    @Test
    void megatron2021IsEquation3EvenWithoutRecompute() {
        // GPT-3 175B: l 96, h 12288, s 2048, V 51200; eq. 3 per token = 96 l h^2 (1 + s/6h + V/16lh)
        Model gpt3 = new Model("gpt3", 96, 12288, 96, 96, 4 * 12288, 51200, false, true, false, null, 4.0);
        Training t = new Training(2048, 1, 1, Recompute.NONE, Precision.BF16, Precision.BF16, true);
        double l = 96, h = 12288, s = 2048, v = 51200;
        double eq3 = 96 * l * h * h * (1 + s / (6 * h) + v / (16 * l * h));
        assertEquals(eq3, ConventionFlops.perToken(FlopsConvention.MEGATRON_2021, gpt3, t), 1e-9 * eq3);
    }

    @Test
    void megatronDeepSpeedReproducesBloomsPrintedTflops() {
        // BLOOM-176B (BigScience log: 105.22 s per iteration, global batch 2048 x 2048 tokens, 384 A100,
        // "TFLOPs: 149.02"): h 14336, L 70, 112 heads, vocab 250880 padded, activation checkpointing (f = 4).
        // 24 * 4 * 2048 * 2048 * 70 * 14336^2 * (1 + 2048/(6*14336) + 250880/(16*70*14336)) / 105.22 / 384 / 1e12 = 149.023
        Model bloom = new Model("bloom", 70, 14336, 112, 112, 4 * 14336, 250880, false, true, true, null, 4.0);
        Training t = new Training(2048, 2, 1, Recompute.FULL, Precision.BF16, Precision.BF16, true);
        double perToken = ConventionFlops.perToken(FlopsConvention.MEGATRON_DEEPSPEED, bloom, t);
        double tflops = perToken * 2048.0 * 2048 / 105.22 / 384 / 1e12;
        assertEquals(149.02, tflops, 0.005);
        // without checkpointing the factor is 3: three quarters of it
        Training noRecompute = new Training(2048, 2, 1, Recompute.NONE, Precision.BF16, Precision.BF16, true);
        assertEquals(0.75 * perToken, ConventionFlops.perToken(FlopsConvention.MEGATRON_DEEPSPEED, bloom, noRecompute), 1e-6 * perToken);
    }
}
