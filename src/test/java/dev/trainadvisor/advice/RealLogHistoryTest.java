package dev.trainadvisor.advice;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.ingest.LogFormats;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Published logs (src/test/resources/logs/history, sources in SOURCES.md) through the whole advice: the cause their
 * history shows, with its period or its start, the numbers read off the log lines by hand. The run file is the NVLink
 * example's (a healthy run against the model), so that only the history speaks.
 */
class RealLogHistoryTest {
    static final Path DIR = Path.of("src", "test", "resources", "logs", "history");

    static Advice advise(Path log) {
        RunSpec s = new SpecReader().read(Path.of("examples", "internlm-7b-nvlink-1node.yaml"));
        return TrainAdvisor.advise(s.withHistory(LogFormats.read(log).history()));
    }

    static Diagnosis diagnosis(Advice a, String id) {
        return a.diagnoses().stream().filter(d -> d.id().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + id + ": " + a.diagnoses().stream().map(Diagnosis::id).toList()));
    }

    static boolean has(Advice a, String id) { return a.diagnoses().stream().anyMatch(d -> d.id().equals(id)); }

    static double evidence(Diagnosis d, String name) {
        return d.evidence().stream().filter(e -> e.name().equals(name)).findFirst().orElseThrow().value();
    }

    /**
     * Megatron-Core, 56 ranks, a checkpoint every 10 iterations. The save is not in the iteration's time; the gaps
     * between the timestamps of iterations 10-11, 20-21, ... 50-51 are 22.0011, 3.1924, 3.0083, 3.1342 and 3.1527 s
     * against a median of 1.469 s: period 10 from step 11, 34.489 - 5 x 1.469 = 27.14 s of stalls.
     */
    @Test
    void checkpointSavesEveryTenIterationsFromTheTimestamps() {
        Diagnosis d = diagnosis(advise(DIR.resolve("megatron-ckpt-every10-gdn-56rank.log")), "periodic-stall");
        assertEquals(10, evidence(d, "period_steps"));
        assertEquals(11, evidence(d, "first_spike_step"));
        assertEquals(5, evidence(d, "spikes"));
        // the log's 'saving checkpoint at iteration 10' (20, ... 50) comes right before each: the saves, named
        assertEquals(5, evidence(d, "spikes_said"));
        assertTrue(d.explanation().contains("they are the checkpoint saves"), d.explanation());
        double median = evidence(d, "median_step_s");
        assertEquals(1.469, median, 0.002);
        assertEquals(22.0011 + 3.1924 + 3.0083 + 3.1342 + 3.1527 - 5 * median, evidence(d, "stall_seconds"), 0.01);
        assertTrue(d.explanation().contains("timestamps"), d.explanation());
    }

    /**
     * Megatron-DeepSpeed 125M on 8 GPUs, logged every 10 iterations, evaluating every 100: the records of iterations
     * 110, 210, 310 and 410 read 1016.1, 961.3, 920.6 and 984.3 ms per iteration against 538.7 ms: period 100.
     */
    @Test
    void evaluationEveryHundredIterationsInMegatronDeepSpeed() {
        Advice a = advise(DIR.resolve("megatron-deepspeed-eval100-125m-8gpu.log"));
        Diagnosis d = diagnosis(a, "periodic-stall");
        assertEquals(100, evidence(d, "period_steps"));
        assertEquals(110, evidence(d, "first_spike_step"));
        assertEquals(4, evidence(d, "spikes"));
        assertTrue(a.recommendations().stream().anyMatch(r -> r.id().equals("async-checkpoint")));
    }

    /**
     * 16 GPUs at default clocks: evaluations every 100 iterations (101, 201, 301, 401 at 66.7, 69.0, 59.2, 64.9 s
     * against 18.2 s), and a pace that sinks as the node's power falls. Medians of 49 iterations (a tenth of the
     * steady ones, evaluations left out), computed from the log's lines apart from this code: the fastest window
     * starts at iteration 271 (16.716 s), the slowest at 452 (18.705 s), 11.9% slower; half-way, 17.710 s, is first
     * reached by the window from 348, centred on iteration 372. The same job with clocks locked at 1200 MHz keeps its
     * evaluations and loses the slowdown.
     */
    @Test
    void clockDriftSlowsTheRunAndLockedClocksDoNot() {
        Advice drift = advise(DIR.resolve("megatron-deepspeed-eval100-clock-drift-16gpu.log"));
        assertEquals(100, evidence(diagnosis(drift, "periodic-stall"), "period_steps"));
        Diagnosis slow = diagnosis(drift, "slowdown-over-time");
        assertEquals(372, evidence(slow, "start_step"));
        assertEquals(16.7158, evidence(slow, "before_s"), 1e-3);
        assertEquals(18.7046, evidence(slow, "after_s"), 1e-3);
        assertTrue(drift.recommendations().stream().anyMatch(r -> r.id().equals("restore-pace")));

        Advice locked = advise(DIR.resolve("megatron-deepspeed-eval100-locked-clock-16gpu.log"));
        assertEquals(100, evidence(diagnosis(locked, "periodic-stall"), "period_steps"));
        assertFalse(has(locked, "slowdown-over-time"));
        assertFalse(has(locked, "step-jitter"));
    }

    /**
     * Megatron-Core, 56 ranks: iteration 1798's batch-generator takes 9490.53 ms on its slowest rank (and 1799's
     * 872.92 ms) in 31 iterations of about 1.39 s: about a fifth of the time, a data-loader stall.
     */
    @Test
    void aDataLoaderBurstInTheBatchGeneratorTimer() {
        for (String f : List.of("megatron-dataloader-stall-56rank.log", "megatron-dataloader-stall-32rank.log")) {
            Diagnosis d = diagnosis(advise(DIR.resolve(f)), "data-loader-stall");
            // (9.4905 + 0.8729) s over 31 x 1.39 s + 9.4 s: 0.18 at the least
            assertTrue(d.impactFraction() > 0.18 && d.impactFraction() < 0.22, f + ": " + d.impactFraction());
        }
    }

    /** The case: resumed at iteration 122, 88 s per iteration, then 125-126 s from iteration 127. */
    @Test
    void theResumedLogWhosePaceChanges() {
        Diagnosis d = diagnosis(advise(Path.of("src", "test", "resources", "logs", "megatron-resumed-pace-change.log")),
                "slowdown-over-time");
        assertEquals(127, evidence(d, "start_step"));
        assertEquals(88, evidence(d, "before_s"), 0.5);
        assertEquals(125.5, evidence(d, "after_s"), 0.5);
    }

    /** A healthy stretch of the same Megatron-Core job (garbage collection once in 31 iterations): no period, no cause. */
    @Test
    void aSingleGarbageCollectionIsNoPeriod() {
        Advice a = advise(DIR.resolve("megatron-manual-gc-interval500.log"));
        for (String id : List.of("periodic-stall", "slowdown-over-time", "step-jitter", "data-loader-stall", "straggler"))
            assertFalse(has(a, id), id);
    }
}
