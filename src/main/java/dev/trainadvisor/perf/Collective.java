package dev.trainadvisor.perf;

/**
 * One kind of collective in a training step, summed over its calls.
 *
 * @param name          what it does, e.g. "dp-grad-reduce-scatter"
 * @param group         the process group: tp, cp, pp, dp, zero, zero-replica, ep
 * @param bytesPerPass  nccl-tests size (the larger buffer) of one pass over the data, e.g. all gradients
 *                      of this GPU for a gradient reduction, one layer's activations for a TP all-reduce
 * @param passesPerStep how often that buffer moves per optimizer step
 * @param seconds       total time of all calls: calls * alpha + factor * bytes / busbw
 * @param exposedSeconds the part not hidden behind compute
 * @param overlapsWith  the compute phase it can hide behind, or "none"
 */
public record Collective(String name, CollectiveKind kind, String group, int groupSize, double bytesPerPass,
                         long passesPerStep, LinkChoice link, double seconds, double exposedSeconds, String overlapsWith) {

    public double bytesPerStep() { return bytesPerPass * passesPerStep; }
}
