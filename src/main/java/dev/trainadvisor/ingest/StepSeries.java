package dev.trainadvisor.ingest;

import dev.trainadvisor.history.StepHistory;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Per-step values of one log, merged over ranks, in bounded memory; the steady-state medians the parsers report and
 * the {@link StepHistory} they carry.
 *
 * <p>De-duplication: a step is keyed by its number; when several ranks (or a restarted run) print the same step,
 * the first value printed for each metric is kept and later ones are ignored (docs/logs.md (Formats)), except
 * for the columns that keep the largest value of a step ({@link #putMax}: memory, over the ranks that report it).
 *
 * <p>Bounded memory: a log holds up to billions of steps, so there is no map per step. Each step gets a row (in the
 * order steps are first seen; {@link StepIndex} finds a step's row) and each metric a column of doubles indexed by row,
 * NaN where the step has no value (only finite values are stored, so NaN is free to mean "absent"). At most
 * {@code maxRows} rows ({@link StepHistory#MAX_ROWS}) are kept: when a new step would need one more, the rows are
 * sorted by step and neighbours merged into entries of {@code stride} steps (the stride doubles as often as needed to
 * leave at most half the rows): a column's entry is the mean of its steps' values (weighted by how many had one),
 * except the slowest rank of a timer ({@link #TIMER_MAX}), which keeps the largest. A step printed again that falls in
 * a merged entry is taken as a duplicate and ignored (its first values are in the entry already). Beyond
 * {@code maxRows} steps the medians are therefore medians of the means of {@code stride} consecutive steps, not of
 * single steps: close for a steady run, smoother than the exact median where the pace varies from step to step.
 *
 * <p>Warm-up rule (the same for every format), over the entries that carry a metric (not only history: loss,
 * learning rate, ...), in step order, n of them:
 * <ol>
 *   <li>with one entry only, it is kept (and a warning says the warm-up could not be dropped);</li>
 *   <li>by iteration number: when the log begins at the start of training (its first step is at most 10 logging
 *       intervals, the interval being the smallest step gap), the entries of the first {@code d} intervals are dropped,
 *       {@code d = min(10, max(1, floor(n / 10)))} (10% of the entries, at least 1, at most 10). A log resumed later
 *       (iteration 122 of a run that logs every iteration) has no warm-up by number: its first steps are dropped only
 *       if the pace says so (4 below). Without step numbers ({@link #numbered} false: the Trainer's dicts, Composer's
 *       token counts) the first {@code d} entries are dropped ("first steps");</li>
 *   <li>by the learning-rate schedule: when the printed learning rate rises to its peak and the log goes on after the
 *       peak, the entries before the (first) peak are warm-up; a learning rate that rises until the log ends says
 *       nothing (the whole log is in the schedule's warm-up). A printed warm-up length ({@link #lrWarmupEnd}, e.g.
 *       torchtitan's {@code (warmup 200)}) stands for the learning rate where none is printed;</li>
 *   <li>pace settling: then, while fewer than {@code floor(n / 2)} entries are dropped, the next entry is dropped too if
 *       its pace differs by more than 5% from the median pace of the {@value #SETTLE_WINDOW} entries after it (the pace
 *       is the first of step_time_s, tokens_per_gpu_per_s, tflops_per_gpu that the log has): a slow first step after
 *       a (re)start. The reference is local, so a run whose pace changes later (88 s per step, then 126 s) keeps
 *       both regimes; a warning says the pace changed when the medians of the two halves of the steady entries differ
 *       by more than {@code PACE_CHANGE} (20%).</li>
 * </ol>
 * At most {@code floor(n / 2)} entries are dropped in all. Each metric is the median over the steady entries that have
 * it; a metric that only warm-up entries have is the median over all entries that have it.
 */
final class StepSeries {
    /** Run-file metric names that are medians of per-step values; every other key a parser records goes to extra. */
    static final Set<String> MEDIAN_METRICS = Set.of("tokens_per_gpu_per_s", "step_time_s", "fwd_bwd_time_s",
            "optimizer_time_s", "tflops_per_gpu", "mfu", "loss_scale");
    static final List<String> PACE = List.of("step_time_s", "tokens_per_gpu_per_s", "tflops_per_gpu");
    /** Per-step columns that only the history carries (no median, no effect on warm-up). */
    static final String TIMESTAMP = "timestamp_s", LOSS = "loss", GRAD_NORM = "grad_norm", MEMORY = "memory_gb",
            LR = "learning_rate", SKIPPED = "skipped";
    static final Set<String> HISTORY_ONLY = Set.of(TIMESTAMP, LOSS, GRAD_NORM, MEMORY, LR, SKIPPED);
    /**
     * Column-name prefixes of a rank timer's fastest and slowest rank, in seconds. Keys starting with NUL are internal
     * (parsers' temporary columns): no median, and they do not make a step count as carrying a value.
     */
    static final String TIMER_MIN = "\u0000timer-min:", TIMER_MAX = "\u0000timer-max:";
    /** More timers than Megatron prints at its most verbose level; later names are ignored (with a warning). */
    static final int MAX_TIMERS = 40;
    static final double SETTLE_TOLERANCE = 0.05, PACE_CHANGE = 0.20;
    static final int SETTLE_WINDOW = 5;

    private final int maxRows;
    /** First and last step of each row, and how many distinct steps it holds (1 until rows are merged). */
    private long[] first, last;
    private int[] count;
    private int rows;
    /** Rows [0, merged) came out of a merge: sorted by step, ranges of steps; rows [merged, rows) are single steps. */
    private int merged;
    /** Rows [merged, rows): step to row - merged. */
    private StepIndex index = new StepIndex();
    private int stride = 1;
    private long distinct;
    private int capacity;
    private final List<Column> columns = new ArrayList<>();
    private final Map<String, Column> byName = new HashMap<>();
    private boolean timersCut;
    private double firstTimestamp = Double.NaN;
    /** False when the steps are positions (no iteration numbers): warm-up by position ("first steps"). */
    boolean numbered = true;
    /** A printed learning-rate warm-up: steps up to this one are warm-up; -1 when the log prints none. */
    long lrWarmupEnd = -1;

    /** One metric: a value per row; counts of the steps averaged into each row once rows are merged. */
    private static final class Column {
        final String name;
        /** A step keeps its largest value (else its first). */
        final boolean stepMax;
        /** Merged rows keep their largest value (else their mean). */
        final boolean mergeMax;
        double[] v;
        char[] n;

        Column(String name, boolean stepMax, boolean mergeMax, int capacity) {
            this.name = name;
            this.stepMax = stepMax;
            this.mergeMax = mergeMax;
            this.v = nans(capacity);
        }

        /** How many steps row r's value stands for. */
        int weight(int r) {
            return n != null ? n[r] : Double.isNaN(v[r]) ? 0 : 1;
        }
    }

    StepSeries() { this(StepHistory.MAX_ROWS); }

    /** A series that keeps at most {@code maxRows} rows (4 or more; tests use small ones). */
    StepSeries(int maxRows) {
        if (maxRows < 4) throw new IllegalArgumentException("maxRows " + maxRows);
        this.maxRows = maxRows;
        this.capacity = Math.min(64, maxRows);
        first = new long[capacity];
        last = new long[capacity];
        count = new int[capacity];
    }

    private static double[] nans(int n) {
        double[] c = new double[n];
        Arrays.fill(c, Double.NaN);
        return c;
    }

    // ---------------------------------------------------------------- writing

    /** Records a finite value for a step; the first value of a metric for a step wins. */
    void put(long step, String key, double value) {
        if (!Double.isFinite(value)) return;
        int row = row(step, true);
        if (row < 0) return;
        Column c = column(key, true);
        if (c == null) return;
        set(c, row, value);
    }

    /**
     * A value the log printed for a positive quantity (a step time, a rate): one that is not a positive finite number
     * (nan, inf, zero, negative) cannot be a measurement and is dropped, counted by metric with its first steps for a
     * warning ({@link #droppedWarnings}), never silently. {@code printed} false (the log printed no such value) records
     * nothing.
     */
    void putPositive(long step, String key, double value, boolean printed) {
        if (!printed) return;
        if (value > 0 && Double.isFinite(value)) {
            put(step, key, value);
            return;
        }
        Dropped d = dropped.computeIfAbsent(key, k -> new Dropped());
        d.count++;
        if (d.steps.size() < Dropped.STEPS_SHOWN) d.steps.add(step);
        if (Double.isNaN(value)) d.nan++;
        else if (Double.isInfinite(value)) d.infinite++;
        else if (value == 0) d.zero++;
        else d.negative++;
    }

    /** The values of a metric dropped as no measurement, and the first steps they were printed at. */
    private static final class Dropped {
        static final int STEPS_SHOWN = 5;
        long count, nan, infinite, zero, negative;
        final List<Long> steps = new ArrayList<>();
    }

    private final Map<String, Dropped> dropped = new java.util.TreeMap<>();

    /** "3 printed step_time_s values dropped as no measurement (2 nan, 1 zero): steps 4, 9, 12" per metric. */
    List<String> droppedWarnings() {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, Dropped> e : dropped.entrySet()) {
            Dropped d = e.getValue();
            List<String> kinds = new ArrayList<>();
            if (d.nan > 0) kinds.add(d.nan + " nan");
            if (d.infinite > 0) kinds.add(d.infinite + " infinite");
            if (d.zero > 0) kinds.add(d.zero + " zero");
            if (d.negative > 0) kinds.add(d.negative + " negative");
            StringBuilder steps = new StringBuilder();
            for (Long st : d.steps) steps.append(steps.length() == 0 ? "" : ", ").append(st);
            out.add(d.count + " printed " + e.getKey() + (d.count == 1 ? " value" : " values") + " " + ParsedLog.DROPPED + " ("
                    + String.join(", ", kinds) + "): step" + (d.count == 1 ? " " : "s ") + steps
                    + (d.count > d.steps.size() ? " and " + (d.count - d.steps.size()) + " more" : ""));
        }
        return out;
    }

    /** Records a finite value for a step; the largest value of the step wins (memory reported by several ranks). */
    void putMax(long step, String key, double value) {
        if (!Double.isFinite(value)) return;
        int row = row(step, true);
        if (row < 0) return;
        Column c = column(key, true, true, false);
        if (c != null) set(c, row, value);
    }

    /** {@link #put} for a step already seen only: a value that must not make a step of its own. */
    void putIfSeen(long step, String key, double value) {
        if (has(step)) put(step, key, value);
    }

    /** {@link #putMax} for a step already seen only. */
    void putMaxIfSeen(long step, String key, double value) {
        if (has(step)) putMax(step, key, value);
    }

    /** A timer's two columns, found once by name: a parser records thousands of steps of the same timers. */
    static final class Timer {
        final String name;
        /** Made when the first value comes: many timers are printed by one rank and never have a fastest. */
        private Column min, max;

        private Timer(String name) { this.name = name; }
    }

    private final Map<String, Timer> timers = new LinkedHashMap<>();
    private final List<StepHistory.Event> events = new ArrayList<>();
    private final List<StepHistory.MeanTimer> meanTimers = new ArrayList<>();

    /** A timer the log gives only as its mean over the run (the first of a name is kept). */
    void meanTimer(String name, double meanS, long calls, String source) {
        if (meanS >= 0 && Double.isFinite(meanS) && calls > 0 && meanTimers.stream().noneMatch(t -> t.name().equals(name)))
            meanTimers.add(new StepHistory.MeanTimer(name, meanS, calls, source));
    }

    /** The log says the run did {@code kind} after {@code step} (kept up to the history's rows). */
    void event(long step, StepHistory.Kind kind) {
        if (step > 0 && events.size() < StepHistory.MAX_ROWS) events.add(new StepHistory.Event(step, kind));
    }

    /** The timer of this name, created when new; null past {@link #MAX_TIMERS} names (a warning says so). */
    Timer timer(String name) {
        Timer t = timers.get(name);
        if (t != null) return t;
        if (timers.size() >= MAX_TIMERS) {
            timersCut = true;
            return null;
        }
        t = new Timer(name);
        timers.put(name, t);
        return t;
    }

    /**
     * A rank timer of a step, in seconds: the fastest and the slowest rank (NaN for a fastest rank the log does not
     * print: a timer printed by one rank only has its value as the slowest and no fastest).
     */
    void timer(long step, String name, double minS, double maxS) {
        timer(step, timer(name), minS, maxS);
    }

    void timer(long step, Timer t, double minS, double maxS) {
        if (t == null || (!Double.isFinite(minS) && !Double.isFinite(maxS))) return;
        int row = row(step, true);
        if (row < 0) return;
        if (Double.isFinite(minS)) {
            if (t.min == null) t.min = column(TIMER_MIN + t.name, true, false, false);
            set(t.min, row, minS);
        }
        if (Double.isFinite(maxS)) {
            if (t.max == null) t.max = column(TIMER_MAX + t.name, true, false, true);
            set(t.max, row, maxS);
        }
    }

    /** The day the log's first timestamped step was printed (Stamp.date), or null: no step line carried a dated time. */
    java.time.LocalDate printedOn() { return Stamp.date(firstTimestamp); }

    /** When a step's line was printed, as seconds since an epoch; the history counts from the log's first one. */
    void timestamp(long step, double epochSeconds) {
        if (!Double.isFinite(epochSeconds)) return;
        if (Double.isNaN(firstTimestamp)) firstTimestamp = epochSeconds;
        put(step, TIMESTAMP, epochSeconds);
    }

    private static void set(Column c, int row, double value) {
        double old = c.v[row];
        if (Double.isNaN(old) || (c.stepMax && value > old)) {
            c.v[row] = value;
            if (c.n != null) c.n[row] = 1;
        }
    }

    /** Marks a step as seen even when it carries no value. */
    void touch(long step) {
        row(step, true);
    }

    /**
     * Whether this is the first time {@code mark} is set on {@code step} (an iteration line read once, whichever rank
     * printed it first); false too for a step inside a merged entry (seen already).
     */
    boolean firstTime(long step, String mark) {
        int row = row(step, true);
        if (row < 0) return false;
        Column c = column(mark, true);
        if (c == null || !Double.isNaN(c.v[row])) return false;
        c.v[row] = 1;
        if (c.n != null) c.n[row] = 1;
        return true;
    }

    /** Whether the step was seen (a step inside a merged entry counts as seen). */
    boolean has(long step) {
        if (merged > 0 && step <= last[merged - 1]) {
            int e = floor(step);
            return e >= 0 && step <= last[e];
        }
        return index.rowOf(step, false) >= 0;
    }

    /** The value of a step that has a row of its own, or null. */
    Double get(long step, String key) {
        int row = row(step, false);
        Column c = byName.get(key);
        return row < 0 || c == null || Double.isNaN(c.v[row]) ? null : c.v[row];
    }

    /**
     * The row of {@code step} (a new one if {@code add}); -1 when it has none, or when it falls in a merged entry (its
     * values are averaged in already: a later line for it is a duplicate).
     */
    private int row(long step, boolean add) {
        if (merged > 0 && step <= last[merged - 1]) {
            int e = floor(step);
            return e >= 0 && first[e] == step && count[e] == 1 ? e : -1;
        }
        int r = index.rowOf(step, false);
        if (r >= 0) return merged + r;
        if (!add) return -1;
        if (rows == maxRows) {
            compact();
            return row(step, true);
        }
        if (rows == capacity) grow();
        r = merged + index.rowOf(step, true);
        first[r] = last[r] = step;
        count[r] = 1;
        rows++;
        distinct++;
        return r;
    }

    /** The merged row whose first step is the largest at or below {@code step}, or -1. */
    private int floor(long step) {
        int i = Arrays.binarySearch(first, 0, merged, step);
        return i >= 0 ? i : -i - 2;
    }

    private void grow() {
        capacity = (int) Math.min(maxRows, 2L * capacity);
        first = Arrays.copyOf(first, capacity);
        last = Arrays.copyOf(last, capacity);
        count = Arrays.copyOf(count, capacity);
        for (Column c : columns) {
            int old = c.v.length;
            c.v = Arrays.copyOf(c.v, capacity);
            Arrays.fill(c.v, old, capacity, Double.NaN);
            if (c.n != null) c.n = Arrays.copyOf(c.n, capacity);
        }
    }

    /** The column of {@code key} (mean of first values), created when absent and {@code create}. */
    private Column column(String key, boolean create) {
        return column(key, create, false, false);
    }

    private Column column(String key, boolean create, boolean stepMax, boolean mergeMax) {
        Column c = byName.get(key);
        if (c != null || !create) return c;
        c = new Column(key, stepMax, mergeMax, capacity);
        if (merged > 0) c.n = new char[capacity];
        columns.add(c);
        byName.put(key, c);
        return c;
    }

    // ---------------------------------------------------------------- merging rows

    /**
     * Makes room: sorts the single-step rows by step, then merges neighbouring rows into entries of up to {@code stride}
     * steps, the stride doubled until at most half of {@code maxRows} rows are left.
     */
    private void compact() {
        sortSingles();
        int s = Math.max(2, stride);
        while (groups(s) > maxRows / 2) s *= 2;
        merge(s);
    }

    /**
     * Once rows were merged, the single steps since the last merge are merged too (at the same stride), so that every
     * entry but the last covers {@code stride} steps. Summaries call it; nothing changes in a log of fewer steps.
     */
    private void settle() {
        if (merged == 0 || rows == merged) return;
        sortSingles();
        merge(stride);
    }

    /** Merges neighbouring rows (in step order) into entries of up to {@code s} steps. */
    private void merge(int s) {
        for (Column c : columns) {
            if (c.n != null) continue;
            char[] w = new char[capacity];
            for (int r = 0; r < rows; r++) w[r] = (char) c.weight(r);
            c.n = w;
        }
        int out = 0, from = 0;
        long acc = 0;
        for (int r = 0; r < rows; r++) {
            if (acc > 0 && acc + count[r] > s) {
                mergeRows(from, r, out++);
                from = r;
                acc = 0;
            }
            acc += count[r];
        }
        if (rows > 0) mergeRows(from, rows, out++);
        for (int r = out; r < rows; r++) {
            for (Column c : columns) {
                c.v[r] = Double.NaN;
                c.n[r] = 0;
            }
        }
        rows = merged = out;
        stride = s;
        index = new StepIndex();
    }

    /** How many rows merging with stride {@code s} leaves. */
    private int groups(int s) {
        int g = 0;
        long acc = 0;
        for (int r = 0; r < rows; r++) {
            if (acc > 0 && acc + count[r] > s) {
                g++;
                acc = 0;
            }
            acc += count[r];
        }
        return acc > 0 ? g + 1 : g;
    }

    /** Rows [from, to) into row {@code out} (out &lt;= from). */
    private void mergeRows(int from, int to, int out) {
        long steps = 0;
        for (int r = from; r < to; r++) steps += count[r];
        long f = first[from], l = last[to - 1];
        for (Column c : columns) {
            double value = Double.NaN;
            long weight = 0;
            if (c.mergeMax) {
                for (int r = from; r < to; r++) {
                    double v = c.v[r];
                    if (!Double.isNaN(v) && (Double.isNaN(value) || v > value)) value = v;
                    weight += c.n[r];
                }
            } else {
                double sum = 0;
                for (int r = from; r < to; r++) {
                    int w = c.n[r];
                    if (w == 0 || Double.isNaN(c.v[r])) continue;
                    sum += c.v[r] * w;
                    weight += w;
                }
                if (weight > 0) value = sum / weight;
            }
            c.v[out] = value;
            c.n[out] = (char) Math.min(Character.MAX_VALUE, Double.isNaN(value) ? 0 : Math.max(1, weight));
        }
        first[out] = f;
        last[out] = l;
        count[out] = (int) Math.min(Integer.MAX_VALUE, steps);
    }

    /** Puts the single-step rows [merged, rows) in step order (they are already unless steps came out of order). */
    private void sortSingles() {
        int[] order = index.rowsInStepOrder();
        boolean sorted = true;
        for (int k = 0; k < order.length && sorted; k++) sorted = order[k] == k;
        if (sorted) return;
        int n = order.length;
        long[] l = new long[n];
        for (int k = 0; k < n; k++) l[k] = first[merged + order[k]];
        System.arraycopy(l, 0, first, merged, n);
        for (int k = 0; k < n; k++) l[k] = last[merged + order[k]];
        System.arraycopy(l, 0, last, merged, n);
        int[] ci = new int[n];
        for (int k = 0; k < n; k++) ci[k] = count[merged + order[k]];
        System.arraycopy(ci, 0, count, merged, n);
        double[] d = new double[n];
        char[] w = new char[n];
        for (Column c : columns) {
            for (int k = 0; k < n; k++) d[k] = c.v[merged + order[k]];
            System.arraycopy(d, 0, c.v, merged, n);
            if (c.n != null) {
                for (int k = 0; k < n; k++) w[k] = c.n[merged + order[k]];
                System.arraycopy(w, 0, c.n, merged, n);
            }
        }
    }

    // ---------------------------------------------------------------- reading

    /** Distinct steps seen (with or without values). */
    long size() { return distinct; }

    /** Rows kept: one per step up to {@code maxRows} steps, merged entries beyond. */
    int entries() { return rows; }

    /** How many steps each merged entry covers (1 while no row was merged). */
    int stride() { return stride; }

    /** The largest step number seen, or -1. */
    long lastStep() {
        long m = -1;
        if (merged > 0) m = last[merged - 1];
        if (index.size() > 0) m = Math.max(m, index.maxStep());
        return m;
    }

    /** The rows in step order. */
    private int[] order() {
        int[] singles = index.rowsInStepOrder();
        int[] o = new int[merged + singles.length];
        for (int r = 0; r < merged; r++) o[r] = r;
        for (int k = 0; k < singles.length; k++) o[merged + k] = merged + singles[k];
        return o;
    }

    /** The first step of each row, in step order. */
    long[] steps() {
        int[] order = order();
        long[] out = new long[order.length];
        for (int i = 0; i < order.length; i++) out[i] = first[order[i]];
        return out;
    }

    /** The values of {@code key} in the order of {@link #steps()}, NaN where a row has none. */
    double[] values(String key) {
        return inStepOrder(byName.get(key));
    }

    /** Like {@link #values} and removes the metric (parsers' temporary keys). */
    double[] remove(String key) {
        Column c = byName.remove(key);
        if (c != null) columns.remove(c);
        return inStepOrder(c);
    }

    /** Each row's value of {@code from} where it has none of {@code key}; then {@code from} is removed. */
    void fallback(String key, String from) {
        Column src = byName.get(from);
        if (src == null) return;
        Column dst = column(key, true);
        for (int r = 0; r < rows; r++) {
            if (Double.isNaN(dst.v[r]) && !Double.isNaN(src.v[r])) {
                dst.v[r] = src.v[r];
                if (dst.n != null) dst.n[r] = src.n[r];
            }
        }
        byName.remove(from);
        columns.remove(src);
    }

    /** Each row's {@code a + b} where it has both and no {@code key}; then {@code a} and {@code b} are removed. */
    void fallbackSum(String key, String a, String b) {
        Column ca = byName.get(a), cb = byName.get(b);
        if (ca != null && cb != null) {
            Column dst = column(key, true);
            for (int r = 0; r < rows; r++) {
                double v = ca.v[r] + cb.v[r];
                if (Double.isNaN(dst.v[r]) && !Double.isNaN(v)) {
                    dst.v[r] = v;
                    if (dst.n != null) dst.n[r] = (char) Math.min(ca.n[r], cb.n[r]);
                }
            }
        }
        remove(a);
        remove(b);
    }

    /**
     * Every row's value of {@code key} set to {@code factor} times its value of {@code from} (where it has one and none
     * of {@code key}); {@code from} is kept. A rate derived per step, averaged like the others when rows merge.
     */
    void derive(String key, String from, double factor) {
        Column src = byName.get(from);
        if (src == null || !Double.isFinite(factor)) return;
        Column dst = column(key, true);
        for (int r = 0; r < rows; r++) {
            double v = src.v[r] * factor;
            if (Double.isNaN(dst.v[r]) && !Double.isNaN(v)) {
                dst.v[r] = v;
                if (dst.n != null) dst.n[r] = src.n[r];
            }
        }
    }

    private double[] inStepOrder(Column c) {
        int[] order = order();
        double[] out = new double[order.length];
        for (int i = 0; i < order.length; i++) out[i] = c == null ? Double.NaN : c.v[order[i]];
        return out;
    }

    private static boolean internal(String name) {
        return name.charAt(0) == '\u0000';
    }

    /**
     * The steady-state medians and the warm-up.
     *
     * @param valuedEntries entries that carry a metric
     * @param steady        the first step of each steady entry
     * @param steadySteps   the steps the steady entries cover
     * @param warmupEntries history entries before the first steady one, when warm-up was dropped (else 0)
     * @param warmupReason  "iteration number", "learning-rate warm-up", "pace settling", "first steps", or "" for none
     */
    record Summary(int valuedEntries, List<Long> steady, long steadySteps, int warmupEntries, String warmupReason,
                   Map<String, Double> medians, List<String> warnings) {}

    Summary summarize() {
        settle();
        int[] order = order();
        List<Column> metrics = new ArrayList<>();
        for (Column c : columns) if (!internal(c.name) && !HISTORY_ONLY.contains(c.name)) metrics.add(c);
        // ids: the rows that carry a metric, in step order; pos: their place in the history
        int[] ids = new int[order.length], pos = new int[order.length];
        int n = 0;
        for (int i = 0; i < order.length; i++) {
            int row = order[i];
            for (Column c : metrics) {
                if (!Double.isNaN(c.v[row])) {
                    pos[n] = i;
                    ids[n++] = row;
                    break;
                }
            }
        }
        List<String> warnings = new ArrayList<>(droppedWarnings());
        if (timersCut) warnings.add("more than " + MAX_TIMERS + " timer names; the later ones are not kept");
        if (n == 0) return new Summary(0, List.of(), 0, 0, "", Map.of(), warnings);
        Column pace = null;
        for (String k : PACE) {
            Column c = byName.get(k);
            if (c != null && count(c.v, ids, 0, n) > 0) {
                pace = c;
                break;
            }
        }
        int drop = 0;
        String reason = "";
        if (n == 1) {
            warnings.add("only one step was logged (step " + first[ids[0]] + "): its values may include warm-up");
        } else {
            int d = Math.min(10, Math.max(1, n / 10));
            if (!numbered) {
                drop = d;
                reason = "first steps";
            } else {
                double interval = interval(ids, n);
                long start = first[ids[0]];
                if (start <= 10 * interval) {
                    double end = start + d * interval;
                    while (drop < n && first[ids[drop]] < end) drop++;
                    reason = "iteration number";
                }
            }
            int lr = lrWarmup(ids, n);
            if (lr > drop) {
                drop = lr;
                reason = "learning-rate warm-up";
            }
            drop = Math.min(drop, n / 2);
            if (pace != null) {
                while (drop < n / 2) {
                    double v = pace.v[ids[drop]];
                    double ref = median(pace.v, ids, drop + 1, Math.min(n, drop + 1 + SETTLE_WINDOW));
                    if (!Double.isFinite(v) || !Double.isFinite(ref) || ref == 0
                            || Math.abs(v - ref) <= SETTLE_TOLERANCE * Math.abs(ref)) break;
                    drop++;
                    reason = "pace settling";
                }
            }
            if (drop == 0) reason = "";
            if (pace != null) paceChange(pace, ids, drop, n, warnings);
        }
        Map<String, Double> medians = new LinkedHashMap<>();
        for (Column c : metrics) {
            if (count(c.v, ids, 0, n) == 0) continue;
            double med = count(c.v, ids, drop, n) > 0 ? median(c.v, ids, drop, n) : median(c.v, ids, 0, n);
            if (Double.isFinite(med)) medians.put(c.name, med);
        }
        long[] steady = new long[n - drop];
        long steadySteps = 0;
        for (int i = drop; i < n; i++) {
            steady[i - drop] = first[ids[i]];
            steadySteps += count[ids[i]];
        }
        return new Summary(n, new LongList(steady), steadySteps, drop == 0 ? 0 : pos[drop], reason, medians, warnings);
    }

    /** Steps per logged step: the smallest gap between neighbouring entries, per step each holds; 1 when unknown. */
    private double interval(int[] ids, int n) {
        double best = Double.POSITIVE_INFINITY;
        for (int i = 0; i + 1 < n; i++) {
            long gap = first[ids[i + 1]] - first[ids[i]];
            if (gap > 0) best = Math.min(best, (double) gap / count[ids[i]]);
        }
        return Double.isFinite(best) ? Math.max(1, best) : 1;
    }

    /** Entries (of ids[0, n)) in the learning-rate warm-up: before the rate's first peak, when the log goes on after it. */
    private int lrWarmup(int[] ids, int n) {
        if (lrWarmupEnd >= 0) {
            int k = 0;
            while (k < n && last[ids[k]] <= lrWarmupEnd) k++;
            if (k < n) return k;
        }
        Column lr = byName.get(LR);
        if (lr == null) return 0;
        int firstAt = -1, peakAt = -1, lastAt = -1;
        double peak = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            double v = lr.v[ids[i]];
            if (!Double.isFinite(v)) continue;
            if (firstAt < 0) firstAt = i;
            lastAt = i;
            peak = Math.max(peak, v);
        }
        if (firstAt < 0) return 0;
        // the first entry at the peak; merged entries average their steps, so "at" allows for rounding
        for (int i = firstAt; i <= lastAt; i++) {
            double v = lr.v[ids[i]];
            if (Double.isFinite(v) && v >= peak * (1 - 1e-9)) {
                peakAt = i;
                break;
            }
        }
        if (peakAt == firstAt || peakAt == lastAt) return 0;
        return peakAt;
    }

    /** Warns when the pace of the first half of the steady entries differs from the second half's by more than 20%. */
    private void paceChange(Column pace, int[] ids, int from, int n, List<String> warnings) {
        int m = n - from;
        if (m < 4) return;
        int mid = from + m / 2;
        double a = median(pace.v, ids, from, mid), b = median(pace.v, ids, mid, n);
        if (!Double.isFinite(a) || !Double.isFinite(b) || a == 0 || Math.abs(b - a) <= PACE_CHANGE * Math.abs(a)) return;
        warnings.add(String.format(Locale.ROOT, "the pace changed within the steady steps: %s median %s over steps %d-%d,"
                        + " then %s over steps %d-%d (%+.0f%%); the steady median mixes both (the history shows each step)",
                pace.name, Num.shortest(a), first[ids[from]], last[ids[mid - 1]], Num.shortest(b), first[ids[mid]],
                last[ids[n - 1]], 100 * (b - a) / a));
    }

    /**
     * The history: every row in step order, warm-up included; timers in the order first seen. Timestamps count from
     * the log's first.
     */
    StepHistory history(Summary s) {
        int[] order = order();
        int n = order.length;
        if (n == 0) return StepHistory.EMPTY;
        long[] steps = new long[n];
        for (int i = 0; i < n; i++) steps[i] = first[order[i]];
        double[] time = historyColumn("step_time_s", order), stamp = historyColumn(TIMESTAMP, order);
        if (!Double.isNaN(firstTimestamp)) for (int i = 0; i < n; i++) stamp[i] -= firstTimestamp;
        List<StepHistory.RankTimer> timers = new ArrayList<>();
        for (Timer t : this.timers.values())
            timers.add(new StepHistory.RankTimer(t.name, historyColumn(TIMER_MIN + t.name, order),
                    historyColumn(TIMER_MAX + t.name, order)));
        return new StepHistory(steps, stride, time, historyColumn("tokens_per_gpu_per_s", order), stamp,
                historyColumn(LOSS, order), historyColumn("loss_scale", order), historyColumn(GRAD_NORM, order),
                historyColumn(MEMORY, order), historyColumn(LR, order), historyColumn(SKIPPED, order), timers,
                s.warmupEntries(), s.warmupReason(), List.copyOf(events), List.copyOf(meanTimers));
    }

    private double[] historyColumn(String key, int[] order) {
        Column c = byName.get(key);
        double[] out = new double[order.length];
        for (int i = 0; i < order.length; i++) out[i] = c == null ? Double.NaN : c.v[order[i]];
        return out;
    }

    /** How many of rows {@code ids[from..to)} have a value in column {@code c}. */
    private static int count(double[] c, int[] ids, int from, int to) {
        int m = 0;
        for (int i = from; i < to; i++) if (!Double.isNaN(c[ids[i]])) m++;
        return m;
    }

    /** Median of the finite values of column {@code c} over rows {@code ids[from..to)}; NaN when there are none. */
    private static double median(double[] c, int[] ids, int from, int to) {
        if (to <= from) return Double.NaN;
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
