package dev.trainadvisor.spec;

/**
 * Where a node's GPUs sit on the host, and what NCCL does about it: how many CPU sockets the GPUs hang off, the worst
 * PCIe path between two of them as {@code nvidia-smi topo -m} prints it, and the transport that follows.
 *
 * @param sockets      CPU sockets the node's GPUs are split over
 * @param gpuPath      the worst path between two GPUs: NV (NVLink), PIX, PXB, PHB, NODE or SYS; null when unknown
 * @param transport    how NCCL moves data between them
 * @param interference how much slower compute runs beside a collective on this transport (0.39: 1.39x as long)
 * @param origin       where this comes from: "run file", "nvidia-smi topo -m", or the default's reason
 * @param socketsGiven whether the run file gave the sockets (else they follow from the path or the default)
 * @param transportGiven whether the run file gave the transport (else it follows from the GPU, path and sockets)
 * @param busbwGbps    the bus bandwidth the catalogue expects of the link on this host (a measurement replaces the
 *                     link's, not this); NaN when nothing is known of the host
 * @param oneWayGain   a two-rank broadcast's or reduce's bus bandwidth over the all-reduce's on this transport
 *                     (knowledge-base/transports.json, one_way_over_all_reduce)
 */
public record HostPlacement(int sockets, String gpuPath, Transport transport, double interference, String origin,
                            boolean socketsGiven, boolean transportGiven, double busbwGbps, double oneWayGain) {

    /** A catalogue link as such: peer-to-peer, one socket, nothing known of the host. */
    public static final HostPlacement CATALOGUE = new HostPlacement(1, null, Transport.P2P, 0, "catalogue", false, false,
            Double.NaN, 1.0);

    /** nvidia-smi's PCIe path classes, best first. */
    public static final java.util.List<String> PATHS = java.util.List.of("NV", "PIX", "PXB", "PHB", "NODE", "SYS");

    /**
     * Whether NCCL uses peer-to-peer over this path by default: NVLink, or at most PXB on PCIe (NVIDIA/nccl
     * src/graph/paths.cc, ncclTopoCheckP2p: p2pLevel = PATH_PXB since 2.23.4; nvidia-smi's NODE crosses the CPU and
     * counts as PHB).
     */
    public static boolean p2pByDefault(String path) {
        return path == null || path.equals("NV") || path.equals("PIX") || path.equals("PXB");
    }

    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof HostPlacement p && sockets == p.sockets
                && Double.compare(interference, p.interference) == 0 && socketsGiven == p.socketsGiven
                && transportGiven == p.transportGiven && Double.compare(busbwGbps, p.busbwGbps) == 0
                && Double.compare(oneWayGain, p.oneWayGain) == 0 && java.util.Objects.equals(gpuPath, p.gpuPath)
                && java.util.Objects.equals(transport, p.transport) && java.util.Objects.equals(origin, p.origin);
    }

    @Override
    public int hashCode() {
        int h = sockets;
        h = 31 * h + java.util.Objects.hashCode(gpuPath);
        h = 31 * h + java.util.Objects.hashCode(transport);
        h = 31 * h + Double.hashCode(interference);
        h = 31 * h + java.util.Objects.hashCode(origin);
        h = 31 * h + Boolean.hashCode(socketsGiven);
        h = 31 * h + Boolean.hashCode(transportGiven);
        h = 31 * h + Double.hashCode(busbwGbps);
        return 31 * h + Double.hashCode(oneWayGain);
    }
}
