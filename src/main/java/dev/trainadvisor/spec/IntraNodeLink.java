package dev.trainadvisor.spec;

/**
 * The link between GPUs of one node.
 *
 * @param kind          what joins the GPUs
 * @param busbwGbps     all-reduce bus bandwidth (nccl-tests definition) in GB/s: the catalogue's measured value for a
 *                      typical 8-GPU node with peer-to-peer, as the host placement changes it (shared memory, sockets),
 *                      or the run's own measurement
 * @param busbwMeasured true when the run file gave {@code busbw_gbps} (or an nccl-tests output)
 * @param host          where the GPUs sit on the host and the transport NCCL uses
 * @param nvlsGain      an all-reduce over the node's 8 GPUs with NVLink SHARP (NCCL's NVLS, on by default where the
 *                      NVSwitches reduce) over the ring's bus bandwidth; 1 without it
 */
public record IntraNodeLink(String key, LinkKind kind, double unidirectionalGbps, double busbwGbps,
                            double alphaUs, boolean busbwMeasured, String source, HostPlacement host, double nvlsGain) {

    public IntraNodeLink(String key, LinkKind kind, double unidirectionalGbps, double busbwGbps, double alphaUs,
                         boolean busbwMeasured, String source, HostPlacement host) {
        this(key, kind, unidirectionalGbps, busbwGbps, alphaUs, busbwMeasured, source, host, 1.0);
    }

    public boolean isNvlink() { return kind.direct(); }

    public IntraNodeLink withMeasuredBusbw(double gbps) {
        return new IntraNodeLink(key, kind, unidirectionalGbps, gbps, alphaUs, true, source, host, nvlsGain);
    }

    /** The link placed on a host: its transport and the bus bandwidth that follows. */
    public IntraNodeLink on(HostPlacement h, double busbw) {
        return new IntraNodeLink(key, kind, unidirectionalGbps, busbw, alphaUs, busbwMeasured, source, h, nvlsGain);
    }

    /**
     * The bus bandwidth the catalogue expects of this link on its host: the placed value, whatever a measurement or a
     * fit made of {@link #busbwGbps}; NaN when the link was not placed on a host.
     */
    public double expectedBusbwGbps() { return host == null ? Double.NaN : host.busbwGbps(); }

    /** How much slower compute runs beside a collective on this link (its transport's interference). */
    public double interference() { return host == null ? 0 : host.interference(); }

    public Transport transport() { return host == null ? Transport.P2P : host.transport(); }

    /** A two-rank broadcast's or reduce's bus bandwidth over the all-reduce's on this link's transport. */
    public double oneWayGain() { return host == null ? 1 : host.oneWayGain(); }

    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof IntraNodeLink l
                && Double.compare(unidirectionalGbps, l.unidirectionalGbps) == 0
                && Double.compare(busbwGbps, l.busbwGbps) == 0 && Double.compare(alphaUs, l.alphaUs) == 0
                && busbwMeasured == l.busbwMeasured && Double.compare(nvlsGain, l.nvlsGain) == 0
                && java.util.Objects.equals(key, l.key) && java.util.Objects.equals(kind, l.kind)
                && java.util.Objects.equals(source, l.source) && java.util.Objects.equals(host, l.host);
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(key);
        h = 31 * h + java.util.Objects.hashCode(kind);
        h = 31 * h + Double.hashCode(unidirectionalGbps);
        h = 31 * h + Double.hashCode(busbwGbps);
        h = 31 * h + Double.hashCode(alphaUs);
        h = 31 * h + Boolean.hashCode(busbwMeasured);
        h = 31 * h + java.util.Objects.hashCode(source);
        h = 31 * h + java.util.Objects.hashCode(host);
        return 31 * h + Double.hashCode(nvlsGain);
    }
}
