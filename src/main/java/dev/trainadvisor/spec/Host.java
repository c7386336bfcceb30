package dev.trainadvisor.spec;

/**
 * A node's host as offload meets it ({@code cluster.host}, knowledge-base/hosts.json): its CPU cores, its memory
 * bandwidth as a STREAM triad reaches it, and its memory.
 *
 * @param key                 the catalogue's key, or null for a host the run file describes
 * @param memoryBandwidthGbps the node's host memory bandwidth, GB/s, as a STREAM triad counts it
 * @param memoryGb            the node's host memory, GB ({@code cluster.host_memory_gb} wins)
 * @param assumed             the run did not name its host: the catalogue's default stands in, and the report says so
 */
public record Host(String key, int cores, double memoryBandwidthGbps, double memoryGb, String source, boolean assumed) {

    /** How the advice names it: "dgx-h100 (112 cores, 461 GB/s)". */
    public String label() {
        String what = String.format(java.util.Locale.ROOT, memoryBandwidthGbps < 100 ? "%d cores, %.1f GB/s" : "%d cores, %.0f GB/s",
                cores, memoryBandwidthGbps);
        return key == null ? what : key + " (" + what + ")";
    }

    /** Whether the run says how much host memory a node has: the file's, or that of the catalogue host it names. */
    public boolean memoryKnown() { return !Double.isNaN(memoryGb); }

    /** The same host with {@code gb} of memory. */
    public Host withMemoryGb(double gb) { return new Host(key, cores, memoryBandwidthGbps, gb, source, assumed); }

    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Host h && cores == h.cores
                && Double.compare(memoryBandwidthGbps, h.memoryBandwidthGbps) == 0
                && Double.compare(memoryGb, h.memoryGb) == 0 && assumed == h.assumed
                && java.util.Objects.equals(key, h.key) && java.util.Objects.equals(source, h.source);
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(key);
        h = 31 * h + cores;
        h = 31 * h + Double.hashCode(memoryBandwidthGbps);
        h = 31 * h + Double.hashCode(memoryGb);
        h = 31 * h + java.util.Objects.hashCode(source);
        return 31 * h + Boolean.hashCode(assumed);
    }
}
