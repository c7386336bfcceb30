package dev.trainadvisor.ingest;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The warm-up rule of StepSeries and the number reading of Num. */
class WarmupRuleTest {

    static StepSeries series(double... stepTimes) {
        StepSeries s = new StepSeries();
        for (int i = 0; i < stepTimes.length; i++) s.put(i + 1, "step_time_s", stepTimes[i]);
        return s;
    }

    @Test
    void dropsTenPercentAtLeastOneAtMostTen() {
        assertEquals(List.of(), series().summarize().steady());
        assertEquals(1, series(5).summarize().steady().size(), "a single step is kept");
        assertEquals(List.of(2L), series(9, 1).summarize().steady());
        double[] flat = new double[35];
        java.util.Arrays.fill(flat, 1.0);
        assertEquals(32, series(flat).summarize().steady().size(), "35 steps: drop floor(3.5) = 3");
        double[] many = new double[500];
        java.util.Arrays.fill(many, 1.0);
        assertEquals(490, series(many).summarize().steady().size(), "at most 10");
    }

    @Test
    void dropsLeadingStepsUntilThePaceSettles() {
        // 10 steps: drop 1; second half (steps 6..10) median 1.0; steps 2, 3 are >5% off, step 4 is within
        StepSeries s = series(30, 3, 1.2, 1.04, 1, 1, 1, 1, 1, 1);
        assertEquals(List.of(4L, 5L, 6L, 7L, 8L, 9L, 10L), s.summarize().steady());
        // five steps at 5 s then five at 1 s: a change of pace, not a warm-up (each step is within 5% of the ones
        // after it): only the first step goes (by iteration number), and a warning says the pace changed: the
        // steady halves are steps 2-5 (5 s) and 6-10 (1 s), -80%
        StepSeries slow = series(5, 5, 5, 5, 5, 1, 1, 1, 1, 1);
        StepSeries.Summary s2 = slow.summarize();
        assertEquals(9, s2.steady().size());
        assertTrue(s2.warnings().stream().anyMatch(w -> w.contains("pace changed") && w.contains("median 5 over steps 2-5")
                && w.contains("then 1 over steps 6-10") && w.contains("-80%")), s2.warnings().toString());
    }

    @Test
    void medianAndDuplicates() {
        StepSeries s = new StepSeries();
        s.put(1, "step_time_s", 10);
        s.put(2, "step_time_s", 2);
        s.put(2, "step_time_s", 99);          // the same step from another rank: the first value wins
        s.put(3, "step_time_s", 4);
        s.put(3, "tokens_per_gpu_per_s", Double.NaN);
        StepSeries.Summary sum = s.summarize();
        assertEquals(3.0, sum.medians().get("step_time_s"));
        assertFalse(sum.medians().containsKey("tokens_per_gpu_per_s"));
    }

    @Test
    void numbers() {
        assertEquals(5856.0, Num.parse("5,856"));
        assertEquals(1234.56, Num.parse("1,234.56"));
        assertEquals(2219.0, Num.parse("'2219'"));
        assertEquals(34.29, Num.parse("34.29%"));
        assertTrue(Double.isNaN(Num.parse("nan")));
        assertTrue(Double.isNaN(Num.parse("1,2,")));
        assertTrue(Double.isNaN(Num.parse("0x10")));
        assertTrue(Double.isNaN(Num.parse("1d")));
        assertEquals(14200.0, Num.human("14.2K"), 1e-9);
        assertEquals(547e6, Num.human("547M"), 1e-3);
        assertEquals(85.8e9, Num.human("85.8G"), 1);
        assertEquals(1.2e9, Num.human("1.2B"), 1);
        assertEquals(0.00869, Num.human("0.00869"));
        assertEquals(0.07667, Num.withUnit("76.67 ms"), 1e-12);
        assertEquals(34.09e-6, Num.withUnit("34.09 us"), 1e-15);
        assertEquals(81.9e12, Num.withUnit("81.9 TFLOPS"), 1);
        assertEquals(336.23e6, Num.withUnit("336.23 M"), 1e-3);
        assertEquals(3139.93e9, Num.withUnit("3139.93 GMACs"), 1);
        assertEquals(100.0, Num.withUnit("100 MACs"));
        assertEquals(65.8, Num.duration("0:01:05.80"), 1e-12);
        assertTrue(Double.isNaN(Num.parse("9".repeat(100))), "no number is that long");
        // Python's 17-digit reprs (InternEvo's loss and lr), read in place within one unit in the last place
        for (String x : new String[] {"11.634403228759766", "4.0000000000000003e-07", "63.672620777841004", "0.1"}) {
            double exact = Double.parseDouble(x);
            assertEquals(exact, Num.approx(x, 0, x.length()), Math.ulp(exact), x);
        }
        assertEquals(5856.0, Num.approx("5,856", 0, 5), "not plain: read as parse reads it");
    }
}
