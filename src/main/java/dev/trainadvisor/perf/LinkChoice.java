package dev.trainadvisor.perf;

/**
 * The bandwidth a process group gets once placed on the topology.
 *
 * @param linkKey      catalogue key of the link that bounds the group (the slowest one it crosses)
 * @param scope        where the bounding link is
 * @param busbwGbps    the bus bandwidth the group gets on it
 * @param alphaUs      the latency of one call
 * @param crossesNodes whether the group spans more than one node
 */
public record LinkChoice(String linkKey, LinkScope scope, double busbwGbps, double alphaUs, boolean crossesNodes,
                         int nodesSpanned, int membersPerNode) {

    public boolean intraBound() { return scope == LinkScope.INTRA_NODE; }
}
