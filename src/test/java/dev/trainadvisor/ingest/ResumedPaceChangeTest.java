package dev.trainadvisor.ingest;

import dev.trainadvisor.history.StepHistory;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static dev.trainadvisor.ingest.Samples.metric;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Issue 12's case: a Megatron log resumed at iteration 122 whose pace changes from about 88 s to about 126 s per
 * iteration. The old warm-up rule (drop 10%, then every leading step more than 5% off the second half's median)
 * dropped iterations 122-125 as warm-up and reported 125.5 s steady, silently. Now: no warm-up by iteration number
 * (the log does not begin at the start of training), no warm-up by pace (each of 122-125 is within 5% of the steps
 * after it), the steady median covers all ten steps, a warning says the pace changed, and the history shows each
 * step, its timers and when it was printed. The log (src/test/resources/logs/megatron-resumed-pace-change.log) is
 * built from megatron-1.log's line format; its header says what is made up.
 */
class ResumedPaceChangeTest {
    static final Path LOG = Samples.resource("megatron-resumed-pace-change.log");

    /** elapsed time per iteration (ms) of iterations 122..131, as printed. */
    static final double[] MS = {88213.4, 87950.2, 88104.7, 88391.0, 125912.3, 125088.6, 126240.9, 125301.5, 125699.2,
            124873.4};

    @Test
    void noStepIsWarmUpAndTheMedianCoversBothPaces() {
        ParsedLog p = LogFormats.read(LOG);
        assertEquals("megatron", p.format());
        assertEquals(10, p.steps());
        assertEquals(10, p.steadySteps(), "iterations 122-125 are not warm-up: the log was resumed, not started");
        StepHistory h = p.history();
        assertEquals(0, h.warmupSteps());
        assertEquals("", h.warmupReason());
        // all ten sorted: 87950.2 88104.7 88213.4 88391.0 124873.4 | 125088.6 125301.5 125699.2 125912.3 126240.9
        // -> (124873.4 + 125088.6) / 2 = 124981.0 ms
        assertEquals(124.981, metric(p, "step_time_s"), 1e-9);
        assertEquals(131.0, metric(p, "steps"));
    }

    @Test
    void aWarningSaysThePaceChanged() {
        ParsedLog p = LogFormats.read(LOG);
        // steady halves: 122-126 (88213.4, 87950.2, 88104.7, 88391.0, 125912.3 -> median 88213.4 ms) and 127-131
        // (125088.6, 126240.9, 125301.5, 125699.2, 124873.4 -> median 125301.5 ms): +42%
        String w = p.warnings().stream().filter(s -> s.contains("pace changed")).findFirst().orElse(null);
        assertNotNull(w, p.warnings().toString());
        assertTrue(w.contains("step_time_s median 88.21 over steps 122-126, then 125.3 over steps 127-131 (+42%)"), w);
    }

    @Test
    void theHistoryShowsEachStep() {
        StepHistory h = LogFormats.read(LOG).history();
        assertEquals(10, h.size());
        assertEquals(1, h.stride());
        for (int i = 0; i < 10; i++) {
            assertEquals(122 + i, h.steps()[i]);
            assertEquals(MS[i] / 1000, h.stepTimeS()[i], 1e-12);
            assertEquals(0.0, h.skipped()[i], "number of skipped iterations: 0");
            assertEquals(1.0, h.lossScale()[i]);
        }
        // printed at 09:14:07, 09:15:35, 09:17:03, 09:18:31, 09:20:37, 09:22:42, 09:24:48, 09:26:53, 09:28:59, 09:31:04
        assertArrayEquals(new double[] {0, 88, 176, 264, 390, 515, 641, 766, 892, 1017}, h.timestampS(), 1e-9);
        assertEquals(2.134567, h.loss()[0], 1e-12, "lm loss: 2.134567E+00");
        assertEquals(2.120413, h.loss()[9], 1e-12);
        assertEquals(0.845, h.gradNorm()[0], 1e-12);
        assertEquals(2.999812E-04, h.learningRate()[0], 1e-18);
        assertEquals(2.999785E-04, h.learningRate()[9], 1e-18);
        // memory after 122 iterations: max reserved 58120.0 (rank 0) and 59004.0 MB (rank 8) -> the larger, 2^20 bytes
        assertEquals(59004.0 * 1048576 / 1e9, h.memoryGb()[0], 1e-9);
        assertTrue(Double.isNaN(h.memoryGb()[1]), "no memory line after 123");
        assertTrue(Double.isNaN(h.tokensPerGpuPerS()[0]), "no argument dump: seq length and world size unknown");
    }

    @Test
    void everyTimerIsKeptWithItsFastestAndSlowestRank() {
        StepHistory h = LogFormats.read(LOG).history();
        assertEquals(java.util.List.of("forward-backward", "batch-generator", "forward-recv", "backward-send",
                "all-grads-sync", "optimizer-copy-to-main-grad", "optimizer-inner-step", "optimizer"),
                h.timers().stream().map(StepHistory.RankTimer::name).toList());
        StepHistory.RankTimer bg = h.timer("batch-generator");
        // 122: (2.05, 3.10); 125: (2.05, 3.30); 126: (1.95, 37950.40): one rank waits 38 s for its batch
        assertEquals(0.00205, bg.minS()[0], 1e-12);
        assertEquals(0.00310, bg.maxS()[0], 1e-12);
        assertEquals(0.00330, bg.maxS()[3], 1e-12);
        assertEquals(0.00195, bg.minS()[4], 1e-12);
        assertEquals(37.9504, bg.maxS()[4], 1e-12);
        StepHistory.RankTimer fb = h.timer("forward-backward");
        assertEquals(86.7821, fb.minS()[0], 1e-12, "(86782.10, 87042.40)");
        assertEquals(87.0424, fb.maxS()[0], 1e-12);
        assertEquals(124.7623, fb.maxS()[4], 1e-12, "(124502.00, 124762.30)");
    }

    @Test
    void theFileAndItsTextReadAlike() throws Exception {
        ParsedLog fromFile = LogFormats.read(LOG);
        ParsedLog fromText = LogFormats.detectAndParse(Files.readString(LOG), LOG.toString());
        assertEquals(fromFile.metrics(), fromText.metrics());
        assertEquals(fromFile.warnings(), fromText.warnings());
        assertArrayEquals(fromFile.history().stepTimeS(), fromText.history().stepTimeS());
        assertArrayEquals(fromFile.history().timestampS(), fromText.history().timestampS());
    }
}
