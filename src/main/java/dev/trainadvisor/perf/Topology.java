package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Network;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.RankOrder;

/**
 * Places process groups on the cluster. Ranks are numbered TP innermost, then CP, then DP and PP in the framework's
 * order ({@link RankOrder}: the pipeline stages outermost, as Megatron-LM, DeepSpeed and torchtitan number them, or the
 * data-parallel replicas), and a node holds consecutive ranks.
 */
public final class Topology {
    private final Cluster cluster;
    private final Parallel parallel;
    private final RankOrder order;
    /** What {@link #recording} topologies were asked: each link given, with how it was placed; null otherwise. */
    private final java.util.List<Placed> placed;

    public Topology(Cluster cluster, Parallel parallel, RankOrder order) {
        this(cluster, parallel, order, null);
    }

    private Topology(Cluster cluster, Parallel parallel, RankOrder order, java.util.List<Placed> placed) {
        this.cluster = cluster;
        this.parallel = parallel;
        this.order = order;
        this.placed = placed;
    }

    /**
     * How a group was placed (its ranks, and for an all-to-all what crosses the network), to place it again on another
     * topology: the same ranks on a cluster whose links have other bandwidths bound by the link that is slower there.
     */
    @FunctionalInterface
    interface Placement {
        LinkChoice on(Topology t);
    }

    /** A link this topology gave, and how it was placed. */
    private record Placed(LinkChoice link, Placement placement) {}

    /**
     * A topology that remembers how it placed each link it gives ({@link #placementOf}), so that the collectives planned
     * on it can be placed again on a cluster that differs in its links' bandwidths alone (CommModel.Template). Confined
     * to the thread that plans on it.
     */
    static Topology recording(Cluster cluster, Parallel parallel, RankOrder order) {
        return new Topology(cluster, parallel, order, new java.util.ArrayList<>());
    }

    /**
     * How {@code link} (this very object) was placed by this recording topology; null where it was not (a topology that
     * does not record, or a link made elsewhere).
     */
    Placement placementOf(LinkChoice link) {
        if (placed != null)
            for (Placed p : placed) if (p.link() == link) return p.placement();
        return null;
    }

    /**
     * {@code link}, placed by this topology, with the compute beside its collectives slowed by {@code i} instead
     * ({@link LinkChoice#withInterference}), placed again the same way.
     */
    public LinkChoice withInterference(LinkChoice link, double i) {
        LinkChoice out = link.withInterference(i);
        Placement base = placementOf(link);
        if (base != null) placed.add(new Placed(out, t -> base.on(t).withInterference(i)));
        return out;
    }

    public int tpStride() { return 1; }
    public int cpStride() { return parallel.tp(); }
    public int ppStride() {
        int inner = parallel.tp() * parallel.cp();
        return order == RankOrder.PIPELINE_OUTERMOST ? inner * parallel.dp() : inner;
    }
    public int dpStride() {
        int inner = parallel.tp() * parallel.cp();
        return order == RankOrder.PIPELINE_OUTERMOST ? inner : inner * parallel.pp();
    }

    /**
     * The link a group of {@code size} ranks, {@code stride} apart, is bound by. A group inside one NVLink domain (a
     * node, or a rack of nodes joined by one NVLink fabric, {@link Cluster#nvlinkDomain()}) gets the intra-node bus
     * bandwidth. A ring that crosses domains is bound by min(intra-node busbw, the node's network bandwidth shared among
     * the groups that cross at once): with k members per node, gpusPerNode / k such groups share the node's NICs.
     */
    public LinkChoice place(int size, int stride) {
        LinkChoice link = ring(size, stride);
        if (placed != null) placed.add(new Placed(link, t -> t.ring(size, stride)));
        return link;
    }

    private LinkChoice ring(int size, int stride) {
        int perNode = cluster.gpusPerNode(), domain = cluster.nvlinkDomain();
        // the group of rank 0: ranks 0, stride, 2*stride, ...; every other group of the kind is a shifted copy
        return link(size, blocks(size, stride, domain), mostInABlock(size, stride, domain), mostInABlock(size, stride, perNode));
    }

    /**
     * The link a group of {@code inner x outer} ranks is bound by: {@code inner} ranks {@code innerStride} apart, that
     * block repeated {@code outer} times {@code outerStride} apart (at least the block's span). The ranks that hold the
     * same weights under context parallelism are such a group: the context-parallel ranks of each data-parallel rank
     * ({@link #cpStride()}), over the data-parallel ranks ({@link #dpStride()}), one group when pp is 1.
     */
    public LinkChoice place(int inner, int innerStride, int outer, int outerStride) {
        LinkChoice link = grid(inner, innerStride, outer, outerStride);
        if (placed != null) placed.add(new Placed(link, t -> t.grid(inner, innerStride, outer, outerStride)));
        return link;
    }

    private LinkChoice grid(int inner, int innerStride, int outer, int outerStride) {
        if (outer <= 1) return ring(inner, innerStride);
        if (inner <= 1) return ring(outer, outerStride);
        if (outerStride == inner * innerStride) return ring(inner * outer, innerStride);
        int perNode = cluster.gpusPerNode(), domain = cluster.nvlinkDomain();
        return link(inner * outer, gridBlocks(inner, innerStride, outer, outerStride, domain),
                mostInABlock(inner, innerStride, domain) * mostInABlock(outer, outerStride, domain),
                mostInABlock(inner, innerStride, perNode) * mostInABlock(outer, outerStride, perNode));
    }

