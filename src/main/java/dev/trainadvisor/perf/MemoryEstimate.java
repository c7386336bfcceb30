package dev.trainadvisor.perf;

import java.util.List;

/**
 * Memory one GPU holds at its peak, in GB (1e9 bytes, as the ZeRO paper and datasheets count): the
 * pipeline stage that needs the most, with every stage listed.
 */
public record MemoryEstimate(double weightsGb, double gradientsGb, double optimizerGb, double activationsGb,
                             double logitsGb, double buffersGb, double capacityGb, List<Stage> stages) {

    /** One pipeline stage's peak. The first stage holds the embedding and the most micro-batches in flight, the last the output head and the logits. */
    public record Stage(int stage, double weightsGb, double gradientsGb, double optimizerGb, double activationsGb,
                        double logitsGb, double buffersGb) {
        public double totalGb() { return weightsGb + gradientsGb + optimizerGb + activationsGb + logitsGb + buffersGb; }
    }

    public MemoryEstimate {
        stages = List.copyOf(stages);
    }

    public double totalGb() { return weightsGb + gradientsGb + optimizerGb + activationsGb + logitsGb + buffersGb; }

    public double headroomGb() { return capacityGb - totalGb(); }
}
