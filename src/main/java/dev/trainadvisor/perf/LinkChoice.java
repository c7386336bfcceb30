package dev.trainadvisor.perf;

/**
 * The bandwidth a process group gets once placed on the topology.
 *
 * @param linkKey      catalogue key of the link that bounds the group (the slowest one it crosses)
 * @param scope        where the bounding link is
 * @param busbwGbps    the bus bandwidth the group gets on it
 * @param alphaUs      the latency of one call
 * @param crossesNodes whether the group spans more than one node
 * @param interference how much slower compute runs beside the group's collectives: the intra-node transport's
 *                     (knowledge-base/transports.json) when the group has more than one member in a node, else 0
 * @param nvlsGain     an 8-GPU all-reduce with NVLink SHARP over the ring on the bounding link; 1 off the node's NVLink
 * @param sharp        whether the network bounding the group reduces in its switches (InfiniBand SHARP)
 * @param oneWayGain   a one-way collective's (broadcast, reduce) bus bandwidth over the all-reduce's on the bounding
 *                     link: the intra-node transport's (knowledge-base/transports.json), 1 off the node
 */
public record LinkChoice(String linkKey, LinkScope scope, double busbwGbps, double alphaUs, boolean crossesNodes,
                         int nodesSpanned, int membersPerNode, double interference, double nvlsGain, boolean sharp,
                         double oneWayGain) {

    public LinkChoice(String linkKey, LinkScope scope, double busbwGbps, double alphaUs, boolean crossesNodes,
                      int nodesSpanned, int membersPerNode, double interference, double nvlsGain, boolean sharp) {
        this(linkKey, scope, busbwGbps, alphaUs, crossesNodes, nodesSpanned, membersPerNode, interference, nvlsGain, sharp, 1.0);
    }

    public LinkChoice(String linkKey, LinkScope scope, double busbwGbps, double alphaUs, boolean crossesNodes,
                      int nodesSpanned, int membersPerNode, double interference) {
        this(linkKey, scope, busbwGbps, alphaUs, crossesNodes, nodesSpanned, membersPerNode, interference, 1.0, false);
    }

    public LinkChoice(String linkKey, LinkScope scope, double busbwGbps, double alphaUs, boolean crossesNodes,
                      int nodesSpanned, int membersPerNode, double interference, double nvlsGain) {
        this(linkKey, scope, busbwGbps, alphaUs, crossesNodes, nodesSpanned, membersPerNode, interference, nvlsGain, false);
    }

    public boolean intraBound() { return scope == LinkScope.INTRA_NODE; }

    /** The same placement with the compute beside its collectives slowed by {@code i} instead. */
    public LinkChoice withInterference(double i) {
        return new LinkChoice(linkKey, scope, busbwGbps, alphaUs, crossesNodes, nodesSpanned, membersPerNode, i, nvlsGain,
                sharp, oneWayGain);
    }
}
