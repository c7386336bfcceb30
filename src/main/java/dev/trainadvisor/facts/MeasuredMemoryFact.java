package dev.trainadvisor.facts;

/** The memory the run reports using (its log's peak, or the run file's metrics.peak_memory_gb) against the GPU's. */
public record MeasuredMemoryFact(double peakGb, double capacityGb) {
    /** The share of the GPU's memory left free at the peak. */
    public double freeShare() { return 1 - peakGb / capacityGb; }
}
