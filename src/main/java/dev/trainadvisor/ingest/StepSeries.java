package dev.trainadvisor.ingest;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Per-step values of one log, merged over ranks, and the steady-state medians the parsers report.
 *
 * <p>De-duplication: a step is keyed by its number; when several ranks (or a restarted run) print the same step,
 * the first value printed for each metric is kept and later ones are ignored (log-formats.md section 0.6).
 *
 * <p>Warm-up rule (the same for every format), over the steps that carry at least one value, in step order:
 * <ol>
 *   <li>with one step only, it is kept (and a warning says the warm-up could not be dropped);</li>
 *   <li>otherwise the first {@code d = min(10, max(1, floor(n / 10)))} steps are dropped (10% of the steps, at least 1,
 *       at most 10);</li>
 *   <li>then, while fewer than {@code floor(n / 2)} steps are dropped, the next step is dropped too if its pace
 *       differs by more than 5% from the median pace of the second half of the steps (steps {@code floor(n/2)..n-1}),
 *       i.e. the steps before the median settles. The pace is the first of step_time_s, tokens_per_gpu_per_s,
 *       tflops_per_gpu that the log has.</li>
 * </ol>
 * Each metric is the median over the steady steps that have it; a metric that only warm-up steps have is the median
 * over all steps that have it.
 */
final class StepSeries {
    /** Run-file metric names that are medians of per-step values; every other key a parser records goes to extra. */
    static final Set<String> MEDIAN_METRICS = Set.of("tokens_per_gpu_per_s", "step_time_s", "fwd_bwd_time_s",
            "optimizer_time_s", "tflops_per_gpu", "mfu", "loss_scale");
    static final List<String> PACE = List.of("step_time_s", "tokens_per_gpu_per_s", "tflops_per_gpu");
    static final double SETTLE_TOLERANCE = 0.05;

    private final TreeMap<Long, Map<String, Double>> steps = new TreeMap<>();

    /** Records a finite value for a step; the first value of a metric for a step wins. */
    void put(long step, String key, double value) {
        if (!Double.isFinite(value)) return;
        steps.computeIfAbsent(step, k -> new HashMap<>()).putIfAbsent(key, value);
    }

    /** Marks a step as seen even when it carries no value. */
    void touch(long step) {
        steps.computeIfAbsent(step, k -> new HashMap<>());
    }

    boolean has(long step) { return steps.containsKey(step); }

    boolean has(long step, String key) {
        Map<String, Double> m = steps.get(step);
        return m != null && m.containsKey(key);
    }

    Double get(long step, String key) {
        Map<String, Double> m = steps.get(step);
        return m == null ? null : m.get(key);
    }

    /** Visits every step in order with its (mutable) values. */
    void forEach(java.util.function.BiConsumer<Long, Map<String, Double>> visitor) {
        steps.forEach(visitor);
    }

    /** Steps seen (with or without values). */
    int size() { return steps.size(); }

    /** The largest step number seen, or -1. */
    long lastStep() { return steps.isEmpty() ? -1 : steps.lastKey(); }

    /** Copies every value of {@code other} into this series (values already here win). */
    void mergeFrom(StepSeries other) {
        other.steps.forEach((step, m) -> {
            touch(step);
            m.forEach((k, v) -> put(step, k, v));
        });
    }

    /** The steady-state medians and how many steps they were taken over. */
    record Summary(int stepsWithValues, List<Long> steady, Map<String, Double> medians, List<String> warnings) {}

    Summary summarize() {
        List<Long> ids = new ArrayList<>();
        steps.forEach((step, m) -> { if (!m.isEmpty()) ids.add(step); });
        int n = ids.size();
        List<String> warnings = new ArrayList<>();
        if (n == 0) return new Summary(0, List.of(), Map.of(), warnings);
        int drop = 0;
        if (n == 1) {
            warnings.add("only one step was logged (step " + ids.get(0) + "): its values may include warm-up");
        } else {
            drop = Math.min(10, Math.max(1, n / 10));
            String pace = null;
            for (String k : PACE) {
                for (Long id : ids) if (steps.get(id).containsKey(k)) { pace = k; break; }
                if (pace != null) break;
            }
            if (pace != null) {
                List<Double> half = new ArrayList<>();
                for (int i = n / 2; i < n; i++) {
                    Double v = steps.get(ids.get(i)).get(pace);
                    if (v != null) half.add(v);
                }
                double ref = Num.median(half);
                while (drop < n / 2 && Double.isFinite(ref) && ref != 0) {
                    Double v = steps.get(ids.get(drop)).get(pace);
                    if (v == null || Math.abs(v - ref) <= SETTLE_TOLERANCE * Math.abs(ref)) break;
                    drop++;
                }
            }
        }
        List<Long> steady = ids.subList(drop, n);
        Set<String> keys = new LinkedHashSet<>();
        for (Long id : ids) keys.addAll(steps.get(id).keySet());
        Map<String, Double> medians = new LinkedHashMap<>();
        for (String k : keys) {
            List<Double> vs = new ArrayList<>();
            for (Long id : steady) {
                Double v = steps.get(id).get(k);
                if (v != null) vs.add(v);
            }
            if (vs.isEmpty()) for (Long id : ids) {
                Double v = steps.get(id).get(k);
                if (v != null) vs.add(v);
            }
            double med = Num.median(vs);
            if (Double.isFinite(med)) medians.put(k, med);
        }
        return new Summary(n, List.copyOf(steady), medians, warnings);
    }
}
