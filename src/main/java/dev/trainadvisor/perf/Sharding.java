package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Parallel;

import java.util.List;

/** By how many ranks each {@link MemoryPart} is divided: the product of what every parallel dimension divides it by. */
public final class Sharding {
    private static final MemoryPart[] PARTS = MemoryPart.values();
    /** By ordinal of the part: built once per prediction, read often. */
    private final double[] divisors = new double[PARTS.length];

    private Sharding(List<ParallelDimension> dimensions, Parallel p) {
        for (MemoryPart part : PARTS) {
            double d = 1;
            for (ParallelDimension dim : dimensions) d *= dim.shards(part, p);
            divisors[part.ordinal()] = d;
        }
    }

    static Sharding of(Parallel p) { return of(ParallelDimension.SHIPPED, p); }

    static Sharding of(List<ParallelDimension> dimensions, Parallel p) { return new Sharding(dimensions, p); }

    public double divisor(MemoryPart part) { return divisors[part.ordinal()]; }

    /**
     * This GPU's share of a model state of {@code params} parameters, {@code experts} of them an MoE's: ZeRO divides the
     * dense ones by {@code state} (WEIGHT_, GRADIENT_ or OPTIMIZER_STATES) and the experts' by its expert twin, over
     * their own copies (DataParallel.expertShardGroup).
     */
    public double stateShare(MemoryPart state, double params, double experts) {
        MemoryPart expert = switch (state) {
            case WEIGHT_STATES -> MemoryPart.EXPERT_WEIGHT_STATES;
            case GRADIENT_STATES -> MemoryPart.EXPERT_GRADIENT_STATES;
            case OPTIMIZER_STATES -> MemoryPart.EXPERT_OPTIMIZER_STATES;
            default -> throw new IllegalArgumentException("not a model state: " + state);
        };
        return (params - experts) / divisor(state) + experts / divisor(expert);
    }
}
