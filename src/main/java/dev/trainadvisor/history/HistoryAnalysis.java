package dev.trainadvisor.history;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a run's history shows, computed and not judged: spikes at a fixed period, a change of pace, the spread between
 * the fastest and slowest rank, the data loader's share, the scatter of step times, loss spikes. The rules decide from
 * these which are causes (rules/history.drl, thresholds in facts.Materiality.History).
 *
 * <p>Everything is over the steady entries (after {@link StepHistory#warmupSteps()}), and robust: medians and the
 * median absolute deviation (MAD, scaled by 1.4826 to a normal sigma), so that the spikes one measure looks for do not
 * hide themselves by inflating a mean and a standard deviation.
 */
public final class HistoryAnalysis {
    private HistoryAnalysis() {}

    /** Fewer steady entries than this and the history says nothing. */
    public static final int MIN_ENTRIES = 8;
    /**
     * An entry is a spike when it takes longer than the median by this many robust sigmas and by at least
     * {@link #SPIKE_FLOOR} of the median: 6 sigmas is rarer than 1 in 10^8 for normal scatter, and the floor keeps a
     * run of very even steps from calling a 3% wobble a spike.
     */
    public static final double SPIKE_SIGMAS = 6, SPIKE_FLOOR = 0.25;
    /** At least this many spikes, and this share of the gaps between them a multiple of one period, make a period. */
    public static final int MIN_PERIODIC_SPIKES = 3;
    public static final double PERIODIC_SHARE = 0.75;
    /** Each side of a change of pace holds at least this many entries, and this share of them. */
    public static final int MIN_SIDE = 4;
    public static final double MIN_SIDE_SHARE = 0.1;
    /** A loss above its trailing median of this many entries by {@link #LOSS_SPIKE_RATIO} is a spike. */
    public static final int LOSS_WINDOW = 20;
    public static final double LOSS_SPIKE_RATIO = 1.5;

    /**
     * Durations of the steady entries: the seconds each step took, from the timestamps where the log prints them
     * (what a step's own timer misses, a checkpoint save between steps, shows there), else from the printed step time.
     *
     * @param steps   the step of each entry
     * @param covered the steps each entry stands for (the log interval, or the history's stride)
     * @param seconds seconds per step of each entry
     * @param basis   "timestamps" or "step time"
     */
    public record Durations(long[] steps, double[] covered, double[] seconds, String basis) {
        public int size() { return steps.length; }

        public double median() { return HistoryAnalysis.median(seconds); }

        /** Wall seconds the entries cover. */
        public double wall() {
            double w = 0;
            for (int i = 0; i < seconds.length; i++) w += seconds[i] * covered[i];
            return w;
        }
    }

    public static Durations durations(StepHistory h) {
        int from = steadyFrom(h), n = h.size();
        double[] ts = h.timestampS();
        boolean stamped = n - Math.max(from, 1) >= MIN_ENTRIES;
        for (int i = Math.max(from, 1); i < n && stamped; i++) stamped = Double.isFinite(ts[i]) && Double.isFinite(ts[i - 1]);
        long[] st = new long[n];
        double[] cov = new double[n], sec = new double[n];
        int k = 0;
        for (int i = from; i < n; i++) {
            // an entry stands for the steps since the one before (a log interval, or the history's stride)
            long gap = i > 0 ? h.steps()[i] - h.steps()[i - 1] : 0;
            double covered = gap > 0 ? gap : h.stride();
            double s;
            if (stamped) {
                if (i == 0) continue;    // the first entry has no timestamp before it
                s = (ts[i] - ts[i - 1]) / covered;
            } else {
                s = h.stepTimeS()[i];
            }
            if (!(s > 0) || !Double.isFinite(s)) continue;
            st[k] = h.steps()[i];
            cov[k] = covered;
            sec[k] = s;
            k++;
        }
        return new Durations(Arrays.copyOf(st, k), Arrays.copyOf(cov, k), Arrays.copyOf(sec, k),
                stamped ? "timestamps" : "step time");
    }

    /**
     * Spikes at a fixed period (checkpoint saves, evaluation, garbage collection).
     *
     * @param period     steps between spikes (the most common gap)
     * @param spikeSteps the steps that spiked
     * @param medianS    the median step's seconds
     * @param costS      seconds the spikes take beyond the median, in all
     * @param wallS      wall seconds of the steady steps
     */
    public record Stalls(long period, List<Long> spikeSteps, double medianS, double costS, double wallS, String basis) {
        public double share() { return costS / wallS; }

        public double perSpikeS() { return costS / spikeSteps.size(); }
    }

    /** The periodic spikes of a history, or null when there are none at a period. */
    public static Stalls stalls(StepHistory h) { return of(h).stalls(); }

    /**
     * Everything the step times show, from one reading of them: periodic stalls, a change of pace, the jitter left
     * once both are set aside; each null when the history does not show it (or is too short to say).
     */
    public record Findings(Stalls stalls, PaceChange pace, Jitter jitter) {}

    public static Findings of(StepHistory h) {
        Durations d = durations(h);
        if (d.size() < MIN_ENTRIES) return new Findings(null, null, null);
        boolean[] spike = spikes(d.seconds());
        Stalls stalls = stalls(d, spike);
        PaceChange pace = paceChange(d, spike);
        return new Findings(stalls, pace, jitter(d, stalls == null ? new boolean[d.size()] : spike, pace));
    }

    static Stalls stalls(Durations d, boolean[] spike) {
        List<Long> at = new ArrayList<>();
        double cost = 0, median = d.median();
        for (int i = 0; i < d.size(); i++)
            if (spike[i]) {
                at.add(d.steps()[i]);
                cost += (d.seconds()[i] - median) * d.covered()[i];
            }
        long period = period(at);
        if (period <= 0) return null;
        return new Stalls(period, List.copyOf(at), median, cost, d.wall(), d.basis());
    }

    /** Which entries spike: above the median by {@link #SPIKE_SIGMAS} robust sigmas and {@link #SPIKE_FLOOR} of it. */
    static boolean[] spikes(double[] s) {
        double m = median(s), sigma = 1.4826 * mad(s, m);
        double limit = m + Math.max(SPIKE_SIGMAS * sigma, SPIKE_FLOOR * m);
        boolean[] out = new boolean[s.length];
        for (int i = 0; i < s.length; i++) out[i] = s[i] > limit;
        return out;
    }

    /**
     * The period of spikes at these steps: the most common gap between neighbours, when at least
     * {@link #MIN_PERIODIC_SPIKES} spikes are there and {@link #PERIODIC_SHARE} of the gaps are a whole multiple of it
     * (a spike the log did not print, between two it did); else 0.
     */
    static long period(List<Long> steps) {
        if (steps.size() < MIN_PERIODIC_SPIKES) return 0;
        Map<Long, Integer> gaps = new TreeMap<>();
        for (int i = 1; i < steps.size(); i++) gaps.merge(steps.get(i) - steps.get(i - 1), 1, Integer::sum);
        long best = 0;
        int count = -1;
        for (Map.Entry<Long, Integer> e : gaps.entrySet()) if (e.getValue() > count) { best = e.getKey(); count = e.getValue(); }
        // a period is a gap seen twice or more, longer than one step (two spikes in a row are one long event)
        if (best <= 1 || count < 2) return 0;
        int multiples = 0;
        for (Map.Entry<Long, Integer> e : gaps.entrySet()) if (e.getKey() % best == 0) multiples += e.getValue();
        return multiples >= PERIODIC_SHARE * (steps.size() - 1) ? best : 0;
    }

    /**
     * A change of pace, over the steady entries with their spikes left out: the split that two constant paces fit best
     * (the L1 change point), each side at least {@link #MIN_SIDE} entries and {@link #MIN_SIDE_SHARE} of them; or, where
     * the pace drifts rather than steps, the slowest stretch against the fastest before it ({@link #drift}).
     *
     * @param startStep the first step at the new pace
     */
    public record PaceChange(long startStep, double beforeS, double afterS, int before, int after, String basis) {
        /** after / before - 1: 0.43 is 43% slower. */
        public double change() { return afterS / beforeS - 1; }
    }

    /**
     * Above this many entries the change of pace is looked for among the medians of as many bins: the L1 search is
     * quadratic in them, and a change placed to 1/512 of the run is placed well enough to say when it started.
     */
    static final int PACE_BINS = 512;
    static final double DRIFT_OVER_STEP = 1.25;

    public static PaceChange paceChange(StepHistory h) { return of(h).pace(); }

    static PaceChange paceChange(Durations d, boolean[] spike) {
        int n = 0;
        double[] s = new double[d.size()];
        long[] st = new long[d.size()];
        for (int i = 0; i < d.size(); i++) if (!spike[i]) { s[n] = d.seconds()[i]; st[n] = d.steps()[i]; n++; }
        if (n == 0) return null;
        // a long history: the median of each of PACE_BINS bins, each starting at its first step
        int bin = (int) Math.ceil(n / (double) PACE_BINS);
        int m = (n + bin - 1) / bin;
        double[] v = new double[m];
        long[] at = new long[m];
        for (int b = 0; b < m; b++) {
            v[b] = median(Arrays.copyOfRange(s, b * bin, Math.min(n, (b + 1) * bin)));
            at[b] = st[b * bin];
        }
        int side = Math.max(MIN_SIDE, (int) Math.ceil(MIN_SIDE_SHARE * m));
        if (m < 2 * side) return null;
        // least total absolute deviation from each side's median: a largest gap of medians would place the change
        // anywhere a side's median has already flipped
        int best = -1;
        double bestCost = Double.POSITIVE_INFINITY;
        for (int k = side; k <= m - side; k++) {
            double cost = deviation(Arrays.copyOfRange(v, 0, k)) + deviation(Arrays.copyOfRange(v, k, m));
            if (best < 0 || cost < bestCost - 1e-12 * bestCost) { bestCost = cost; best = k; }
        }
        PaceChange step = new PaceChange(at[best], median(Arrays.copyOfRange(v, 0, best)), median(Arrays.copyOfRange(v, best, m)),
                Math.min(n, best * bin), n - Math.min(n, best * bin), d.basis());
        // a step shows in the windows too, a little larger for their noise: a drift is preferred only where it slows
        // the run a quarter more than the best single step does, so that a step is placed by its change point
        PaceChange drift = drift(v, at, side, bin, n, d.basis());
        return drift != null && drift.change() > DRIFT_OVER_STEP * step.change() ? drift : step;
    }

    /**
     * A pace that drifts rather than steps (clocks sinking as a node heats up): over windows of {@code side} entries,
     * the slowest window's median against the fastest window's before it. It starts at the centre of the first window
     * after the fastest whose median is half-way there. Null when no window is slower than one before it.
     */
    static PaceChange drift(double[] v, long[] at, int side, int bin, int n, String basis) {
        int m = v.length;
        if (m < 2 * side) return null;
        double[] w = new double[m - side + 1];
        for (int i = 0; i < w.length; i++) w[i] = median(Arrays.copyOfRange(v, i, i + side));
        int fast = 0, bestFast = -1, bestSlow = -1;
        double bestRatio = 1;
        for (int j = side; j < w.length; j++) {
            if (w[j - side] < w[fast]) fast = j - side;
            double ratio = w[j] / w[fast];
            if (ratio > bestRatio) { bestRatio = ratio; bestFast = fast; bestSlow = j; }
        }
        if (bestSlow < 0) return null;
        // where the pace is half-way there: the centre of the first window whose median reaches it (for a step, the
        // step itself: a window's median crosses when half of it is past the step)
        double half = w[bestFast] * (1 + (bestRatio - 1) / 2);
        int start = bestSlow + side / 2;
        for (int j = bestFast + 1; j <= bestSlow; j++) if (w[j] >= half) { start = j + side / 2; break; }
        int before = Math.min(n, start * bin);
        return new PaceChange(at[start], w[bestFast], w[bestSlow], before, n - before, basis);
    }

    /**
     * The scatter of step times once periodic spikes and a change of pace are set aside: the robust coefficient of
     * variation (1.4826 MAD / median) within each side of the change, the larger of the two.
     */
    public record Jitter(double robustCv, double p90OverMedian, int entries) {}

    public static Jitter jitter(StepHistory h) { return of(h).jitter(); }

    /** @param stalled the entries the periodic stalls took (none when there is no period) */
    static Jitter jitter(Durations d, boolean[] stalled, PaceChange pc) {
        double[] all = new double[d.size()], before = new double[d.size()], after = new double[d.size()];
        int n = 0, nb = 0, na = 0;
        for (int i = 0; i < d.size(); i++) {
            if (stalled[i]) continue;
            double x = d.seconds()[i];
            all[n++] = x;
            // within each pace: a step change is not jitter
            if (pc != null) {
                if (d.steps()[i] < pc.startStep()) before[nb++] = x;
                else after[na++] = x;
            }
        }
        if (n == 0) return null;
        all = Arrays.copyOf(all, n);
        double cv = pc == null ? cv(all) : Math.max(cv(Arrays.copyOf(before, nb)), cv(Arrays.copyOf(after, na)));
        double[] sorted = all.clone();
        Arrays.sort(sorted);
        double p90 = sorted[(int) Math.min(sorted.length - 1, Math.floor(0.9 * (sorted.length - 1)))];
        return new Jitter(cv, p90 / median(all), n);
    }

    static double cv(double[] s) {
        if (s.length < 2) return 0;
        double m = median(s);
        return 1.4826 * mad(s, m) / m;
    }

    /**
     * A timer's spread over ranks: the median over steady steps of the slowest rank's seconds over the fastest's, and
     * of the seconds between them.
     */
    public record RankSpread(String timer, double maxOverMin, double spreadS, double maxS, int entries) {}

    public static RankSpread spread(StepHistory h, String timer) {
        StepHistory.RankTimer t = h.timer(timer);
        if (t == null) return null;
        List<Double> ratio = new ArrayList<>(), spread = new ArrayList<>(), max = new ArrayList<>();
        for (int i = steadyFrom(h); i < h.size(); i++) {
            double lo = t.minS()[i], hi = t.maxS()[i];
            if (!(lo > 0) || !(hi >= lo) || !Double.isFinite(hi)) continue;
            ratio.add(hi / lo);
            spread.add(hi - lo);
            max.add(hi);
        }
        if (ratio.size() < MIN_ENTRIES) return null;
        return new RankSpread(timer, median(ratio), median(spread), median(max), ratio.size());
    }

    /**
     * A timer's seconds (its slowest rank) over steady steps: the median, against the median step, and the sum, against
     * the sum of the steps it was printed with (a loader that stalls 10 s once in 30 steps of 1.4 s has a median of a
     * few milliseconds and a total of a fifth of the time).
     */
    public record TimerShare(String timer, double seconds, double stepS, double totalShare, int entries) {
        public double share() { return seconds / stepS; }
    }

    public static TimerShare share(StepHistory h, String timer) {
        StepHistory.RankTimer t = h.timer(timer);
        if (t == null) return null;
        List<Double> s = new ArrayList<>(), step = new ArrayList<>();
        double sum = 0, steps = 0;
        for (int i = steadyFrom(h); i < h.size(); i++) {
            double v = Double.isFinite(t.maxS()[i]) ? t.maxS()[i] : t.minS()[i];
            if (Double.isFinite(v) && v >= 0 && h.stepTimeS()[i] > 0 && Double.isFinite(h.stepTimeS()[i])) {
                s.add(v);
                step.add(h.stepTimeS()[i]);
                sum += v;
                steps += h.stepTimeS()[i];
            }
        }
        if (s.size() < MIN_ENTRIES) return null;
        return new TimerShare(timer, median(s), median(step), sum / steps, s.size());
    }

    /**
     * Loss spikes (above {@link #LOSS_SPIKE_RATIO} x the trailing median of {@link #LOSS_WINDOW} entries) and steps
     * whose loss is NaN or infinite or that were skipped, over the steady entries.
     */
    public record LossEvents(int spikes, int nonFinite, long firstStep, double worstRatio, int entries) {}

    public static LossEvents loss(StepHistory h) {
        int spikes = 0, bad = 0, entries = 0;
        long first = -1;
        double worst = 0;
        double[] window = new double[LOSS_WINDOW];
        int filled = 0;
        for (int i = steadyFrom(h); i < h.size(); i++) {
            double l = h.loss()[i];
            boolean skipped = h.skipped()[i] > 0;
            if (Double.isNaN(l) && !skipped) continue;
            entries++;
            if (!Double.isFinite(l) || skipped) {
                bad++;
                if (first < 0) first = h.steps()[i];
                continue;
            }
            if (filled >= LOSS_WINDOW / 2) {
                double m = median(Arrays.copyOf(window, Math.min(filled, LOSS_WINDOW)));
                double r = l / m;
                if (m > 0 && r > LOSS_SPIKE_RATIO) {
                    spikes++;
                    worst = Math.max(worst, r);
                    if (first < 0) first = h.steps()[i];
                    continue;     // a spike does not enter the window it is judged against
                }
            }
            window[filled % LOSS_WINDOW] = l;
            filled++;
        }
        if (entries < MIN_ENTRIES) return null;
        return new LossEvents(spikes, bad, first, worst, entries);
    }

    /** The largest memory any steady step reports, GB; NaN when none does. */
    public static double peakMemoryGb(StepHistory h) {
        double peak = Double.NaN;
        for (int i = 0; i < h.size(); i++)
            if (Double.isFinite(h.memoryGb()[i])) peak = Double.isNaN(peak) ? h.memoryGb()[i] : Math.max(peak, h.memoryGb()[i]);
        return peak;
    }

    /** The median of {@code column}'s finite values over the history's steady entries ({@link #steadyFrom}); NaN if none. */
    public static double steadyMedian(StepHistory h, double[] column) {
        return median(Arrays.stream(column, Math.min(steadyFrom(h), column.length), column.length)
                .filter(Double::isFinite).toArray());
    }

    static double median(List<Double> v) { return median(v.stream().mapToDouble(Double::doubleValue).toArray()); }

    static double median(double[] v) {
        if (v.length == 0) return Double.NaN;
        double[] s = v.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    /**
     * Where the history's steady entries start: after its warm-up, but never more than a tenth of the entries (and at
     * most 10): a log whose learning rate is still rising throughout (an excerpt of the first hundred steps) is
     * warming up its optimiser, not its pace, and the history has to be read all the same.
     */
    static int steadyFrom(StepHistory h) {
        return Math.min(h.warmupSteps(), Math.max(1, Math.min(10, h.size() / 10)));
    }

    /** The sum of absolute deviations from the median. */
    static double deviation(double[] v) {
        double m = median(v), d = 0;
        for (double x : v) d += Math.abs(x - m);
        return d;
    }

    static double mad(double[] v, double m) {
        double[] d = new double[v.length];
        for (int i = 0; i < v.length; i++) d[i] = Math.abs(v[i] - m);
        return median(d);
    }
}
