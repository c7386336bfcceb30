package dev.trainadvisor.facts;

import dev.trainadvisor.perf.FitParam;

/**
 * A derived fact (rules/faults.drl inserts it logically): one quantity of the run is far from what it should be,
 * because the fit chose the fault hypothesis for it, or because the run measured it (a link's nccl-tests bus
 * bandwidth) far below the catalogue.
 *
 * @param posterior the fit's probability for the fault (1 for a measurement)
 * @param measured  whether the run measured the quantity rather than the fit inferring it
 */
public record Fault(FitParam param, double fitted, double expected, double posterior, boolean measured) {

    public double ratio() { return fitted / expected; }
}
