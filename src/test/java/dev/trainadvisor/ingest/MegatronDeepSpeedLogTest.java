package dev.trainadvisor.ingest;

import org.junit.jupiter.api.Test;

import static dev.trainadvisor.ingest.Samples.metric;
import static org.junit.jupiter.api.Assertions.*;

/** Megatron-DeepSpeed samples, values read by hand; the argonne and ModelLink variants. */
class MegatronDeepSpeedLogTest {
    final MegatronDeepSpeedLog parser = new MegatronDeepSpeedLog();

    @Test
    void megatronDeepSpeed1() {
        ParsedLog p = Samples.parse(parser, "megatron-deepspeed-1.log");
        // iterations 5426, 5427, 5428 (n=3): far from the start of training, no warm-up by number; 5426: 4247.9 ms
        // against the median of 5427, 5428 (4227.5) is 0.5% off: kept. All 3 steady.
        assertEquals(3, p.steps());
        assertEquals(3, p.steadySteps());
        // elapsed time per iteration (ms): 4247.9, 4225.8, 4229.2 -> 4229.2 ms
        assertEquals(4.2292, metric(p, "step_time_s"), 1e-12);
        // TFLOPs: 78.36, 78.77, 78.71 -> 78.71
        assertEquals(78.71, metric(p, "tflops_per_gpu"), 1e-9);
        assertEquals("megatron-deepspeed", p.tflopsConvention());
        assertEquals(1.0, metric(p, "loss_scale"));
        assertEquals(0.0, metric(p, "skipped_steps"));
        assertEquals(5428.0, metric(p, "steps"));
        // samples per second: 1.883, 1.893, 1.892 -> 1.892 (global samples/s: extra, not a run-file metric)
        assertEquals(1.892, (Double) p.extra().get("samples_per_s"), 1e-12);
        assertEquals(2048, p.config().get("training.seq_len"), "actual seqlen:  2048");
        assertFalse(p.metrics().containsKey("tokens_per_gpu_per_s"), "no tgs printed and no world size");
    }

    // Lines built from the formats of docs/logs.md (Megatron-DeepSpeed); numbers made up.

    @Test
    void tgsColumnOfNewerMegatronDeepSpeed() {
        String line = " iteration %8d/  250000 | consumed samples:        43408 | consumed tokens:     88899584 |"
                + " elapsed time per iteration (ms): %.1f | learning rate: 2.999E-04 | global batch size:     8 |"
                + " lm loss: 2.000000E+00 | loss scale: 1.0 | grad norm: 0.300 | actual seqlen:  4096 |"
                + " number of skipped iterations:   0 | number of nan iterations:   0 | samples per second: 1.883 |"
                + " tokens per gpu per second (tgs): %.3f | TFLOPs: 78.36 |\n";
        String log = String.format(java.util.Locale.ROOT, line, 1, 9000.0, 100.0)
                + String.format(java.util.Locale.ROOT, line, 2, 4000.0, 1000.0)
                + String.format(java.util.Locale.ROOT, line, 3, 4000.0, 1002.0);
        ParsedLog p = parser.parse(log);
        assertEquals(1001.0, metric(p, "tokens_per_gpu_per_s"), 1e-9);
        assertEquals(4096, p.config().get("training.seq_len"));
    }

    @Test
    void modelLinkTailAndPipelineEngineSkips() {
        String log = """
                [2024-01-01 00:00:01,000] [INFO] [logging.py:96:log_dist] [Rank 0] step=1, skipped=1, lr=[0.0], mom=[(0.9, 0.95)]
                steps: 1 loss: 10.6554 iter time (s): 4.218 samples/sec: 7.586
                 iteration        1/    2500 | elapsed time per iteration (ms): 4220.8 | global batch size:    32 | loss scale: 32768.0 | actual seqlen:  2048 | number of skipped iterations:   0 | samples per second: 7.582 | TFLOPs: 16.98 | tgs (tokens/gpu/second): 353.02 time (ms)
                [2024-01-01 00:00:02,000] [INFO] [logging.py:96:log_dist] [Rank 0] step=2, skipped=2, lr=[0.0], mom=[(0.9, 0.95)]
                steps: 2 loss: 10.6521 iter time (s): 1.337 samples/sec: 23.934
                 iteration        2/    2500 | elapsed time per iteration (ms): 1346.3 | global batch size:    32 | loss scale: 16384.0 | actual seqlen:  2048 | number of skipped iterations:   0 | samples per second: 23.769 | TFLOPs: 53.25 | tgs (tokens/gpu/second): 360.00 time (ms)
                """;
        assertTrue(parser.confidence(log) > new DeepSpeedLog().confidence(log), "one engine line per iteration: Megatron-DeepSpeed");
        ParsedLog p = LogFormats.detectAndParse(log, "x.log");
        assertEquals("megatron-deepspeed", p.format());
        assertEquals(360.0, metric(p, "tokens_per_gpu_per_s"), 1e-9, "the second (steady) step's tgs");
        assertEquals(1.3463, metric(p, "step_time_s"), 1e-12, "Megatron's elapsed time wins over the engine's iter time");
        assertEquals(2.0, metric(p, "skipped_steps"), "the engine's cumulative skipped=2; the iteration lines say 0");
    }
}
