package dev.trainadvisor.facts;

/**
 * The host's side of a micro-batch: the kernels it launches, what that takes at the framework's cost per launch, and
 * the GPU's own work beside it (perf.ComputeTime, perf.Overheads).
 *
 * @param launchesPerMicroBatch kernels launched per micro-batch (forward, backward, recomputation)
 * @param secondsPerLaunch      the host's time per launch: eager PyTorch's, or a CUDA graph's replay
 * @param hostS                 launches x seconds per launch
 * @param gpuS                  the GPU's work per micro-batch
 * @param microBatchS           what a micro-batch takes, the two joined
 * @param microBatches          micro-batches per step
 * @param cudaGraphs            whether the run replays CUDA graphs already
 */
public record LaunchFact(double launchesPerMicroBatch, double secondsPerLaunch, double hostS, double gpuS,
                         double microBatchS, int microBatches, boolean cudaGraphs) {

    /** What the launches add per step. */
    public double boundS() { return (microBatchS - gpuS) * microBatches; }
}
