package dev.trainadvisor.facts;

/**
 * What training.offload costs the step, as the rules see it (perf.Offloading): the host's optimizer step, the copies
 * over the host link inside forward and backward, the updated parameters copied back, and the rates behind them.
 *
 * @param tiers          what is offloaded, as the run file says it ("optimizer, master_weights, gradients: cpu")
 * @param hostOptimizerS the host's optimizer step, exposed after the backward
 * @param copiesS        the exposed copies inside forward and backward
 * @param updateS        the updated parameters copied to the GPU after the step
 * @param hostParams     parameters the host updates for this GPU
 * @param hostParamsPerS the host's AdamW rate for this GPU
 * @param hostLinkGbps   the host link each way
 */
public record OffloadFact(String tiers, double hostOptimizerS, double copiesS, double updateS, double hostParams,
                          double hostParamsPerS, double hostLinkGbps) {

    /** Whether the host's optimizer, not the copies, is the larger part. */
    public boolean optimizerDominates() { return hostOptimizerS >= copiesS + updateS; }
}
