package dev.trainadvisor.facts;

/**
 * What a node's host must hold for offload, against what it has (cluster.host_memory_gb, or the catalogue host's): each
 * GPU's offloaded states (perf.MemoryEstimate.hostGb, pinned where the framework pins them) times the GPUs of a node.
 * Only where the run says how much memory its host has.
 *
 * @param perGpuGb    what one GPU's rank keeps on the host
 * @param gpusPerNode the ranks of a node
 * @param haveGb      the node's host memory
 * @param host        the host, as the advice names it
 */
public record HostMemoryFact(double perGpuGb, int gpusPerNode, double haveGb, String host) {

    /** What the node's host must hold. */
    public double needGb() { return perGpuGb * gpusPerNode; }

    public boolean overflows() { return needGb() > haveGb; }
}
