package dev.trainadvisor.facts;

import dev.trainadvisor.perf.CollectiveKind;
import dev.trainadvisor.perf.CollectiveOp;
import dev.trainadvisor.perf.LinkScope;
import dev.trainadvisor.perf.OverlapWindow;
import dev.trainadvisor.perf.ProcessGroup;

/**
 * One collective of the step on the link that bounds it:
 * {@code seconds = calls x alphaUs + factor x bytesPerStep / busbw}.
 *
 * @param factor       nccl-tests bus-bandwidth factor for its kind and group size
 * @param bytesPerStep bytes (nccl-tests size) moved per optimizer step
 * @param link         catalogue key of the link that bounds it
 * @param overlapsWith the compute it can hide behind
 * @param domains      the NVLink domains its group spans (1 inside one), as the framework's rank order places it
 * @param perDomain    the most of its ranks in one of them
 * @param rackScale    whether an NVLink domain is larger than a node (a rack of nodes joined by one NVLink fabric)
 */
public record CollectiveFact(CollectiveOp op, CollectiveKind kind, ProcessGroup group, int groupSize, double factor,
                             double bytesPerStep, long calls, double alphaUs, String link, LinkScope scope,
                             boolean crossesNodes, double busbwGbps, double seconds, double exposedSeconds,
                             double fractionOfStep, OverlapWindow overlapsWith, int domains, int perDomain,
                             boolean rackScale) {

    /** The name it is printed and claimed under: "zero-param-all-gather". */
    public String name() { return op.key(); }
}
