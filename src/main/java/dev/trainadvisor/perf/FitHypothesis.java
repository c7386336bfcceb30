package dev.trainadvisor.perf;

import java.util.Locale;

/**
 * What may have gone wrong in a run, as {@link Fit} weighs it: nothing beyond the model's ordinary spread, one
 * fitted quantity far off its expected value (a fault), or several at once.
 */
public enum FitHypothesis {
    /** Every quantity within its ordinary spread around the catalogue. */
    NOMINAL(null),
    /** The GEMMs and attention run far from the GPU's benchmarks: clocks, power, thermals, slow kernels. */
    COMPUTE_SCALE(FitParam.COMPUTE_SCALE),
    /** The link inside the node delivers far from its rating: P2P off, traffic through host memory or sockets. */
    INTRA_NODE_BUSBW(FitParam.INTRA_NODE_BUSBW),
    /** The network delivers far from its rating: no RDMA, the wrong NIC, a degraded port. */
    INTER_NODE_GBPS(FitParam.INTER_NODE_GBPS),
    /** Communication that should hide behind compute does not. */
    OVERLAP_FRACTION(FitParam.OVERLAP_FRACTION),
    /** More than one of them at once. */
    SEVERAL(null);

    private final FitParam param;

    FitHypothesis(FitParam param) { this.param = param; }

    /** The quantity this hypothesis lets move far, or null for NOMINAL and SEVERAL. */
    public FitParam param() { return param; }

    /** Whether this hypothesis lets {@code p} move beyond its ordinary spread. */
    public boolean frees(FitParam p) { return this == SEVERAL || param == p; }

    private final String key = name().toLowerCase(Locale.ROOT).replace('_', '-');
    public String key() { return key; }

    public static FitHypothesis of(FitParam p) {
        for (FitHypothesis h : values()) if (h.param == p) return h;
        throw new IllegalArgumentException(p.toString());
    }
}
