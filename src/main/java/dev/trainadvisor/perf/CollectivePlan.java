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

    /** {@code calls x alpha + factor x bytes / busbw}, nccl-tests' bus-bandwidth factor of its kind for n ranks. */
    double seconds() {
        double bw = link.busbwGbps() * 1e9;
        double transfer = Double.isInfinite(bw) ? 0 : op.kind().factor(n) * bytesPerPass * multiplicity / bw;
        return calls * link.alphaUs() * 1e-6 + transfer;
    }
}
