package dev.trainadvisor.spec;

/**
 * Where a run trains: the GPU, how many, what joins them, and the host they hang off.
 *
 * @param interNode    null for a single-node cluster
 * @param nvlinkDomain GPUs joined by the intra-node link across nodes: a GB200 NVL72 rack's 72 GPUs in trays (nodes) of
 *                     4 share one NVLink switch fabric; an HGX or DGX node is its own domain (its GPUs per node)
 * @param host         a node's host (cluster.host, cluster.host_memory_gb): what offload's optimizer and copies run on;
 *                     the catalogue's default, marked assumed, where the run names none
 */
public record Cluster(String name, Gpu gpu, int nodes, int gpusPerNode, IntraNodeLink intraNode, Network interNode,
                      int nvlinkDomain, Host host) {

    public Cluster {
        if (nvlinkDomain < gpusPerNode || nvlinkDomain % gpusPerNode != 0)
            throw new IllegalArgumentException("nvlink domain " + nvlinkDomain + " is not a multiple of " + gpusPerNode);
        if (host == null) host = Hosts.builtIn().defaultHost();
    }

    /** A cluster on the default host. */
    public Cluster(String name, Gpu gpu, int nodes, int gpusPerNode, IntraNodeLink intraNode, Network interNode,
                   int nvlinkDomain) {
        this(name, gpu, nodes, gpusPerNode, intraNode, interNode, nvlinkDomain, null);
    }

    /** A cluster whose NVLink (or PCIe) domain is the node, on the default host. */
    public Cluster(String name, Gpu gpu, int nodes, int gpusPerNode, IntraNodeLink intraNode, Network interNode) {
        this(name, gpu, nodes, gpusPerNode, intraNode, interNode, gpusPerNode, null);
    }

    public int gpus() { return nodes * gpusPerNode; }

    /** The same cluster with another intra-node link (a fitted or measured bandwidth). */
    public Cluster withIntraNode(IntraNodeLink link) {
        return new Cluster(name, gpu, nodes, gpusPerNode, link, interNode, nvlinkDomain, host);
    }

    /** The same cluster with another network. */
    public Cluster withInterNode(Network network) {
        return new Cluster(name, gpu, nodes, gpusPerNode, intraNode, network, nvlinkDomain, host);
    }

    /** The same cluster on another host. */
    public Cluster withHost(Host h) {
        return new Cluster(name, gpu, nodes, gpusPerNode, intraNode, interNode, nvlinkDomain, h);
    }

    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Cluster c && nodes == c.nodes && gpusPerNode == c.gpusPerNode
                && nvlinkDomain == c.nvlinkDomain && java.util.Objects.equals(name, c.name)
                && java.util.Objects.equals(gpu, c.gpu) && java.util.Objects.equals(intraNode, c.intraNode)
                && java.util.Objects.equals(interNode, c.interNode) && java.util.Objects.equals(host, c.host);
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(name);
        h = 31 * h + java.util.Objects.hashCode(gpu);
        h = 31 * h + nodes;
        h = 31 * h + gpusPerNode;
        h = 31 * h + java.util.Objects.hashCode(intraNode);
        h = 31 * h + java.util.Objects.hashCode(interNode);
        h = 31 * h + nvlinkDomain;
        return 31 * h + java.util.Objects.hashCode(host);
    }
}
