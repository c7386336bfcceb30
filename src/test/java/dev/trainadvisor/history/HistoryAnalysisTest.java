package dev.trainadvisor.history;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** What a history shows, on series built by hand, with the numbers worked out here. */
class HistoryAnalysisTest {

    /** Steps 1..n at the given seconds, no timestamps, no warm-up. */
    static StepHistory steps(double[] seconds, List<StepHistory.RankTimer> timers, double[] loss) {
        int n = seconds.length;
        long[] st = new long[n];
        for (int i = 0; i < n; i++) st[i] = i + 1;
        double[] nan = StepHistory.absent(n);
        return new StepHistory(st, 1, seconds, nan, nan, loss == null ? nan : loss, nan, nan, nan, nan, new double[n], timers,
                0, "first steps");
    }

    static double[] constant(int n, double s) {
        double[] v = new double[n];
        Arrays.fill(v, s);
        return v;
    }

    /**
     * 100 steps of 10 s with a 40 s save at steps 20, 40, 60, 80 and 100: period 20; 5 spikes of 30 s beyond the
     * median, 150 s, of 95 x 10 + 5 x 40 = 1150 s: 13.04% of the wall time.
     */
    @Test
    void checkpointSpikesAtAPeriodAreFoundWithTheirCost() {
        double[] s = constant(100, 10);
        for (int step = 20; step <= 100; step += 20) s[step - 1] = 40;
        HistoryAnalysis.Stalls st = HistoryAnalysis.stalls(steps(s, List.of(), null));
        assertNotNull(st);
        assertEquals(20, st.period());
        assertEquals(List.of(20L, 40L, 60L, 80L, 100L), st.spikeSteps());
        assertEquals(10, st.medianS(), 1e-12);
        assertEquals(150, st.costS(), 1e-9);
        assertEquals(1150, st.wallS(), 1e-9);
        assertEquals(150 / 1150.0, st.share(), 1e-12);
    }

    /** A missed print between two saves (steps 20, 40, 80, 100: gaps 20, 20, 40, 20) keeps the period of 20. */
    @Test
    void aSpikeTheLogDidNotPrintKeepsThePeriod() {
        double[] s = constant(100, 10);
        for (int step : new int[]{20, 40, 80, 100}) s[step - 1] = 40;
        assertEquals(20, HistoryAnalysis.stalls(steps(s, List.of(), null)).period());
    }

    /** Spikes at 7, 30, 31 and 77: no period (gaps 23, 1, 46), so no stall; they are jitter if anything. */
    @Test
    void spikesWithoutAPeriodAreNotAStall() {
        double[] s = constant(100, 10);
        for (int step : new int[]{7, 30, 31, 77}) s[step - 1] = 40;
        assertNull(HistoryAnalysis.stalls(steps(s, List.of(), null)));
    }

    /** Even steps (10 s +- 1%) have no spike at all: the floor of a quarter of the median keeps a wobble a wobble. */
    @Test
    void evenStepsHaveNoSpikes() {
        double[] s = new double[60];
        for (int i = 0; i < 60; i++) s[i] = 10 + (i % 3 - 1) * 0.1;
        assertNull(HistoryAnalysis.stalls(steps(s, List.of(), null)));
    }

    /**
     * The case: 40 steps at 88 s, then 40 at 126 s. The change is found at step 41: 126 / 88 - 1 = 43.2%
     * slower.
     */
    @Test
    void aStepChangeOfPaceIsFoundWhereItStarts() {
        double[] s = new double[80];
        for (int i = 0; i < 80; i++) s[i] = i < 40 ? 88 + (i % 2) * 0.5 : 126 + (i % 2) * 0.5;
        HistoryAnalysis.PaceChange p = HistoryAnalysis.paceChange(steps(s, List.of(), null));
        assertEquals(41, p.startStep());
        assertEquals(88.25, p.beforeS(), 1e-9);
        assertEquals(126.25, p.afterS(), 1e-9);
        assertEquals(126.25 / 88.25 - 1, p.change(), 1e-12);
    }

    /** Timestamps see what the step timer misses: steps of 10 s with 60 s more between every 10th and the next. */
    @Test
    void timestampsShowStallsBetweenSteps() {
        int n = 50;
        long[] st = new long[n];
        double[] ts = new double[n], time = constant(n, 10), nan = StepHistory.absent(n);
        double t = 0;
        for (int i = 0; i < n; i++) {
            st[i] = i + 1;
            t += 10 + (i > 0 && st[i - 1] % 10 == 0 ? 60 : 0);
            ts[i] = t;
        }
        StepHistory h = new StepHistory(st, 1, time, nan, ts, nan, nan, nan, nan, nan, new double[n], List.of(), 0, "");
        HistoryAnalysis.Stalls s = HistoryAnalysis.stalls(h);
        assertEquals("timestamps", s.basis());
        // the entries after steps 10, 20, 30, 40 (steps 11, 21, 31, 41) took 70 s
        assertEquals(List.of(11L, 21L, 31L, 41L), s.spikeSteps());
        assertEquals(10, s.period());
        assertEquals(4 * 60, s.costS(), 1e-9);
    }

