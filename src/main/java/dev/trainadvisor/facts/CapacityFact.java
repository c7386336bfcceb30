package dev.trainadvisor.facts;

import dev.trainadvisor.spec.RunChange;

/**
 * What memory allows, from the layout search, for a run whose own layout does not fit: whether another layout of the
 * same GPUs does, and if none does, the fewest GPUs of this kind and the smallest GPU of the catalogue that hold the
 * run at the same global batch.
 *
 * @param gpus            the run's GPUs
 * @param gpuMemoryGb     memory of one of them
 * @param params          the model's parameters
 * @param stateGb         weights, gradients and optimizer states of the whole model, unsharded (what every layout
 *                        must spread over the GPUs before a single activation)
 * @param headroom        the share of memory a layout the search keeps leaves free
 * @param layoutsTried    layouts of the run's GPUs the search enumerated
 * @param anyLayoutFits   whether one of them fits
 * @param fewestGpus      the fewest GPUs of this kind that hold the run (0 when none within {@code maxGpusTried})
 * @param maxGpusTried    the most GPUs the search tried
 * @param fewestLayout    their fastest layout, described; {@code fewestChange} in run-file keys
 * @param largerGpu       the catalogue GPU with the least memory that holds the run on as many GPUs (null if none)
 * @param largerGpuMemoryGb its memory
 * @param largerLayout    its fastest layout, described; {@code largerChange} in run-file keys
 */
public record CapacityFact(int gpus, double gpuMemoryGb, double params, double stateGb, double headroom,
                           long layoutsTried, boolean anyLayoutFits, int fewestGpus, int maxGpusTried,
                           String fewestLayout, RunChange fewestChange, String largerGpu,
                           double largerGpuMemoryGb, String largerLayout, RunChange largerChange) {

    public CapacityFact {
    }

    /** Memory of all the run's GPUs together, GB. */
    public double clusterMemoryGb() { return gpus * gpuMemoryGb; }
}
