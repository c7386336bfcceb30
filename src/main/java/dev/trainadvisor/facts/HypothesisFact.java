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
 * @param departs   whether the quantity it frees moved beyond its ordinary spread towards a slower step
 * @param needed    for a run slower than the model's error allows, the value the quantity it frees would need, alone,
 *                  for the catalogue's step to take the observed one (perf.Fit#needed); NaN otherwise or out of reach
 */
public record HypothesisFact(FitHypothesis hypothesis, double posterior, boolean chosen, boolean rival, double fitted,
                             double expected, double dataCost, boolean departs, double needed) {

    public HypothesisFact(FitHypothesis hypothesis, double posterior, boolean chosen, boolean rival, double fitted,
                          double expected, double dataCost) {
        this(hypothesis, posterior, chosen, rival, fitted, expected, dataCost, false, Double.NaN);
    }

    /**
     * The probability of one quantity's fault: its own hypothesis' posterior (among {@code own}, HypothesisFact facts
     * of that quantity), never more than {@code marginal}, the probability summed over every hypothesis that frees it;
     * {@code marginal} where the fit weighed no hypothesis of its own.
     */
    public static double alone(java.util.Collection<?> own, double marginal) {
        for (Object o : own) if (o instanceof HypothesisFact h) return Math.min(h.posterior(), marginal);
        return marginal;
    }

    /**
     * How sure a cost computed on a fitted quantity is: the posterior of the chosen hypothesis among {@code chosen}
     * (HypothesisFact facts) when it moved the quantity beyond its ordinary spread, else 1: a cost on a link of known
     * bandwidth is certain.
     */
    public static double sureness(java.util.Collection<?> chosen) {
        for (Object o : chosen) if (o instanceof HypothesisFact h && h.chosen() && h.departs()) return h.posterior();
        return 1;
    }

    /** Whether it is a fault hypothesis whose fitted value is below {@code m}'s fault ratio of the expected value. */
    public boolean faulty(Materiality m) {
        return hypothesis.param() != null && fitted < m.faultRatio(hypothesis.param()) * expected;
    }
}
