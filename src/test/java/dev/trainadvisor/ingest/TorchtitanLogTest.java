package dev.trainadvisor.ingest;

import org.junit.jupiter.api.Test;

import static dev.trainadvisor.ingest.Samples.metric;
import static org.junit.jupiter.api.Assertions.*;

/** torchtitan samples, values read by hand; old wps format, colours and per-rank duplicates. */
class TorchtitanLogTest {
    final TorchtitanLog parser = new TorchtitanLog();
    static final double GIB = 1.073741824;

    @Test
    void torchtitan1WithTflopsAndNonMetricLines() {
        ParsedLog p = Samples.parse(parser, "torchtitan-1.log");
        // steps 200, 210, ..., 250 (n=6): the log begins at step 200, past 10 logging intervals (10 x 10): an excerpt
        // of a run under way, no warm-up by iteration number. Pace = tps; step 200: 5856 against the median of the 5
        // after it (5593, 5868, 5869, 5864, 5862 -> 5864) is 0.14% off: settled, kept. All 6 steady.
        assertEquals(6, p.steps());
        assertEquals(6, p.steadySteps());
        assertEquals(0, p.history().warmupSteps());
        // tps sorted: 5593, 5856, 5862, 5864, 5868, 5869 -> (5862 + 5864) / 2 (thousands separators read)
        assertEquals(5863.0, metric(p, "tokens_per_gpu_per_s"));
        // tflops sorted: 323.92, 339.16, 339.48, 339.59, 339.82, 339.88 -> (339.48 + 339.59) / 2
        assertEquals(339.535, metric(p, "tflops_per_gpu"), 1e-9);
        assertEquals("torchtitan", p.tflopsConvention());
        // mfu sorted: 32.75%, 34.29%, 34.33%, 34.34%, 34.36%, 34.37% -> 34.335% -> 0.34335
        assertEquals(0.34335, metric(p, "mfu"), 1e-12);
        // memory: 49.66GiB(52.28%) -> 49.66 x 1.073741824 GB
        assertEquals(49.66 * GIB, metric(p, "peak_memory_gb"), 1e-9);
        assertEquals(250.0, metric(p, "steps"));
        assertFalse(p.metrics().containsKey("step_time_s"), "torchtitan prints no step time");
    }

    @Test
    void torchtitan2WithGradNorm() {
        ParsedLog p = Samples.parse(parser, "torchtitan-2.log");
        // steps 14..21 (n=8): begins at step 14, past 10 intervals of 1: no warm-up by number; step 14: 7282 against
        // the median of 15..19 (7334, 7313, 7282, 7322, 7309 -> 7313) is 0.4% off: kept. All 8 steady.
        assertEquals(8, p.steps());
        assertEquals(8, p.steadySteps());
        // tps sorted: 7272, 7282, 7282, 7304, 7309, 7313, 7322, 7334 -> (7304 + 7309) / 2
        assertEquals(7306.5, metric(p, "tokens_per_gpu_per_s"));
        // tflops: 0.52 seven times, 0.53 once -> 0.52
        assertEquals(0.52, metric(p, "tflops_per_gpu"), 1e-12);
        assertEquals(0.0017, metric(p, "mfu"), 1e-12, "mfu: 0.17%");
        assertEquals(9.46 * GIB, metric(p, "peak_memory_gb"), 1e-9);
        assertEquals(21.0, metric(p, "steps"));
    }

    // Lines built from the formats of log-formats.md section 4.1; numbers made up.

    @Test
    void oldWpsFormatColoursAndRankDuplicates() {
        String red = "\u001B[31m", green = "\u001B[32m", reset = "\u001B[39m";
        StringBuilder log = new StringBuilder();
        for (int step = 1; step <= 4; step++) {
            for (int rank = 0; rank < 2; rank++) {
                log.append("[titan] 2024-10-01 10:00:0").append(step).append(",000 - root - INFO - ")
                        .append(red).append("step: ").append(step).append("  ").append(green)
                        .append("loss:  7.1234  memory: 30.00GiB(40.00%)  wps: ").append(rank == 0 ? "10,050" : "10,090")
                        .append("  mfu: 40.00%").append(reset).append('\n');
            }
        }
        log.append("[titan] step: 5  loss:  7.0  memory: 31.00GiB(41.00%)  tps: 12,000  tflops: 1,234.56  mfu: N/A\n");
        ParsedLog p = parser.parse(log.toString());
        assertEquals(5, p.steps(), "rank 1's duplicates merged");
        assertEquals(10050.0, metric(p, "tokens_per_gpu_per_s"), "rank 0's values (printed first) kept");
        assertEquals(0.40, metric(p, "mfu"), 1e-12, "N/A is skipped");
        assertEquals(1234.56, metric(p, "tflops_per_gpu"), 1e-9, "only step 5 has tflops");
        assertEquals(31.0 * GIB, metric(p, "peak_memory_gb"), 1e-9);
    }
}
