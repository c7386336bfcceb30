package dev.trainadvisor.facts;

import dev.trainadvisor.perf.FitParam;

/**
 * A quantity the fit to the run's times estimated (perf.Fit), under the hypothesis it chose, against what the model
 * expected.
 *
 * @param low, high             one posterior standard deviation either side of {@code fitted}
 * @param constrained           whether the measurements, not the prior, fixed the value
 * @param shiftInNominalSigmas  how far it moved, in the quantity's ordinary spread
 * @param priorSource           where the expected value comes from (e.g. "catalogue PCIe4")
 * @param costSeconds           how much longer the fitted step is than it would be with this one quantity at its
 *                              expected value (0 for one that does not slow the step)
 */
public record FittedParameterFact(FitParam param, double expected, double fitted, double low, double high,
                                  boolean constrained, double shiftInNominalSigmas, String priorSource,
                                  double costSeconds) {

    public String unit() { return param.unit; }

    public double ratio() { return fitted / expected; }
}
