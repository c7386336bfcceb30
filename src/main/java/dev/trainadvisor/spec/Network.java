package dev.trainadvisor.spec;

/**
 * The inter-node network of a cluster.
 *
 * @param lineRateGbitS one NIC's line rate in Gbit/s (datasheet)
 * @param efficiency    achieved fraction of line rate for NCCL traffic (measured, see catalogue)
 * @param busbwGbps     measured per-node all-reduce bus bandwidth from the run file in GB/s, or NaN
 * @param sharp         whether its switches reduce in the network (InfiniBand SHARP, NCCL's CollNet), as the run file
 *                      declares ({@code inter_node.sharp})
 */
public record Network(String key, double lineRateGbitS, double efficiency, double alphaUs,
                      int nicsPerNode, double busbwGbps, String source, boolean sharp) {

    public Network(String key, double lineRateGbitS, double efficiency, double alphaUs, int nicsPerNode,
                   double busbwGbps, String source) {
        this(key, lineRateGbitS, efficiency, alphaUs, nicsPerNode, busbwGbps, source, false);
    }

    /** Bandwidth one node can push into the network, GB/s: NICs x line rate x efficiency, or the measurement. */
    public double nodeGbps() {
        if (!Double.isNaN(busbwGbps)) return busbwGbps;
        return nicsPerNode * lineRateGbitS / 8.0 * efficiency;
    }

    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Network n && Double.compare(lineRateGbitS, n.lineRateGbitS) == 0
                && Double.compare(efficiency, n.efficiency) == 0 && Double.compare(alphaUs, n.alphaUs) == 0
                && nicsPerNode == n.nicsPerNode && Double.compare(busbwGbps, n.busbwGbps) == 0 && sharp == n.sharp
                && java.util.Objects.equals(key, n.key) && java.util.Objects.equals(source, n.source);
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(key);
        h = 31 * h + Double.hashCode(lineRateGbitS);
        h = 31 * h + Double.hashCode(efficiency);
        h = 31 * h + Double.hashCode(alphaUs);
        h = 31 * h + nicsPerNode;
        h = 31 * h + Double.hashCode(busbwGbps);
        h = 31 * h + java.util.Objects.hashCode(source);
        return 31 * h + Boolean.hashCode(sharp);
    }
}
