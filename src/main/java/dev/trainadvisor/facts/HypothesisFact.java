package dev.trainadvisor.facts;

import dev.trainadvisor.perf.FitHypothesis;

/**
 * One hypothesis the fit weighed (perf.Fit): nothing wrong, one quantity far off, or several.
 *
 * @param posterior its probability given the run's times
 * @param chosen    whether it is the fit's choice (highest posterior)
 * @param rival     whether the times cannot tell it from the chosen one (Bayes factor under Fit.AMBIGUOUS_BAYES_FACTOR)
 * @param fitted    under it, the fitted value of the quantity it frees (NaN for NOMINAL and SEVERAL)
 * @param expected  that quantity's expected value
 * @param dataCost  how far its best fit misses the run's times (the observations' sum of squared whitened residuals)
 */
public record HypothesisFact(FitHypothesis hypothesis, double posterior, boolean chosen, boolean rival, double fitted,
                             double expected, double dataCost) {

    /** Whether it is a fault hypothesis whose fitted value is below {@code m}'s fault ratio of the expected value. */
    public boolean faulty(Materiality m) {
        return hypothesis.param() != null && fitted < m.faultRatio(hypothesis.param()) * expected;
    }
}
