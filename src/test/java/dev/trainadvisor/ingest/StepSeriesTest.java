package dev.trainadvisor.ingest;

import dev.trainadvisor.history.StepHistory;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * StepSeries in bounded memory: past its row limit neighbouring steps merge (means; the slowest rank's timer keeps
 * its worst), and the warm-up rule by iteration number and learning rate. Small limits stand for StepHistory.MAX_ROWS.
 */
class StepSeriesTest {

    @Test
    void pastTheRowLimitNeighboursMerge() {
        StepSeries s = new StepSeries(8);
        for (int i = 1; i <= 100; i++) {
            s.put(i, "step_time_s", i);
            assertTrue(s.entries() <= 8, "never more rows than the limit: " + s.entries() + " at step " + i);
        }
        StepSeries.Summary sum = s.summarize();
        assertEquals(100, s.size(), "distinct steps are still counted");
        assertEquals(32, s.stride());
        assertArrayEquals(new long[] {1, 33, 65, 97}, s.steps());
        // means of 1..32, 33..64, 65..96 and 97..100: 16.5, 48.5, 80.5, 98.5
        assertArrayEquals(new double[] {16.5, 48.5, 80.5, 98.5}, s.values("step_time_s"), 1e-12);
        // n = 4 entries: d = 1, the log starts at step 1: the first entry (steps 1-32) is warm-up; then entry 33-64
        // (48.5) against the median of 80.5, 98.5 (89.5) is 46% off: pace settling, and that is half: 2 dropped
        assertEquals(List.of(65L, 97L), sum.steady());
        assertEquals(36, sum.steadySteps(), "steps 65-100");
        assertEquals((80.5 + 98.5) / 2, sum.medians().get("step_time_s"), 1e-12);
        StepHistory h = s.history(sum);
        assertEquals(4, h.size());
        assertEquals(32, h.stride());
        assertEquals(2, h.warmupSteps());
        assertEquals("pace settling", h.warmupReason());
    }

    @Test
    void mergedTimersKeepTheSlowestRanksWorstAndTheFastestRanksMean() {
        StepSeries s = new StepSeries(4);
        for (int i = 1; i <= 8; i++) s.timer(i, "forward-backward", i, 10.0 * i);
        StepHistory h = s.history(s.summarize());
        // 8 steps in 4 rows: merged at 4 (1-2, 3-4), again at 6 into stride 4: 1-4, 5-8
        assertArrayEquals(new long[] {1, 5}, h.steps());
        StepHistory.RankTimer t = h.timer("forward-backward");
        assertArrayEquals(new double[] {2.5, 6.5}, t.minS(), 1e-12, "fastest rank: means of 1..4 and 5..8");
        assertArrayEquals(new double[] {40, 80}, t.maxS(), 1e-12, "slowest rank: the worst of each");
    }

    @Test
    void aColumnAveragesOnlyTheStepsThatHaveIt() {
        StepSeries s = new StepSeries(4);
        for (int i = 1; i <= 8; i++) {
            s.put(i, "step_time_s", 1);
            if (i == 1) {
                s.putMax(1, StepSeries.MEMORY, 10);
                s.putMax(1, StepSeries.MEMORY, 12);   // another rank, larger: the step keeps 12
            }
            if (i == 3) s.putMax(3, StepSeries.MEMORY, 20);
        }
        StepHistory h = s.history(s.summarize());
        // entry 1-4: memory of steps 1 (12) and 3 (20) -> 16, not diluted by steps 2 and 4 that print none
        assertEquals(16.0, h.memoryGb()[0], 1e-12);
        assertTrue(Double.isNaN(h.memoryGb()[1]));
    }

    @Test
    void aStepPrintedAgainInsideAMergedEntryIsADuplicate() {
        StepSeries s = new StepSeries(4);
        for (int i = 1; i <= 8; i++) s.put(i, "step_time_s", i);
        assertTrue(s.has(2));
        assertTrue(s.firstTime(9, "\u0000mark"));
        assertFalse(s.firstTime(2, "\u0000mark"), "step 2 is inside the merged entry 1-4: seen");
        s.put(2, "step_time_s", 1000);                // a restart re-prints step 2: the first values stay
        assertEquals(9, s.size());
        assertEquals(2.5, s.values("step_time_s")[0], 1e-12, "mean of 1..4 unchanged");
    }

