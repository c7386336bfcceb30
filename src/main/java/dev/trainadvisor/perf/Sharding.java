package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Parallel;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** By how many ranks each {@link MemoryPart} is divided: the product of what every parallel dimension divides it by. */
public final class Sharding {
    private final Map<MemoryPart, Double> divisors = new EnumMap<>(MemoryPart.class);

    private Sharding(List<ParallelDimension> dimensions, Parallel p) {
        for (MemoryPart part : MemoryPart.values()) {
            double d = 1;
            for (ParallelDimension dim : dimensions) d *= dim.shards(part, p);
            divisors.put(part, d);
        }
    }

    static Sharding of(Parallel p) { return of(ParallelDimension.SHIPPED, p); }

    static Sharding of(List<ParallelDimension> dimensions, Parallel p) { return new Sharding(dimensions, p); }

    public double divisor(MemoryPart part) { return divisors.get(part); }
}
