package dev.trainadvisor.perf;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What one call of a collective costs on its group, as NCCL's tuner picks the algorithm
 * (src/graph/tuning.cc of NVIDIA/nccl at 5067397, ncclTopoTuneModel: the latency and bandwidth of every algorithm, the
 * fastest chosen per call): {@code alpha + factor x bytes / busbw}; its constants are data, knowledge-base/nccl-tuning.json.
 *
 * <p>The catalogue's latency of a link is measured on a small group (an 8-GPU node, 2 nodes; knowledge-base/links.json
 * and networks.json). A ring across more nodes pays one network hop per step beyond it, NCCL's 14 us for the Simple
 * protocol's network hop ({@code hwLatencies[NET][RING][SIMPLE]}): 2 (nodes - 1) steps for an all-reduce, nodes - 1 for an
 * all-gather or a reduce-scatter. An all-reduce across nodes may run as a tree instead: 2 log2(nodes) network hops
 * ({@code hwLatencies[NET][TREE][SIMPLE]}, 14 us), at 0.92 x 0.85 of the ring's bus bandwidth (the tree refinements of
 * the same function) and an algorithm bandwidth of half its bus bandwidth, so a factor of 2 / 0.782 on the bytes.
 * An all-gather or reduce-scatter with one rank per node may run as PAT (NCCL 2.23 and later): log2(nodes) network
 * hops at a 3.5th of their latency plus 2.8 us per rank, at 0.75 of the ring's bus bandwidth.
 * A ring inside one NVLink domain larger than the 8 GPUs the latency was measured on pays NCCL's NVLink ring hop,
 * 3.4 us ({@code hwLatencies[NVLINK][RING][SIMPLE]}), per extra step.
 *
 * <p>An all-reduce inside an NVSwitch node runs as NVLS (NVLink SHARP, the switches reduce): NCCL's maintainers give
 * 370 GB/s of bus bandwidth for a ring on H100 NVLink and about 480 GB/s for an 8-GPU all-reduce with NVLS, "a 30%
 * improvement" (https://github.com/NVIDIA/nccl-tests/issues/212, https://github.com/NVIDIA/nccl/issues/1442); on 2-4
 * GPUs NVLS matched the ring and rose to it through 5-8 (https://github.com/NVIDIA/nccl/issues/1455: 370, then 420,
 * 440, 460, 480), taken linearly from 4 to 8 GPUs. The link's {@code nvlsGain} carries the ratio.
 *
 * <p>Across nodes whose switches reduce (InfiniBand SHARP, declared by {@code inter_node.sharp}), an all-reduce runs as
 * NCCL's CollNet: each GPU's data goes up the network once and the reduced result comes back once, "the algorithm
 * bandwidth could be up to" the node's NICs' (NCCL maintainer, https://github.com/NVIDIA/nccl/issues/320), so the
 * bytes cross the network once in each direction (a factor of 1 on the bus bandwidth against a ring's
 * 2 (n - 1) / n) at the latency measured on two nodes, whatever their number.
 *
 * @param algorithm       "ring", "tree", "pat", "nvls" or "sharp"
 * @param alphaUs         the latency of one call
 * @param factor          bytes over bus bandwidth: nccl-tests' factor for a ring, 2 / 0.782 for a tree
 * @param bandwidthScale  the algorithm's bus bandwidth over the link's (a ring's)
 */
public record CallCost(String algorithm, double alphaUs, double factor, double bandwidthScale) {

    public CallCost(String algorithm, double alphaUs, double factor) { this(algorithm, alphaUs, factor, 1.0); }

    /** NCCL's tuner constants (knowledge-base/nccl-tuning.json, each with its line of tuning.cc). */
    private static final JsonNode TUNING = read();

    /** NCCL's per-step latency of a network hop, Simple protocol, ring and tree alike. */
    public static final double NET_HOP_US = TUNING.get("net_hop_us").asDouble();

    /** NCCL's per-step latency of an NVLink hop in a ring, Simple protocol. */
    public static final double NVLINK_HOP_US = TUNING.get("nvlink_ring_hop_us").asDouble();

    /** A tree all-reduce's bus bandwidth over the ring's: 0.92, and 0.85 for the tree pattern. */
    public static final double TREE_BANDWIDTH = TUNING.get("tree_bandwidth").asDouble();

    /** PAT: the share of a network hop's latency per doubling, its latency per rank, its bus bandwidth over a ring's. */
    public static final double PAT_HOP_SHARE = TUNING.get("pat_hop_share").asDouble(),
            PAT_RANK_US = TUNING.get("pat_rank_us").asDouble(), PAT_BANDWIDTH = TUNING.get("pat_bandwidth").asDouble();

    /** The GPUs and nodes the catalogue's latencies were measured on. */
    static final int REFERENCE_GPUS = TUNING.get("reference_gpus").asInt(), REFERENCE_NODES = TUNING.get("reference_nodes").asInt();

    private static JsonNode read() {
        try (java.io.InputStream in = dev.trainadvisor.spec.Resources.open("knowledge-base/nccl-tuning.json")) {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(in);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot read knowledge-base/nccl-tuning.json", e);
        }
    }

    /** The cheapest way NCCL runs one call of {@code bytes} of {@code kind} over {@code n} ranks placed on {@code link}. */
    static CallCost of(CollectiveKind kind, int n, LinkChoice link, double bytes) {
        CallCost ring = ring(kind, n, link);
        CallCost only = only(kind, n, link, ring);
        if (only != null) return only;
        return cheaper(ring, other(kind, n, link), bytes, link.busbwGbps() * 1e9);
    }

    /** Of the ring and {@code other} (null: none), the cheaper call of {@code bytes} at {@code busbw}; the ring on a tie. */
    static CallCost cheaper(CallCost ring, CallCost other, double bytes, double busbw) {
        return other != null && other.seconds(bytes, busbw) < ring.seconds(bytes, busbw) ? other : ring;
    }

    /**
     * The algorithm NCCL runs whatever the call's size on {@code link}, or null where it chooses between the ring and
     * {@link #other}: a broadcast or reduce between two ranks sends one way, where a rank's sending and receiving share
     * the host's path (shared memory, sockets), each has the path an all-reduce splits (over more, the ring's middle
     * ranks receive and send at once, as in an all-reduce); an all-reduce inside an NVSwitch node runs as NVLS.
     */
    static CallCost only(CollectiveKind kind, int n, LinkChoice link, CallCost ring) {
        if ((kind == CollectiveKind.BROADCAST || kind == CollectiveKind.REDUCE) && n == 2 && link.oneWayGain() != 1)
            return new CallCost(ring.algorithm(), ring.alphaUs(), ring.factor(), link.oneWayGain());
        if (kind == CollectiveKind.ALL_REDUCE && !link.crossesNodes() && link.nvlsGain() > 1 && n > 4) {
            double gain = 1 + (link.nvlsGain() - 1) * Math.min(1, (n - 4) / 4.0);
            return new CallCost("nvls", ring.alphaUs(), ring.factor(), gain);
        }
        return null;
    }

    /**
     * The algorithm NCCL weighs against the ring on {@code link} (where {@link #only} gives none): SHARP's CollNet for
     * an all-reduce across nodes whose switches reduce; across more nodes than the latency was measured on, a tree for
     * an all-reduce, PAT for an all-gather or reduce-scatter with one rank a node; else null, the ring alone.
     */
    static CallCost other(CollectiveKind kind, int n, LinkChoice link) {
        if (kind == CollectiveKind.ALL_REDUCE && link.sharp() && link.scope() == LinkScope.INTER_NODE)
            return new CallCost("sharp", link.alphaUs(), 1.0);
        if (!link.crossesNodes() || link.nodesSpanned() <= REFERENCE_NODES) return null;
        int nodes = link.nodesSpanned();
        if (kind == CollectiveKind.ALL_REDUCE) {
            double hops = 2 * (log2(nodes) - log2(REFERENCE_NODES));
            return new CallCost("tree", link.alphaUs() + hops * NET_HOP_US, 2 / TREE_BANDWIDTH);
        }
        if ((kind == CollectiveKind.ALL_GATHER || kind == CollectiveKind.REDUCE_SCATTER) && link.membersPerNode() == 1) {
            double extra = (log2(nodes) - log2(REFERENCE_NODES)) * NET_HOP_US * PAT_HOP_SHARE
                    + (n - REFERENCE_NODES) * PAT_RANK_US;
            return new CallCost("pat", link.alphaUs() + extra, kind.factor(n) / PAT_BANDWIDTH);
        }
        return null;
    }

    static CallCost ring(CollectiveKind kind, int n, LinkChoice link) {
        boolean twice = kind == CollectiveKind.ALL_REDUCE;
        double extra = 0;
        if (link.crossesNodes()) {
            int nodes = link.nodesSpanned();
            extra = Math.max(0, steps(nodes, twice) - steps(REFERENCE_NODES, twice)) * NET_HOP_US;
        } else if (link.scope() == LinkScope.INTRA_NODE && n > REFERENCE_GPUS
                && (kind == CollectiveKind.ALL_REDUCE || kind == CollectiveKind.ALL_GATHER || kind == CollectiveKind.REDUCE_SCATTER)) {
            extra = (steps(n, twice) - steps(REFERENCE_GPUS, twice)) * NVLINK_HOP_US;
        }
        return new CallCost("ring", link.alphaUs() + extra, kind.factor(n));
    }

    /** Steps of a ring over {@code ranks}: twice for an all-reduce (reduce-scatter, then all-gather). */
    private static int steps(int ranks, boolean twice) { return (twice ? 2 : 1) * (ranks - 1); }

    private static double log2(int x) { return Math.log(x) / Math.log(2); }

    /** One call of {@code bytes} on a link of {@code busbw} bytes/s. */
    double seconds(double bytes, double busbw) {
        return alphaUs * 1e-6 + (Double.isInfinite(busbw) ? 0 : factor * bytes / (busbw * bandwidthScale));
    }
}