    @Test
    void stepsOutOfOrderAreSortedWhenMerged() {
        StepSeries s = new StepSeries(4);
        long[] order = {4, 2, 3, 1, 5};
        for (long k : order) s.put(k, "step_time_s", k);
        assertArrayEquals(new long[] {1, 3, 5}, s.steps());
        assertArrayEquals(new double[] {1.5, 3.5, 5}, s.values("step_time_s"), 1e-12);
    }

    @Test
    void aResumedLogHasNoWarmUpByIterationNumber() {
        StepSeries s = new StepSeries();
        for (int i = 0; i < 20; i++) s.put(500 + i, "step_time_s", 2.0);
        StepSeries.Summary sum = s.summarize();
        assertEquals(20, sum.steady().size(), "iteration 500 is not the start of training");
        assertEquals("", sum.warmupReason());
        // the same pace from iteration 1: the first 2 (10% of 20) are warm-up
        StepSeries fresh = new StepSeries();
        for (int i = 1; i <= 20; i++) fresh.put(i, "step_time_s", 2.0);
        StepSeries.Summary f = fresh.summarize();
        assertEquals(18, f.steady().size());
        assertEquals("iteration number", f.warmupReason());
    }

    @Test
    void stepsWhileTheLearningRateRisesAreWarmUp() {
        // iterations 1001..1040, lr rising for the first 12 (to 3e-4 at 1013), then decaying: 12 entries of warm-up
        StepSeries s = new StepSeries();
        for (int i = 0; i < 40; i++) {
            s.put(1001 + i, "step_time_s", 2.0);
            s.put(1001 + i, StepSeries.LR, i < 12 ? 3e-4 * (i + 1) / 13 : 3e-4 * (1 - (i - 12) * 1e-3));
        }
        StepSeries.Summary sum = s.summarize();
        assertEquals("learning-rate warm-up", sum.warmupReason());
        assertEquals(12, sum.warmupEntries());
        assertEquals(1013L, sum.steady().get(0), "the first step at the peak learning rate");
    }

    @Test
    void aLearningRateRisingToTheEndSaysNothing() {
        StepSeries s = new StepSeries();
        for (int i = 0; i < 20; i++) {
            s.put(300 + i, "step_time_s", 2.0);
            s.put(300 + i, StepSeries.LR, 1e-5 * (i + 1));
        }
        assertEquals(20, s.summarize().steady().size(), "the whole log is inside the schedule's warm-up: no cut");
    }

    @Test
    void aPrintedWarmUpLengthStandsForTheLearningRate() {
        StepSeries s = new StepSeries();
        for (int i = 1; i <= 40; i++) s.put(i, "tokens_per_gpu_per_s", 1000);
        s.lrWarmupEnd = 10;                           // torchtitan: "... total steps 40 (warmup 10)"
        StepSeries.Summary sum = s.summarize();
        assertEquals("learning-rate warm-up", sum.warmupReason());
        assertEquals(11L, sum.steady().get(0));
    }

    @Test
    void withoutStepNumbersTheFirstStepsAreWarmUp() {
        StepSeries s = new StepSeries();
        s.numbered = false;
        for (int i = 1; i <= 30; i++) s.put(i, "step_time_s", 1.0);
        StepSeries.Summary sum = s.summarize();
        assertEquals("first steps", sum.warmupReason());
        assertEquals(27, sum.steady().size(), "10% of 30");
    }

    @Test
    void historyOnlyColumnsMakeNoStepSteady() {
        StepSeries s = new StepSeries();
        s.put(1, StepSeries.SKIPPED, 1);              // a skip line: no metric
        for (int i = 2; i <= 12; i++) {
            s.put(i, "step_time_s", 1.0);
            s.put(i, StepSeries.LOSS, 3.0 - i * 0.01);
        }
        StepSeries.Summary sum = s.summarize();
        assertEquals(11, sum.valuedEntries());
        assertFalse(sum.medians().containsKey(StepSeries.LOSS), "no median of the loss");
        StepHistory h = s.history(sum);
        assertEquals(12, h.size(), "the skipped step is in the history");
        assertEquals(1.0, h.skipped()[0]);
        // n = 11 from step 2: d = 1; steps < 2 + 1 are warm-up: step 2; the history's warm-up is entries 1 and 2
        assertEquals(2, h.warmupSteps());
    }
}
