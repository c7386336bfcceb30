package dev.trainadvisor.ingest;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * tqdm's progress bar as a log keeps it (the Hugging Face Trainer's, TRL's, Accelerate scripts', PyTorch Lightning's
 * TQDMProgressBar, any tqdm loop): each refresh, a line of its own once the carriage returns are split,
 * {@code "{desc}: {pct}%|{bar}| {n}/{total} [{elapsed}<{remaining}, {rate}it/s{, postfix}]"}, the rate in s/it below
 * one a second.
 *
 * <p>The rate it prints is not the last step's: tqdm smooths it (tqdm/std.py, {@code smoothing=0.3}: an exponential
 * moving average of the steps and of the seconds between refreshes, each divided by {@code 1 - 0.7^k} after k
 * refreshes, tqdm/utils.py {@code EMA}). The average is undone here, refresh by refresh: from the printed rate and the
 * steps between refreshes, the seconds of each refresh interval, and so of each step. On the H200 Trainer logs of
 * src/test/resources/logs/h200-trainer (bench/h200_trainer_logs.py) that gives back every step's time within 1-3% of
 * the times a callback measured outside the log, the 12.8 s of a checkpoint save and the 59 s of a torch.compile first
 * step included. Where the undone average is not consistent with the bar's own elapsed time (another smoothing, a bar
 * refreshed by something else), the printed rates are taken as they are ({@link Steps#smoothed()} false).
 */
final class Tqdm {
    private Tqdm() {}

    /** tqdm's default smoothing (tqdm/std.py, tqdm.__init__ smoothing=0.3). */
    static final double SMOOTHING = 0.3;

    /** Refreshes kept one by one; beyond, neighbours are merged (the history keeps fewer rows than this anyway). */
    static final int MAX_REFRESHES = 1 << 17;

    /** One refresh: {@code n} of {@code total} (-1 when unknown) after {@code elapsedS}, at {@code secondsPerIt}. */
    record Update(long n, long total, double elapsedS, double secondsPerIt) {}

    private static final Pattern BAR = Pattern.compile(
            "(\\d{1,12})(?:/(\\d{1,12}))?(?:it)?\\s*\\[(?:(\\d{1,6}):)?(\\d{1,2}):(\\d{2})(?:<[^,\\]]{0,20})?,\\s*"
                    + "(\\d{1,9}(?:\\.\\d{1,9})?|\\?)\\s?(it/s|s/it)");

    /** The refresh a line shows, or null when it is not a tqdm bar (or shows no rate yet: "?it/s"). */
    static Update parse(String line) {
        int u = line.indexOf("it/s");
        if (u < 0) u = line.indexOf("s/it");
        if (u < 0 || line.indexOf('[') < 0) return null;
        Matcher m = BAR.matcher(line);
        if (!m.find()) return null;
        if (m.group(6).equals("?")) return null;
        long n = Long.parseLong(m.group(1));
        long total = m.group(2) == null ? -1 : Long.parseLong(m.group(2));
        double elapsed = (m.group(3) == null ? 0 : Long.parseLong(m.group(3)) * 3600)
                + Long.parseLong(m.group(4)) * 60 + Long.parseLong(m.group(5));
        double rate = Double.parseDouble(m.group(6));
        if (!(rate > 0)) return null;
        double spi = m.group(7).equals("it/s") ? 1 / rate : rate;
        return new Update(n, total, elapsed, spi);
    }

    /** A step's seconds as one refresh of the bar accounts for it: steps {@code from + 1} to {@code to}. */
    interface Sink {
        void steps(long from, long to, double secondsEach);
    }

    /**
     * The steps of one bar, refresh by refresh: the first bar seen (its total) is the one followed, a bar with another
     * total (an evaluation loop's) is ignored, and a bar whose count falls back starts a new one after the steps before
     * it (Lightning's bar per epoch).
     */
    static final class Steps {
        private final double smoothing;
        private long total = Long.MIN_VALUE, offset, lastN = -1;
        private double lastCumulative;
        private double emaDn, emaDt;
        private int calls;
        private long steps;
        private double sumDt, lastElapsed, elapsedBefore;
        private boolean smoothed = true, negative;
        private final java.util.List<double[]> raw = new java.util.ArrayList<>();

        /** tqdm's default smoothing (0.3): the Trainer's bar, TRL's, a plain tqdm loop. */
        Steps() { this(SMOOTHING); }

        /**
         * A bar of another smoothing; 0 for a bar whose rate is the average since it started (Lightning's
         * TQDMProgressBar: lightning/pytorch/callbacks/progress/tqdm_progress.py creates its bars with smoothing=0,
         * and tqdm then prints n / elapsed): the seconds of a refresh are the difference of n x s/it between two.
         */
        Steps(double smoothing) { this.smoothing = smoothing; }

        /** Feeds one refresh; false when the line belongs to another bar. */
        boolean add(Update u) {
            if (total == Long.MIN_VALUE) total = u.total();
            if (u.total() != total) return false;
            if (u.n() <= lastN) {
                if (u.n() == lastN) return true;        // the same refresh printed again (a log line written under it)
                offset += lastN;                        // a new bar: its steps follow the last one's
                elapsedBefore += lastElapsed;
                lastN = 0;
                emaDn = emaDt = 0;
                lastCumulative = 0;
                calls = 0;
            }
            long dn = u.n() - Math.max(lastN, 0);
            if (lastN < 0) dn = u.n();
            if (dn <= 0) return true;
            double dt;
            if (smoothing == 0) {
                double cumulative = u.n() * u.secondsPerIt();
                dt = cumulative - lastCumulative;
                lastCumulative = cumulative;
            } else {
                double beta = 1 - smoothing;
                calls++;
                double prevDt = emaDt;
                emaDn = smoothing * dn + beta * emaDn;
                // the printed rate is (emaDn / c) / (emaDt / c), both averages corrected by the same c = 1 - 0.7^k:
                // the seconds' average follows from the steps'
                emaDt = emaDn * u.secondsPerIt();
                dt = (emaDt - beta * prevDt) / smoothing;
            }
            if (smoothing > 0 && !(dt > 0)) negative = true;
            dt = Math.max(dt, 0);
            raw.add(new double[]{offset + Math.max(lastN, 0), offset + u.n(), dt, u.secondsPerIt() * dn});
            if (raw.size() > MAX_REFRESHES) halve();
            sumDt += dt;
            steps += dn;
            lastN = u.n();
            lastElapsed = u.elapsedS();
            return true;
        }

        /** Neighbouring refreshes merged in pairs: bounded memory for a bar refreshed millions of times. */
        private void halve() {
            java.util.List<double[]> out = new java.util.ArrayList<>(raw.size() / 2 + 1);
            for (int i = 0; i < raw.size(); i += 2) {
                double[] a = raw.get(i);
                if (i + 1 == raw.size()) { out.add(a); break; }
                double[] b = raw.get(i + 1);
                out.add(new double[]{a[0], b[1], a[2] + b[2], a[3] + b[3]});
            }
            raw.clear();
            raw.addAll(out);
        }

        /**
         * Whether the undone average agrees with the bar's clock: the seconds it gives add up to the elapsed time the
         * bar printed, within its one-second resolution and a tenth.
         */
        boolean smoothed() {
            double elapsed = elapsedBefore + lastElapsed;
            return smoothed && !negative && Math.abs(sumDt - elapsed) <= 1.5 + 0.1 * elapsed;
        }

        long steps() { return steps; }

        /** The steps' seconds, undone from the average where {@link #smoothed()}, else as printed. */
        void emit(Sink sink) {
            boolean undo = smoothed();
            for (double[] r : raw) {
                long from = (long) r[0], to = (long) r[1];
                double each = (undo ? r[2] : r[3]) / (to - from);
                sink.steps(from, to, each);
            }
        }

        /** The last step of the bar (over all its restarts). */
        long lastStep() { return offset + Math.max(lastN, 0); }

        boolean any() { return !raw.isEmpty(); }
    }
}