    /**
     * The blocks of {@code width} consecutive ranks a grid group falls in: where its outer stride reaches past a block,
     * each outer member's inner block on blocks of its own; else the outer members' span, the inner blocks inside it.
     */
    static int gridBlocks(int inner, int innerStride, int outer, int outerStride, int width) {
        if (outerStride >= width) return (int) Math.min(Integer.MAX_VALUE, (long) outer * blocks(inner, innerStride, width));
        return blocks(outer, outerStride, width);
    }

    /** The link of a group of {@code size} ranks over {@code domains} NVLink domains, as {@link #place} describes it. */
    private LinkChoice link(int size, int domains, int membersPerDomain, int membersPerNode) {
        int perNode = cluster.gpusPerNode();
        if (size <= 1) return new LinkChoice("none", LinkScope.INTRA_NODE, Double.POSITIVE_INFINITY, 0, false, 1, 1, 0);
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
     * The link an all-to-all over a group of {@code size} ranks, {@code stride} apart, is bound by, at the bus bandwidth
     * that gives its time through nccl-tests' factor, (n - 1) / n of a rank's buffer. Inside one NVLink domain it is
     * {@link #place}'s. A group that spans domains does not run as a ring: each rank sends (m - 1) / n of its buffer to
     * the m - 1 peers of its domain over NVLink, and (n - m) / n to the others over the network, where every GPU of a node
     * sends at once, so each has its node's network bandwidth over its GPUs (its own NIC on a node with one a GPU,
     * "rail-optimised"). The call takes the longer of the two, and is bound by that link:
     * busbw = (n - 1) / max((m - 1) / B_nvlink, (n - m) x share / B_gpu).
     *
     * @param networkShare what crosses the network over a plain all-to-all's (n - m) / n of the buffer: 1, or less for a
     *                     dispatcher that sends a token once per domain that holds its experts
     *                     ({@link #oncePerDomainShare})
     * @param forwarded    whether the domain forwards what arrives over the network to the experts' GPUs over NVLink
     *                     (DeepEP, HybridEP): (n - m) / n x (m - 1) / m more of the buffer on NVLink
     */
    public LinkChoice placeAllToAll(int size, int stride, double networkShare, boolean forwarded) {
        LinkChoice link = allToAll(size, stride, networkShare, forwarded);
        if (placed != null) placed.add(new Placed(link, t -> t.allToAll(size, stride, networkShare, forwarded)));
        return link;
    }

    private LinkChoice allToAll(int size, int stride, double networkShare, boolean forwarded) {
        int perNode = cluster.gpusPerNode(), domain = cluster.nvlinkDomain();
        if (size <= 1 || blocks(size, stride, domain) == 1) return ring(size, stride);
        int m = mostInABlock(size, stride, domain);
        double n = size;
        Network net = cluster.interNode();
        double perGpuGbps = net.nodeGbps() / perNode;
        double intraShare = (m - 1) / n + (forwarded && m > 1 ? (n - m) / n * (m - 1) / m : 0);
        double intraTime = intraShare > 0 ? intraShare / cluster.intraNode().busbwGbps() : 0;
        double netTime = (n - m) / n * networkShare / perGpuGbps;
        double busbw = (n - 1) / n / Math.max(intraTime, netTime);
        double alpha = Math.max(net.alphaUs(), m > 1 ? cluster.intraNode().alphaUs() : 0);
        double interference = m > 1 ? cluster.intraNode().interference() : 0;
        int domains = blocks(size, stride, domain);
        if (intraTime > netTime)
            return new LinkChoice(cluster.intraNode().key(), LinkScope.INTRA_NODE, busbw, alpha, true, domains, m,
                    interference, 1.0, false, 1.0);
        return new LinkChoice(net.key(), LinkScope.INTER_NODE, busbw, alpha, true, domains, m, interference, 1.0, false);
    }

    /**
     * What crosses the network when a token goes once to each other NVLink domain that holds any of its {@code topK}
     * experts (DeepEP, HybridEP), over a plain all-to-all's one copy per expert: the expected number of other domains a
     * token's experts fall in, (N - 1)(1 - (1 - 1/N)^k) with the experts spread evenly over {@code domains} = N, over the
     * expected copies that leave its domain, k (N - 1) / N. Uniform routing, drawn with replacement: DeepSeek-V3's
     * node-limited routing (at most 4 nodes a token, section 3.2.2) would cut it further.
     */
    public static double oncePerDomainShare(int domains, int topK) {
        if (domains <= 1) return 1;
        double n = domains;
        return (n - 1) * (1 - Math.pow(1 - 1 / n, topK)) / (topK * (n - 1) / n);
    }

    /** How many NVLink domains a group of {@code size} ranks, {@code stride} apart, spans. */
    public int domainsSpanned(int size, int stride) { return blocks(size, stride, cluster.nvlinkDomain()); }

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
