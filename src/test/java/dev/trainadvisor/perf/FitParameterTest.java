package dev.trainadvisor.perf;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What the reports say set a fitted value (issue 11: "set by: the prior" beside a value that moved 1 -> 1.17). */
class FitParameterTest {

    static FitParameter compute(double fitted, boolean constrained) {
        // the compute scale's prior: 9.7% in log terms (the model's own error on the tune rows)
        return new FitParameter(FitParam.COMPUTE_SCALE, 1, fitted, fitted * 0.92, fitted * 1.08, 0.097, 0.097, 0.08,
                constrained, "default efficiency");
    }

    @Test
    void aValueTheTimesMovedIsNotSetByThePriorAlone() {
        // ln 1.17 = 0.157 and ln 1.07 = 0.068, both at least half the 0.097 prior sigma (0.0485): the times moved them
        assertEquals(FitParameter.SetBy.MEASUREMENTS_AND_PRIOR, compute(1.17, false).setBy());
        assertEquals(FitParameter.SetBy.MEASUREMENTS_AND_PRIOR, compute(1.07, false).setBy());
        // ln 1.02 = 0.0198 is under it: the prior kept it where it was
        assertEquals(FitParameter.SetBy.PRIOR, compute(1.02, false).setBy());
        // a posterior well inside the prior: the measurements alone
        assertEquals(FitParameter.SetBy.MEASUREMENTS, compute(1.02, true).setBy());
    }

    @Test
    void theOverlapIsMeasuredInLogOdds() {
        // logit 0.815 - logit 0.8 = 1.4834 - 1.3863 = 0.097: under half a 0.5 prior sigma (0.25)
        FitParameter overlap = new FitParameter(FitParam.OVERLAP_FRACTION, 0.8, 0.815, 0.68, 0.9, 0.5, 0.5, 0.45, false, "x");
        assertEquals(FitParameter.SetBy.PRIOR, overlap.setBy());
        // logit 0.9 - logit 0.8 = 2.1972 - 1.3863 = 0.811: moved
        FitParameter moved = new FitParameter(FitParam.OVERLAP_FRACTION, 0.8, 0.9, 0.8, 0.95, 0.5, 0.5, 0.45, false, "x");
        assertEquals(FitParameter.SetBy.MEASUREMENTS_AND_PRIOR, moved.setBy());
    }
}
