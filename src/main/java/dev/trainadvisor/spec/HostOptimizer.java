package dev.trainadvisor.spec;

import java.util.NavigableMap;

/**
 * An optimizer that runs on the host when offload moves it there (knowledge-base/hosts.json, host_optimizers): its rate
 * in one process by threads, the host memory it moves a parameter, and what ranks that share the cores unbound lose.
 * Measured on the H200 machine's host (bench/h200_host_adam.py).
 *
 * @param paramsPerSByThreads fp32 parameters a second of one process, by its threads; held at the last beyond it
 * @param triadBytesPerParam  the node's triad bandwidth over its saturated rate: bytes of triad a parameter costs
 * @param unboundShare        ranks unbound on the same cores, by oversubscription (ranks x threads / cores): their
 *                            rate over the bound rate
 */
public record HostOptimizer(String key, String description, NavigableMap<Double, Double> paramsPerSByThreads,
                            double triadBytesPerParam, NavigableMap<Double, Double> unboundShare, String source) {

    /** One process's rate with {@code threads} threads, interpolated in the measured table. */
    public double paramsPerS(double threads) { return interpolate(paramsPerSByThreads, threads); }

    /** The share of the bound rate that unbound ranks get at {@code oversubscription} (1 at most once). */
    public double unboundShare(double oversubscription) {
        return oversubscription <= 1 ? 1 : interpolate(unboundShare, oversubscription);
    }

    static double interpolate(NavigableMap<Double, Double> t, double x) {
        if (x <= t.firstKey()) return t.firstEntry().getValue() * (t.firstKey() > 0 ? Math.max(x, 0) / t.firstKey() : 1);
        if (x >= t.lastKey()) return t.lastEntry().getValue();
        var lo = t.floorEntry(x);
        var hi = t.ceilingEntry(x);
        if (lo.getKey().equals(hi.getKey())) return lo.getValue();
        double f = (x - lo.getKey()) / (hi.getKey() - lo.getKey());
        return lo.getValue() + f * (hi.getValue() - lo.getValue());
    }
}
