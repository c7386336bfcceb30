package dev.trainadvisor.facts;

/**
 * Observed against predicted. Throughput ratios (tokens per GPU per second): below 1 the run is slower than the
 * model says it should be.
 *
 * @param observedOverPredicted observed over the catalogue prediction: what the run does against what it should
 * @param observedOverFitted    observed over the fitted step (1 when nothing was fitted and the two are the same)
 */
public record GapFact(double observedOverPredicted, double observedOverFitted, double observedStepS,
                      double predictedStepS, double fittedStepS) {

    /** Seconds of the observed step the catalogue prediction does not account for. */
    public double unexplainedS() { return observedStepS - predictedStepS; }
}
