package dev.trainadvisor.facts;

import dev.trainadvisor.perf.LinkScope;

/**
 * A link of the cluster as the baseline step runs on it: the intra-node link (all-reduce bus bandwidth per GPU) or the
 * network (what one node pushes into it), where that figure comes from, and what the catalogue expects of it. The
 * cluster's configuration itself is the typed run's (spec.Cluster); this is what the model and the fit make of it.
 *
 * @param link          the catalogue key of the link or network ("PCIe4", "IB-HDR100")
 * @param gbps          the bandwidth the baseline step runs at: intra-node bus bandwidth, GB/s; across nodes, GB/s per
 *                      node (NICs x line rate x efficiency)
 * @param source        where {@code gbps} comes from: the catalogue, the run's measurement, or the fit to its times
 * @param catalogueGbps what the catalogue expects of the link on this host (shared memory across two sockets: 10 GB/s
 *                      on a PCIe4 node, not the 20 of peer-to-peer; spec.IntraNodeLink#expectedBusbwGbps), so that a
 *                      measured 9-10 GB/s there is no fault
 * @param shmGbps       inside a node, what NCCL's shared-memory transport gives on this host (peer-to-peer off,
 *                      knowledge-base/transports.json); NaN across nodes
 * @param socketGbps    inside a node, what its socket transport gives; NaN across nodes
 */
public record LinkFact(LinkScope scope, String link, double gbps, BandwidthSource source, double catalogueGbps,
                       double shmGbps, double socketGbps) {

    /** The bandwidth over the catalogue's. */
    public double ratio() { return gbps / catalogueGbps; }
}
