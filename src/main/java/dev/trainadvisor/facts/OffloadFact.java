package dev.trainadvisor.facts;

import dev.trainadvisor.perf.Offloading.HostRate;
import dev.trainadvisor.spec.Offload;

/**
 * What training.offload costs the step, as the rules see it (perf.Offloading): the host's optimizer step, the copies
 * over the host link inside forward and backward, the updated parameters copied back, and the rates behind them.
 *
 * @param tiers          what is offloaded, as the run file says it ("optimizer, master_weights, gradients: cpu")
 * @param hostOptimizerS the host's optimizer step, exposed after the backward
 * @param copiesS        the exposed copies inside forward and backward
 * @param updateS        the updated parameters copied to the GPU after the step
 * @param hostParams     parameters the host updates for this GPU
 * @param hostLinkGbps   the host link each way
 * @param rate           the host optimizer's rate for this GPU and what sets it: cores, threads, binding, bandwidth
 * @param offload        the run's offload, as its remedies edit it
 */
public record OffloadFact(String tiers, double hostOptimizerS, double copiesS, double updateS, double hostParams,
                          double hostLinkGbps, HostRate rate, Offload offload) {

    /** The run's offload with PyTorch's fused CPU AdamW as the host's optimizer. */
    public Offload fused() {
        return offload.withHost("torch-adamw-fused", offload.hostThreads(), offload.bindCores());
    }

    /** The run's offload with each rank bound to its share of the host's cores, with as many threads. */
    public Offload boundToCores() { return offload.withHost(offload.hostOptimizer(), null, Boolean.TRUE); }

    /** The host's cores each rank gets once bound. */
    public double coresPerRank() { return (double) rate.host().cores() / rate.ranks(); }

    /** The host's optimizer rate for this GPU, parameters a second. */
    public double hostParamsPerS() { return rate.paramsPerS(); }

    /** Whether the host's optimizer, not the copies, is the larger part. */
    public boolean optimizerDominates() { return hostOptimizerS >= copiesS + updateS; }

    /** Whether the node's host memory bandwidth, not its cores, sets the host optimizer's rate. */
    public boolean hostMemoryBound() { return rate.bandwidthBound(); }

    /** Whether the node's ranks run more optimizer threads than it has cores, unbound. */
    public boolean oversubscribed() { return !rate.bound() && rate.oversubscription() > 1; }

    /** Host cores no rank's optimizer thread runs on. */
    public double idleCores() { return rate.idleCores(); }

    /** The host optimizer's key ("torch-adamw"). */
    public String hostOptimizer() { return rate.optimizer().key(); }

    /** Whether the host optimizer makes a pass per elementwise op, where a fused kernel makes one (PyTorch's loops). */
    public boolean unfused() { return hostOptimizer().equals("torch-adamw") || hostOptimizer().equals("torch-adamw-foreach"); }
}
