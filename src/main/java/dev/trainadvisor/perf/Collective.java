package dev.trainadvisor.perf;

/**
 * One kind of collective in a training step, summed over its calls:
 * {@code seconds = calls x alpha + factor x bytesPerStep / busbw}: alpha and factor of the algorithm NCCL runs it with
 * on its group ({@link CallCost}), busbw of the link it is bound by.
 *
 * @param bytesPerPass  nccl-tests size (the larger buffer) of one pass over the data, e.g. all gradients
 *                      of this GPU for a gradient reduction, one layer's activations for a TP all-reduce
 * @param passesPerStep how often that buffer moves per optimizer step
 * @param calls         calls that each pay the link's latency alpha (gradient buckets, one per layer for TP)
 * @param exposedSeconds the part not hidden behind compute
 * @param overlapsWith  the compute it can hide behind
 * @param forwardShare  of the exposed seconds inside forward-backward, the share that lands in the forward passes
 * @param afterBackward whether it runs after the last backward (with the optimizer step), outside forward-backward
 */
public record Collective(CollectiveOp op, int groupSize, double bytesPerPass, long passesPerStep, long calls,
                         LinkChoice link, double seconds, double exposedSeconds, OverlapWindow overlapsWith,
                         double forwardShare, boolean afterBackward, CallCost cost) {

    public String name() { return op.key(); }

    public CollectiveKind kind() { return op.kind(); }

    public ProcessGroup group() { return op.group(); }

    public double bytesPerStep() { return bytesPerPass * passesPerStep; }

    /** Bytes over bus bandwidth per byte moved: nccl-tests' factor for a ring of this kind and size, a tree's own. */
    public double factor() { return cost.factor(); }

    /** The bus bandwidth its algorithm gets on the link: the link's, more with NVLink SHARP ({@link CallCost}). */
    public double busbwGbps() { return link.busbwGbps() * cost.bandwidthScale(); }

    /** The latency of one call, for the algorithm it runs and the group it spans ({@link CallCost}). */
    public double alphaUs() { return cost.alphaUs(); }

    /** The latency part of {@link #seconds()}: calls x alpha. */
    public double latencySeconds() { return calls * cost.alphaUs() * 1e-6; }

    /** Exposed seconds that land in the forward passes. */
    public double exposedForward() { return afterBackward ? 0 : exposedSeconds * forwardShare; }

    /** Exposed seconds that land in the backward passes. */
    public double exposedBackward() { return afterBackward ? 0 : exposedSeconds * (1 - forwardShare); }

    /** Exposed seconds after the last backward, beside the optimizer step. */
    public double exposedAfterBackward() { return afterBackward ? exposedSeconds : 0; }
}
