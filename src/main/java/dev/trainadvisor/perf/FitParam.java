package dev.trainadvisor.perf;

import java.util.Locale;

/** The quantities {@link Fit} estimates from a run's measured times, in the units reports print them in. */
public enum FitParam {
    /** GEMM and attention throughput over the default efficiency of the GPU. */
    COMPUTE_SCALE("x"),
    /** All-reduce bus bandwidth of the link between GPUs of a node. */
    INTRA_NODE_BUSBW("GB/s"),
    /** What one node pushes into the network. */
    INTER_NODE_GBPS("GB/s per node"),
    /** The share of a compute window that hides the collectives overlapped with it. */
    OVERLAP_FRACTION("fraction");

    public final String unit;

    FitParam(String unit) { this.unit = unit; }

    private final String key = name().toLowerCase(Locale.ROOT).replace('_', '-');
    public String key() { return key; }

    /** Whether the parameter is the bandwidth of a link. */
    public boolean isLink() { return this == INTRA_NODE_BUSBW || this == INTER_NODE_GBPS; }
}
