package dev.trainadvisor.perf;

import java.util.List;

/**
 * Memory one GPU holds at its peak, in GB (1e9 bytes, as the ZeRO paper and datasheets count): the
 * pipeline stage that needs the most, with every stage listed.
 *
 * @param hostGb what the GPU's rank keeps in (pinned) host memory instead: the states and activations it offloads
 */
public record MemoryEstimate(double weightsGb, double gradientsGb, double optimizerGb, double activationsGb,
                             double logitsGb, double buffersGb, double capacityGb, List<Stage> stages, double hostGb) {

    /**
     * One pipeline stage's peak. The first stage holds the embedding and the most micro-batches in flight, the last the
     * output head and the logits; {@code hostGb} is what it offloads.
     */
    public record Stage(int stage, double weightsGb, double gradientsGb, double optimizerGb, double activationsGb,
                        double logitsGb, double buffersGb, double hostGb) {
        public Stage(int stage, double weightsGb, double gradientsGb, double optimizerGb, double activationsGb,
                     double logitsGb, double buffersGb) {
            this(stage, weightsGb, gradientsGb, optimizerGb, activationsGb, logitsGb, buffersGb, 0);
        }

        public double totalGb() { return weightsGb + gradientsGb + optimizerGb + activationsGb + logitsGb + buffersGb; }
    }

    public MemoryEstimate {
        stages = List.copyOf(stages);
    }

    public MemoryEstimate(double weightsGb, double gradientsGb, double optimizerGb, double activationsGb,
                          double logitsGb, double buffersGb, double capacityGb, List<Stage> stages) {
        this(weightsGb, gradientsGb, optimizerGb, activationsGb, logitsGb, buffersGb, capacityGb, stages, 0);
    }

    public double totalGb() { return weightsGb + gradientsGb + optimizerGb + activationsGb + logitsGb + buffersGb; }

    public double headroomGb() { return capacityGb - totalGb(); }
}
