package dev.trainadvisor.facts;

/** Predicted peak memory per GPU, GB. */
public record MemoryFact(double totalGb, double capacityGb, double weightsGb, double gradientsGb, double optimizerGb,
                         double activationsGb, double logitsGb, double buffersGb) {

    public double headroomGb() { return capacityGb - totalGb; }

    /** The share of the GPU's memory the step holds. */
    public double usedShare() { return totalGb / capacityGb; }
}
