package dev.trainadvisor.perf;

/**
 * Memory one GPU holds at its peak, in GB (1e9 bytes, as the ZeRO paper and datasheets count).
 */
public record MemoryEstimate(double weightsGb, double gradientsGb, double optimizerGb, double activationsGb,
                             double logitsGb, double buffersGb, double capacityGb) {

    public double totalGb() { return weightsGb + gradientsGb + optimizerGb + activationsGb + logitsGb + buffersGb; }

    public double headroomGb() { return capacityGb - totalGb(); }
}
