package dev.trainadvisor.ingest;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
 *
 * <p>Storage: a log holds up to millions of steps and a dozen metrics, so there is no map per step. Each step gets a
 * row (in the order steps are first seen; {@link StepIndex} finds a step's row) and each metric a column of doubles
 * indexed by row, NaN where the step has no value (only finite values are stored, so NaN is free to mean "absent").
 */
final class StepSeries {
    /** Run-file metric names that are medians of per-step values; every other key a parser records goes to extra. */
    static final Set<String> MEDIAN_METRICS = Set.of("tokens_per_gpu_per_s", "step_time_s", "fwd_bwd_time_s",
            "optimizer_time_s", "tflops_per_gpu", "mfu", "loss_scale");
    static final List<String> PACE = List.of("step_time_s", "tokens_per_gpu_per_s", "tflops_per_gpu");
    static final double SETTLE_TOLERANCE = 0.05;

    private final StepIndex index = new StepIndex();
    /** Metric names and their columns, in the order first recorded; a dozen at most, found by a linear search. */
    private final List<String> names = new ArrayList<>();
    private final List<double[]> columns = new ArrayList<>();
    /** Rows allocated in every column (columns grow together). */
    private int capacity = 64;

    /** Records a finite value for a step; the first value of a metric for a step wins. */
    void put(long step, String key, double value) {
        if (!Double.isFinite(value)) return;
        store(step, key, value);
    }

    /**
     * Like {@link #put} but keeps an infinite value too: a value derived from others (MegatronCore.deriveTokens) is
     * stored as computed, and the medians skip what is not finite.
     */
    void putDerived(long step, String key, double value) {
        if (Double.isNaN(value)) return;
        store(step, key, value);
    }

    private void store(long step, String key, double value) {
        int row = row(step);
        double[] c = column(key, true);
        if (Double.isNaN(c[row])) c[row] = value;
    }

    /** Marks a step as seen even when it carries no value. */
    void touch(long step) {
        row(step);
    }

    /** The row of {@code step}, added (with no values) when new. */
    private int row(long step) {
        int row = index.rowOf(step, true);
        if (row >= capacity) grow();
        return row;
    }

    private void grow() {
        capacity *= 2;
        for (int k = 0; k < columns.size(); k++) columns.set(k, extend(columns.get(k), capacity));
    }

    private static double[] extend(double[] c, int capacity) {
        double[] d = Arrays.copyOf(c, capacity);
        Arrays.fill(d, c.length, capacity, Double.NaN);
        return d;
    }

    /** The column of {@code key}, or null when absent and not {@code create}. */
    private double[] column(String key, boolean create) {
        for (int k = 0; k < names.size(); k++) {
            String n = names.get(k);
            // parsers pass string constants: identity is the common hit
            if (n == key || n.equals(key)) return columns.get(k);
        }
        if (!create) return null;
        double[] c = new double[capacity];
        Arrays.fill(c, Double.NaN);
        names.add(key);
        columns.add(c);
        return c;
    }

    boolean has(long step) { return index.rowOf(step, false) >= 0; }

    boolean has(long step, String key) {
        return get(step, key) != null;
    }

    Double get(long step, String key) {
        int row = index.rowOf(step, false);
        double[] c = column(key, false);
        return row < 0 || c == null || Double.isNaN(c[row]) ? null : c[row];
    }

    /** Steps seen (with or without values). */
    int size() { return index.size(); }

    /** The largest step number seen, or -1. */
    long lastStep() { return index.size() == 0 ? -1 : index.maxStep(); }

    /** The step numbers seen, in ascending order. */
    long[] steps() {
        int[] order = index.rowsInStepOrder();
        long[] out = new long[order.length];
        for (int i = 0; i < order.length; i++) out[i] = index.step(order[i]);
        return out;
    }

    /** The values of {@code key} in the order of {@link #steps()}, NaN where a step has none. */
    double[] values(String key) {
        return inStepOrder(column(key, false));
    }

    /** Like {@link #values} and removes the metric (parsers' temporary keys). */
    double[] remove(String key) {
        double[] c = column(key, false);
        if (c != null) {
            int k = names.indexOf(key);
            names.remove(k);
            columns.remove(k);
        }
        return inStepOrder(c);
    }

    private double[] inStepOrder(double[] c) {
        int[] order = index.rowsInStepOrder();
        double[] out = new double[order.length];
        for (int i = 0; i < order.length; i++) out[i] = c == null ? Double.NaN : c[order[i]];
        return out;
    }

    /** Copies every value of {@code other} into this series (values already here win). */
    void mergeFrom(StepSeries other) {
        int[] order = other.index.rowsInStepOrder();
        for (int row : order) touch(other.index.step(row));
        for (int k = 0; k < other.names.size(); k++) {
            String key = other.names.get(k);
            double[] c = other.columns.get(k);
            for (int row : order) if (!Double.isNaN(c[row])) put(other.index.step(row), key, c[row]);
        }
    }

    /** The steady-state medians and how many steps they were taken over. */
    record Summary(int stepsWithValues, List<Long> steady, Map<String, Double> medians, List<String> warnings) {}

    Summary summarize() {
        // ids: the rows of the steps that carry a value, in step order
        int[] order = index.rowsInStepOrder();
        boolean[] valued = new boolean[order.length == 0 ? 0 : capacity];
        for (double[] c : columns) for (int row : order) if (!Double.isNaN(c[row])) valued[row] = true;
        int[] ids = new int[order.length];
        int n = 0;
        for (int row : order) if (valued[row]) ids[n++] = row;
        List<String> warnings = new ArrayList<>();
        if (n == 0) return new Summary(0, List.of(), Map.of(), warnings);
        int drop = 0;
        if (n == 1) {
            warnings.add("only one step was logged (step " + index.step(ids[0]) + "): its values may include warm-up");
        } else {
            drop = Math.min(10, Math.max(1, n / 10));
            double[] pace = null;
            for (String k : PACE) {
                double[] c = column(k, false);
                if (c != null && count(c, ids, 0, n) > 0) {
                    pace = c;
                    break;
                }
            }
            if (pace != null) {
                double ref = median(pace, ids, n / 2, n);
                while (drop < n / 2 && Double.isFinite(ref) && ref != 0) {
                    double v = pace[ids[drop]];
                    if (Double.isNaN(v) || Math.abs(v - ref) <= SETTLE_TOLERANCE * Math.abs(ref)) break;
                    drop++;
                }
            }
        }
        Map<String, Double> medians = new LinkedHashMap<>();
        for (int k = 0; k < names.size(); k++) {
            double[] c = columns.get(k);
            if (count(c, ids, 0, n) == 0) continue;
            double med = count(c, ids, drop, n) > 0 ? median(c, ids, drop, n) : median(c, ids, 0, n);
            if (Double.isFinite(med)) medians.put(names.get(k), med);
        }
        long[] steady = new long[n - drop];
        for (int i = drop; i < n; i++) steady[i - drop] = index.step(ids[i]);
        return new Summary(n, new LongList(steady), medians, warnings);
    }

    /** How many of rows {@code ids[from..to)} have a value in column {@code c}. */
    private static int count(double[] c, int[] ids, int from, int to) {
        int m = 0;
        for (int i = from; i < to; i++) if (!Double.isNaN(c[ids[i]])) m++;
        return m;
    }

    /** Median of the finite values of column {@code c} over rows {@code ids[from..to)}. */
    private static double median(double[] c, int[] ids, int from, int to) {
        double[] v = new double[to - from];
        int m = 0;
        for (int i = from; i < to; i++) {
            double x = c[ids[i]];
            if (Double.isFinite(x)) v[m++] = x;
        }
        return Num.median(v, m);
    }

    /** An unmodifiable List&lt;Long&gt; over a long[]: the steady steps without a boxed copy of each. */
    private static final class LongList extends AbstractList<Long> {
        private final long[] values;

        LongList(long[] values) { this.values = values; }

        @Override
        public Long get(int i) { return values[i]; }

        @Override
        public int size() { return values.length; }
    }
}
