package dev.trainadvisor.facts;

import dev.trainadvisor.spec.Precision;

/**
 * What the run's log says about steps that did not update the model.
 *
 * @param steps        optimizer steps observed
 * @param skippedSteps of those, skipped for overflow (fp16 loss scaling)
 * @param lossScale    the loss scale at the end, NaN if not logged
 */
public record StepHealthFact(double steps, double skippedSteps, double lossScale, Precision precision) {

    /** The share of the steps that were skipped. */
    public double skippedShare() { return steps > 0 ? skippedSteps / steps : 0; }
}
