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
}
