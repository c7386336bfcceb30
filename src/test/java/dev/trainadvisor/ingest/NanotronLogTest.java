package dev.trainadvisor.ingest;

import org.junit.jupiter.api.Test;

import static dev.trainadvisor.ingest.Samples.metric;
import static org.junit.jupiter.api.Assertions.*;

/** nanotron samples, values read by hand; the 2025 format. */
class NanotronLogTest {
    final NanotronLog parser = new NanotronLog();

    @Test
    void nanotron1HumanFormat() {
        ParsedLog p = Samples.parse(parser, "nanotron-1.log");
        // iterations 991, 992, 993 (n=3): drop 991; steady 992, 993
        assertEquals(3, p.steps());
        assertEquals(2, p.steadySteps());
        // elapsed_time_per_iteration_ms: 41.2, 39.4 -> 40.3 ms
        assertEquals(0.0403, metric(p, "step_time_s"), 1e-12);
        // tokens_per_sec_per_gpu: 1.94K, 2.03K -> 1940, 2030 -> 1985
        assertEquals(1985.0, metric(p, "tokens_per_gpu_per_s"), 1e-9);
        // model_tflops_per_gpu: 0.0095, 0.00992 -> 0.00971
        assertEquals(0.00971, metric(p, "tflops_per_gpu"), 1e-12);
        assertEquals("megatron-legacy", p.tflopsConvention(), "GQA-aware, full s^2, x3, no recompute");
        // cuda_max_memory_reserved: 547M bytes (line of iteration 991) -> 0.547 GB
        assertEquals(0.547, metric(p, "peak_memory_gb"), 1e-12);
        assertEquals(993.0, metric(p, "steps"));
        assertEquals(20.0, p.extra().get("global_batch_size"));
        // tokens_per_sec: 15.5K, 16.2K -> 15850 (all GPUs)
        assertEquals(15850.0, (Double) p.extra().get("tokens_per_s"), 1e-9);
        assertEquals((0.00951 + 0.00992) / 2, (Double) p.extra().get("hardware_tflops_per_gpu"), 1e-12);
    }

    @Test
    void format2025WithDimColoursAndBillions() {
        // built from the format of docs/logs.md (nanotron) (time_per_iteration_ms, B suffix, dim ANSI codes)
        String dim = "\u001B[2m", reset = "\u001B[0m";
        StringBuilder log = new StringBuilder();
        double[] ms = {12000, 2010, 1990, 2000};
        for (int i = 0; i < ms.length; i++) {
            log.append(dim).append("05/01 10:00:0").append(i).append(" [INFO|DP=0|TP=0]: ").append(reset)
                    .append("iteration: ").append(i + 1).append(" / 100 | consumed_tokens: 1.05B | time_per_iteration_ms: ")
                    .append(ms[i] >= 10000 ? "12K" : String.valueOf(ms[i] / 1000) + "K")
                    .append(" | tokens_per_sec: 524K | tokens_per_sec_per_gpu: 65.5K | global_batch_size: 256 | lm_loss: 3.2")
                    .append(" | lr: 0.0003 | model_tflops_per_gpu: 412 | eta: 0:10:00 | grad_norm: 0.25\n");
        }
        ParsedLog p = parser.parse(log.toString());
        assertEquals(4, p.steps());
        // steps 2..4: 2.01K, 1.99K, 2K ms -> 2000 ms
        assertEquals(2.0, metric(p, "step_time_s"), 1e-12);
        assertEquals(65500.0, metric(p, "tokens_per_gpu_per_s"), 1e-9);
        assertEquals(412.0, metric(p, "tflops_per_gpu"), 1e-9);
    }
}
