package dev.trainadvisor.perf;

/**
 * One collective of the step before overlap: what a {@link ParallelDimension} asks of the link its group is placed on.
 *
 * @param bytesPerPass  nccl-tests size of one pass over the buffer (all gradients, one layer's activations)
 * @param multiplicity  how many times the full buffer moves per step
 * @param calls         calls that each pay the latency alpha (buckets of a gradient reduction, one per layer for TP)
 * @param window        the compute it can hide behind
 * @param forwardShare  of its exposed time inside forward-backward, the share in the forward passes
 * @param afterBackward whether it runs after the last backward, beside the optimizer step
 */
public record CollectivePlan(CollectiveOp op, int n, double bytesPerPass, long multiplicity, long calls, LinkChoice link,
                             OverlapWindow window, double forwardShare, boolean afterBackward) {

    /** A gradient reduction: in the backward when overlapped with it, after the last backward when not. */
    static CollectivePlan gradientReduction(CollectiveOp op, int n, double bytes, long calls, long multiplicity,
                                            LinkChoice link, OverlapWindow window) {
        return new CollectivePlan(op, n, bytes, multiplicity, calls, link, window, 0.0, window == OverlapWindow.NONE);
    }

    /** This collective bound by {@code other} instead: its group placed on another cluster. */
    CollectivePlan on(LinkChoice other) {
        return new CollectivePlan(op, n, bytesPerPass, multiplicity, calls, other, window, forwardShare, afterBackward);
    }

    /** How one call runs: the algorithm NCCL would pick, its latency and its factor on the bytes ({@link CallCost}). */
    CallCost cost() {
        return CallCost.of(op.kind(), n, link, calls > 0 ? bytesPerPass * multiplicity / calls : bytesPerPass * multiplicity);
    }

    /** {@code calls x alpha + factor x bytes / busbw}, alpha and factor of the algorithm a call runs. */
    double seconds() { return seconds(cost()); }

    /** {@link #seconds()} with its call cost, {@link #cost()}, already worked out. */
    double seconds(CallCost c) { return seconds(c, link.busbwGbps()); }

    /** {@link #seconds(CallCost)} on a link of {@code busbwGbps} (FitTimes: its group's link at another bandwidth). */
    double seconds(CallCost c, double busbwGbps) {
        double bw = busbwGbps * 1e9 * c.bandwidthScale();
        double transfer = Double.isInfinite(bw) ? 0 : c.factor() * bytesPerPass * multiplicity / bw;
        return calls * c.alphaUs() * 1e-6 + transfer;
    }
}