    /** A rank timer of (min, max) = (3.0, 3.6) s each step: the slowest 1.2x the fastest, 0.6 s apart. */
    @Test
    void rankSpreadOfATimer() {
        int n = 20;
        StepHistory.RankTimer fb = new StepHistory.RankTimer(StepHistory.FORWARD_BACKWARD, constant(n, 3.0), constant(n, 3.6));
        StepHistory h = steps(constant(n, 4), List.of(fb), null);
        HistoryAnalysis.RankSpread r = HistoryAnalysis.spread(h, StepHistory.FORWARD_BACKWARD);
        assertEquals(1.2, r.maxOverMin(), 1e-12);
        assertEquals(0.6, r.spreadS(), 1e-12);
        HistoryAnalysis.TimerShare share = HistoryAnalysis.share(h, StepHistory.FORWARD_BACKWARD);
        assertEquals(3.6 / 4, share.share(), 1e-12);
        assertNull(HistoryAnalysis.spread(h, StepHistory.BATCH_GENERATOR), "a timer the log does not print");
    }

    /**
     * Steady steps of 10 s scattered 9, 10, 11 (MAD 1 after the median 10): robust CV 1.4826 x 1 / 10 = 14.8%.
     */
    @Test
    void jitterIsTheRobustCoefficientOfVariation() {
        double[] s = new double[60];
        for (int i = 0; i < 60; i++) s[i] = 9 + i % 3;
        HistoryAnalysis.Jitter j = HistoryAnalysis.jitter(steps(s, List.of(), null));
        assertEquals(0.14826, j.robustCv(), 1e-9);
        assertEquals(1.1, j.p90OverMedian(), 1e-12);
    }

    /** A loss of 2.0 with a jump to 5.0 at step 30 and a NaN at step 50: one spike (2.5x), one non-finite step. */
    @Test
    void lossSpikesAndNonFiniteSteps() {
        double[] loss = constant(60, 2.0);
        loss[29] = 5.0;
        loss[49] = Double.NaN;
        double[] s = constant(60, 10);
        StepHistory h = steps(s, List.of(), loss);
        // a NaN in the loss column means "not printed" unless the step is marked skipped
        h.skipped()[49] = 1;
        HistoryAnalysis.LossEvents l = HistoryAnalysis.loss(h);
        assertEquals(1, l.spikes());
        assertEquals(1, l.nonFinite());
        assertEquals(30, l.firstStep());
        assertEquals(2.5, l.worstRatio(), 1e-12);
    }

    /**
     * A history at its full bound, 2^18 entries of 1 s (a 3 s save every 10th), 1.2 s from the middle on: the stalls
     * keep their period of 10, and the change is placed within one bin of 2^18 / 512 = 512 entries of step 131,073.
     */
    @Test
    void aFullLengthHistoryPlacesItsChangeWithinOneBin() {
        int n = StepHistory.MAX_ROWS;
        double[] s = new double[n];
        for (int i = 0; i < n; i++) s[i] = (i + 1) % 10 == 0 ? 3 : i >= n / 2 ? 1.2 : 1.0;
        HistoryAnalysis.Findings f = HistoryAnalysis.of(steps(s, List.of(), null));
        assertEquals(10, f.stalls().period());
        assertTrue(f.pace().startStep() >= n / 2 + 1 && f.pace().startStep() <= n / 2 + 1 + 512, "" + f.pace());
        assertEquals(0.2, f.pace().change(), 1e-9);
    }

    /**
     * A pace that ramps from 10 s to 12 s over steps 41-80 of 120 and stays there: the median before the middle of the
     * ramp is 10 s and after it 12 s, 20% slower, from the middle of the ramp (between steps 50 and 70).
     */
    @Test
    void aRampIsFoundAsTheSlowdownItAmountsTo() {
        double[] s = new double[120];
        for (int i = 0; i < 120; i++) s[i] = i < 40 ? 10 : i < 80 ? 10 + 2.0 * (i - 39) / 40 : 12;
        HistoryAnalysis.PaceChange p = HistoryAnalysis.paceChange(steps(s, List.of(), null));
        assertEquals(0.2, p.change(), 0.01);
        assertTrue(p.startStep() >= 50 && p.startStep() <= 70, "" + p);
    }
}
