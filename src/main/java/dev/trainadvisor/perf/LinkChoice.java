package dev.trainadvisor.perf;

/**
 * The bandwidth a process group gets once placed on the topology.
 *
 * @param linkKey    catalogue key of the link that bounds the group (the slowest one it crosses)
 * @param scope      "intra-node" or "inter-node": where the bounding link is
 * @param crossesNodes whether the group spans more than one node
 */
public record LinkChoice(String linkKey, String scope, double busbwGbps, double alphaUs, boolean crossesNodes,
                         int nodesSpanned, int membersPerNode) {

    public static final String INTRA = "intra-node";
    public static final String INTER = "inter-node";

    public boolean intraBound() { return INTRA.equals(scope); }
}
