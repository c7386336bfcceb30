package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Network;
import dev.trainadvisor.spec.Parallel;

/**
 * Places process groups on the cluster. Ranks are numbered TP innermost, then CP, PP, DP
 * (Megatron's default order), and a node holds consecutive ranks.
 */
public final class Topology {
    private final Cluster cluster;
    private final Parallel parallel;

    public Topology(Cluster cluster, Parallel parallel) {
        this.cluster = cluster;
        this.parallel = parallel;
    }

    public int tpStride() { return 1; }
    public int cpStride() { return parallel.tp(); }
    public int ppStride() { return parallel.tp() * parallel.cp(); }
    public int dpStride() { return parallel.tp() * parallel.cp() * parallel.pp(); }

    /**
     * The link a group of {@code size} ranks, {@code stride} apart, is bound by. A group inside a node
     * gets the intra-node bus bandwidth. A ring that crosses nodes is bound by
     * min(intra-node busbw, the node's network bandwidth shared among the groups that cross at once):
     * with k members per node, gpusPerNode / k such groups share the node's NICs.
     */
    public LinkChoice place(int size, int stride) {
        int perNode = cluster.gpusPerNode();
        if (size <= 1) return new LinkChoice("none", LinkScope.INTRA_NODE, Double.POSITIVE_INFINITY, 0, false, 1, 1, 0);
        // the group of rank 0: ranks 0, stride, 2*stride, ...; every other group of the kind is a shifted copy
        int nodes = 0, membersPerNode = 0, run = 0;
        long lastNode = -1;
        for (int i = 0; i < size; i++) {
            long node = (long) i * stride / perNode;
            if (node != lastNode) {
                nodes++;
                lastNode = node;
                run = 0;
            }
            membersPerNode = Math.max(membersPerNode, ++run);
        }
        if (nodes == 1) {
            return new LinkChoice(cluster.intraNode().key(), LinkScope.INTRA_NODE, cluster.intraNode().busbwGbps(),
                    cluster.intraNode().alphaUs(), false, 1, size, cluster.intraNode().interference());
        }
        Network net = cluster.interNode();
        double netGbps = net.nodeGbps() * membersPerNode / perNode;
        double intraGbps = membersPerNode > 1 ? cluster.intraNode().busbwGbps() : Double.POSITIVE_INFINITY;
        double alpha = Math.max(net.alphaUs(), membersPerNode > 1 ? cluster.intraNode().alphaUs() : 0);
        double interference = membersPerNode > 1 ? cluster.intraNode().interference() : 0;
        if (intraGbps < netGbps) {
            return new LinkChoice(cluster.intraNode().key(), LinkScope.INTRA_NODE, intraGbps, alpha, true, nodes,
                    membersPerNode, interference);
        }
        return new LinkChoice(net.key(), LinkScope.INTER_NODE, netGbps, alpha, true, nodes, membersPerNode, interference);
    }
}
