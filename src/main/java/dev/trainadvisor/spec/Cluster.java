package dev.trainadvisor.spec;

/**
 * Where a run trains: the GPU, how many, and what joins them.
 *
 * @param interNode null for a single-node cluster
 */
public record Cluster(String name, Gpu gpu, int nodes, int gpusPerNode, IntraNodeLink intraNode,
                      Network interNode) {

    public int gpus() { return nodes * gpusPerNode; }
}
