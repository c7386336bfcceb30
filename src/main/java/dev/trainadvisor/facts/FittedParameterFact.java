package dev.trainadvisor.facts;

import dev.trainadvisor.perf.FitParam;

import java.util.List;

/**
 * A quantity the fit to the run's times estimated (perf.Fit), against what the model expected.
 *
 * @param fitted                under the hypothesis the fit chose
 * @param low                   one posterior standard deviation below {@code fitted}, and {@code high} above
 * @param constrained           whether the measurements, not the prior, fixed the value
 * @param shiftInNominalSigmas  how far it moved, in the quantity's ordinary spread
 * @param priorSource           where the expected value comes from (e.g. "catalogue PCIe4")
 * @param costSeconds           how much longer the fitted step is than it would be with this one quantity at its
 *                              expected value (0 for one that does not slow the step)
 * @param mixture               the quantity's posterior under the hypotheses that let it move beyond its ordinary spread
 *                              (its own fault, several at once): each a weight (the hypothesis' probability) and a normal
 *                              distribution in the fit's coordinate
 */
public record FittedParameterFact(FitParam param, double expected, double fitted, double low, double high,
                                  boolean constrained, double shiftInNominalSigmas, String priorSource,
                                  double costSeconds, List<Component> mixture) {

    public FittedParameterFact {
        mixture = List.copyOf(mixture);
    }

    /** One hypothesis' posterior of the quantity: weight, and mean and sigma in the fit's coordinate. */
    public record Component(double weight, double mean, double sigma) {}

    public String unit() { return param.unit; }

    public double ratio() { return fitted / expected; }

    /**
     * The probability, given the run's times, that the quantity is faulty and below {@code ratio} times its expected
     * value: the posterior mixture over the hypotheses that let it be (each normal in log space, log-odds for the
     * overlap). Under the others the quantity is within its ordinary spread, so they add nothing.
     */
    public double probabilityBelow(double ratio) {
        double x = coordinate(param, ratio * expected);
        double p = 0;
        for (Component c : mixture) p += c.weight() * phi((x - c.mean()) / Math.max(c.sigma(), 1e-9));
        return Math.min(1, Math.max(0, p));
    }

    /** The fit's coordinate of a value: natural log, or log-odds for the overlap fraction. */
    public static double coordinate(FitParam p, double value) {
        if (p != FitParam.OVERLAP_FRACTION) return Math.log(value);
        double f = Math.min(1 - 1e-9, Math.max(1e-9, value));
        return Math.log(f / (1 - f));
    }

    /** The standard normal distribution function (Abramowitz and Stegun 26.2.17, error under 7.5e-8). */
    static double phi(double z) {
        if (z < -8) return 0;
        if (z > 8) return 1;
        double t = 1 / (1 + 0.2316419 * Math.abs(z));
        double d = 0.3989422804014327 * Math.exp(-z * z / 2);
        double q = d * t * (0.319381530 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))));
        return z > 0 ? 1 - q : q;
    }
}
