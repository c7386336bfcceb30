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
     * The link a group of {@code size} ranks, {@code stride} apart, is bound by. A group inside one NVLink domain (a
     * node, or a rack of nodes joined by one NVLink fabric, {@link Cluster#nvlinkDomain()}) gets the intra-node bus
     * bandwidth. A ring that crosses domains is bound by min(intra-node busbw, the node's network bandwidth shared among
     * the groups that cross at once): with k members per node, gpusPerNode / k such groups share the node's NICs.
     */
    public LinkChoice place(int size, int stride) {
        int perNode = cluster.gpusPerNode(), domain = cluster.nvlinkDomain();
        if (size <= 1) return new LinkChoice("none", LinkScope.INTRA_NODE, Double.POSITIVE_INFINITY, 0, false, 1, 1, 0);
        // the group of rank 0: ranks 0, stride, 2*stride, ...; every other group of the kind is a shifted copy
        int domains = blocks(size, stride, domain);
        int membersPerDomain = mostInABlock(size, stride, domain), membersPerNode = mostInABlock(size, stride, perNode);
        if (domains == 1) {
            return new LinkChoice(cluster.intraNode().key(), LinkScope.INTRA_NODE, cluster.intraNode().busbwGbps(),
                    cluster.intraNode().alphaUs(), false, 1, size, cluster.intraNode().interference(),
                    cluster.intraNode().nvlsGain(), false, cluster.intraNode().oneWayGain());
        }
        Network net = cluster.interNode();
        double netGbps = net.nodeGbps() * membersPerNode / perNode;
        double intraGbps = membersPerDomain > 1 ? cluster.intraNode().busbwGbps() : Double.POSITIVE_INFINITY;
        double alpha = Math.max(net.alphaUs(), membersPerDomain > 1 ? cluster.intraNode().alphaUs() : 0);
        double interference = membersPerDomain > 1 ? cluster.intraNode().interference() : 0;
        if (intraGbps < netGbps) {
            return new LinkChoice(cluster.intraNode().key(), LinkScope.INTRA_NODE, intraGbps, alpha, true, domains,
                    membersPerDomain, interference, 1.0, false, cluster.intraNode().oneWayGain());
        }
        return new LinkChoice(net.key(), LinkScope.INTER_NODE, netGbps, alpha, true, domains, membersPerDomain, interference,
                1.0, net.sharp());
    }

    /**
     * How many blocks of {@code width} consecutive ranks (nodes, NVLink domains) the ranks 0, stride, ...,
     * (size - 1) * stride fall in. In closed form, not a loop over a group of up to 2^20 ranks: steps of at most a
     * block's width skip no block between the first and the last rank; longer ones land in a new block each.
     */
    static int blocks(int size, int stride, int width) {
        if (stride > width) return size;
        return (int) ((size - 1L) * stride / width) + 1;
    }

    /** The most of those ranks in one block: the first block, from rank 0, holds ceil(width / stride), none holds more. */
    static int mostInABlock(int size, int stride, int width) {
        return (int) Math.min(size, ((long) width + stride - 1) / stride);
    }
}
