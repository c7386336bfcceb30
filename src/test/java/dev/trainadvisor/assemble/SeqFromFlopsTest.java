package dev.trainadvisor.assemble;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainadvisor.spec.FlopsConvention;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import dev.trainadvisor.spec.Training;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The sequence length a log's printed TFLOPS were counted at (SeqFromFlops), against the two sample logs whose
 * sequence length is known apart from it: megatron-1.log, Mixtral 8x7B at 2048 tokens (perf.FlopsTest reproduces its
 * every printed TFLOPS at 2048 from the elapsed times), and torchtitan-1.log, Llama 3 8B at torchtitan's default 8192
 * (FlopsTest: 57,914,449,920 FLOPs a token in torchtitan's count reproduce its every line).
 */
class SeqFromFlopsTest {

    /** A preset model and a training block of 2048 tokens, as the run-file reader resolves them. */
    private static RunSpec run(String model) {
        ObjectMapper json = new ObjectMapper();
        return new SpecReader().read(json.createObjectNode().put("cluster", "dgx-h100").put("model", model)
                .set("training", json.createObjectNode().put("seq_len", 2048).put("micro_batch_size", 1)), "t.yaml");
    }

    @Test
    void fromTheStepAndTheGlobalBatch() {
        RunSpec s = run("mixtral-8x7b");
        Model m = s.run().model();
        Training t = s.run().training();
        // iteration 2 of megatron-1.log: 231.9 TFLOPS in 5630.1 ms for 128 sequences on 16 GPUs
        SeqFromFlops.Derived d = SeqFromFlops.derive(FlopsConvention.MEGATRON_LEGACY, m, t, 231.9, Double.NaN, 5.6301,
                128, "128 sequences", 16);
        assertEquals(2048, d.tokens());
        // by hand: at 2048 tokens the count gives 231.9516 TFLOPS there (FlopsTest); S F(S) moves as S^1.04 (attention's
        // s/h is 0.5 of the bracket's 12.37), so S = 2048 x (231.9 / 231.9516)^(1 / 1.04) = 2047.56
        assertEquals(2048 * Math.pow(231.9 / 231.9516, 1 / 1.0404), d.exact(), 0.05);
        assertTrue(d.why().contains("megatron-legacy count of mixtral-8x7b gives the printed 231.9 TFLOPS"), d.why());
        // a figure that lies between customary lengths pins none: the step 3% longer reads 2109 tokens
        assertNull(SeqFromFlops.derive(FlopsConvention.MEGATRON_LEGACY, m, t, 231.9 * 1.03, Double.NaN, 5.6301, 128, "", 16));
        // a count the figures contradict, and no pace at all, pin none
        assertNull(SeqFromFlops.derive(FlopsConvention.MEGATRON_LEGACY, m, t, 1e-6, Double.NaN, 5.6301, 128, "", 16));
        assertNull(SeqFromFlops.derive(FlopsConvention.MEGATRON_LEGACY, m, t, 231.9, Double.NaN, Double.NaN, 0, null, 16));
    }

    /**
     * A wrong model solves to a length no run uses: internlm-4.log (InternLM-20B, 127.0 TFLOPS at 1025 tokens/GPU/s)
     * read as InternLM-7B needs 52,628 tokens a sequence, which is a multiple of 128 within 20 tokens but 7% from the
     * nearest customary length (49152): nothing is derived.
     */
    @Test
    void aLengthNoRunUsesIsNotDerived() {
        RunSpec s = run("internlm-7b");
        assertNull(SeqFromFlops.derive(FlopsConvention.INTERNEVO, s.run().model(), s.run().training(), 127.0, 1025,
                Double.NaN, 0, null, 8));
        assertEquals(49152, SeqFromFlops.customary(52628));
        assertEquals(2048, SeqFromFlops.customary(2047.6));
        assertEquals(3072, SeqFromFlops.customary(3000));
        assertEquals(128, SeqFromFlops.customary(10));
    }

    @Test
    void fromTokensPerSecondPrintedBesideThem() {
        RunSpec s = run("llama-3-8b");
        // step 200 of torchtitan-1.log: tps 5,856, tflops 339.16; 339.16e12 / 5856 = 57.917e9 a token, and torchtitan's
        // count is 45,029,548,032 + 1,572,864 S (FlopsTest): S = (57.917e9 - 45.0295e9) / 1,572,864 = 8193.7
        SeqFromFlops.Derived d = SeqFromFlops.derive(FlopsConvention.TORCHTITAN, s.run().model(), s.run().training(), 339.16,
                5856, Double.NaN, 0, null, 8);
        assertEquals(8192, d.tokens());
        assertEquals((339.16e12 / 5856 - 45_029_548_032.0) / 1_572_864, d.exact(), 1);
        // read in torchtitan's count since 2025-10 (attention at half) the same FLOPs a token need twice the sequence
        // (16387.4): the count of the log's day matters
        SeqFromFlops.Derived halved = SeqFromFlops.derive(FlopsConvention.TORCHTITAN_2025_10, s.run().model(),
                s.run().training(), 339.16, 5856, Double.NaN, 0, null, 8);
        assertEquals(16384, halved.tokens());
        assertEquals(2 * d.exact(), halved.exact(), 1);
        // a model far larger than the figures allow (the printed FLOPs a token below its parameters' 6N): none
        assertNull(SeqFromFlops.derive(FlopsConvention.TORCHTITAN, s.run().model(), s.run().training(), 0.52, 7282,
                Double.NaN, 0, null, 8));
    }
}
