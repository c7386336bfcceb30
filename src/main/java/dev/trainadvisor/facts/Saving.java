package dev.trainadvisor.facts;

import java.util.List;
import java.util.Locale;

/**
 * What one change would save of the step, priced by the step model from the same baseline as every recommendation
 * (perf.Baseline): the seconds per phase of the step that the change removes.
 *
 * @param byPhase seconds saved per phase (only phases that get shorter)
 * @param fits    whether the changed run fits in the GPU's memory
 */
public record Saving(Kind kind, double seconds, List<Claim> byPhase, boolean fits) {

    public Saving {
        byPhase = List.copyOf(byPhase);
    }

    /** A change after which the run fits. */
    public Saving(Kind kind, double seconds, List<Claim> byPhase) { this(kind, seconds, byPhase, true); }

    /**
     * The changes the step model prices for the rules to weigh: the fit's quantities restored (Java, from the fit), and
     * the levers of rules/levers.drl.
     */
    public enum Kind {
        /** The fitted compute scale back at 1. */
        RESTORE_COMPUTE_SCALE,
        /** The intra-node link back at its expected bandwidth. */
        RESTORE_INTRA_NODE_BUSBW,
        /** The network back at its expected bandwidth. */
        RESTORE_INTER_NODE_GBPS,
        /** The overlap fraction back at its expected value. */
        RESTORE_OVERLAP_FRACTION,
        /** overlap_grad_reduce switched on. */
        OVERLAP_GRAD_REDUCE,
        /** overlap_param_gather switched on. */
        OVERLAP_PARAM_GATHER,
        /** FlashAttention-2 instead of the run's attention kernel. */
        FLASH_ATTENTION_2,
        /** Fused element-wise kernels instead of eager ones. */
        FUSED_ELEMENTWISE,
        /** The forward and backward replayed from CUDA graphs instead of launched kernel by kernel. */
        CUDA_GRAPHS,
        /** The optimizer's update as one fused kernel instead of PyTorch's foreach kernels. */
        FUSED_OPTIMIZER,
        /** Adam's states, the master weights and the gradients offloaded to the host (a run that does not fit). */
        OPTIMIZER_OFFLOAD,
        /** Every fitted quantity back at its expected value: the fitted step against the catalogue's. */
        CATALOGUE;

        /** The saving that puts {@code p} back at its expected value. */
        public static Kind restoring(dev.trainadvisor.perf.FitParam p) {
            return switch (p) {
                case COMPUTE_SCALE -> RESTORE_COMPUTE_SCALE;
                case INTRA_NODE_BUSBW -> RESTORE_INTRA_NODE_BUSBW;
                case INTER_NODE_GBPS -> RESTORE_INTER_NODE_GBPS;
                case OVERLAP_FRACTION -> RESTORE_OVERLAP_FRACTION;
            };
        }

        private final String key = name().toLowerCase(Locale.ROOT).replace('_', '-');
        public String key() { return key; }
    }

    /** The seconds saved of one phase. */
    public double of(String phase) {
        double s = 0;
        for (Claim c : byPhase) if (c.phase().equals(phase)) s += c.seconds();
        return s;
    }

    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Saving s && Double.compare(seconds, s.seconds) == 0 && fits == s.fits
                && java.util.Objects.equals(kind, s.kind) && java.util.Objects.equals(byPhase, s.byPhase);
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(kind);
        h = 31 * h + Double.hashCode(seconds);
        h = 31 * h + java.util.Objects.hashCode(byPhase);
        return 31 * h + Boolean.hashCode(fits);
    }
}
