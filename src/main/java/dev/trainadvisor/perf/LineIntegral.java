package dev.trainadvisor.perf;

import java.util.function.DoubleUnaryOperator;

/**
 * The logarithm of an integral {@code ln integral_lo^hi exp(logF(t)) dt} by Simpson's rule on a fixed number of points
 * placed where the integrand bends: five panels of five points each (21 points), then, while the budget allows, the
 * panel whose five-point sum differs most from its three-point one is halved (two new points a half), and the panels'
 * five-point sums are added. The points lie on a dyadic grid of 640 intervals, so that panels share their ends; a
 * panel is not halved below 8 of them.
 *
 * <p>Why not evenly spaced points: the integrand of a fit's evidence ({@link Fit}) is flat where a collective hides
 * behind compute and falls steeply where it is exposed, with a kink between, which evenly spaced points straddle.
 * Measured on the lines of bench/fleet.py's 10,000 runs (every seventh line, 8,434, each evaluated at 641 points by a
 * probe build; the reference Simpson's rule on all 641, which 321 match to 7e-4 at the 99th percentile), the error in
 * ln of the integral: 41 evenly spaced points median 1.4e-4, 90th percentile 1.1e-2, 99th 4.0e-2, at most 0.13; these
 * 41 points median 6.7e-5, 90th percentile 5.6e-4, 99th 2.8e-3, at most 2.6e-2 (37 points: 9.5e-5, 1.0e-3, 5.5e-3,
 * 5.5e-2; 33 points: 1.8e-4, 2.4e-3, 1.2e-2, 7.2e-2). Adaptive Simpson to a tolerance (rather than to a number of
 * points) needed 85 points on average for 5.1e-4 at the 99th percentile.
 */
final class LineIntegral {
    private LineIntegral() {}

    /** The integrand's evaluations: the budget (the 41 evenly spaced points this rule replaced). */
    static final int POINTS = 41;
    /** The panels the line starts with, each of five points. */
    static final int PANELS = 5;
    /** Intervals of the dyadic grid the points lie on: panels of 128, halved down to {@link #MIN_WIDTH}. */
    static final int GRID = 640;
    /** The narrowest panel that is halved again (its quarters 2 grid intervals, its halves' quarters 1). */
    static final int MIN_WIDTH = 8;

    /** {@code ln} of the integral of {@code exp(logF(t))} over {@code [lo, hi]}, from {@link #POINTS} evaluations. */
    static double logIntegral(DoubleUnaryOperator logF, double lo, double hi) {
        double unit = (hi - lo) / GRID;
        int maxPanels = PANELS + (POINTS - (4 * PANELS + 1)) / 4;
        // each panel: its first grid point and width, and its five values (ends, quarters, middle) at f[5p .. 5p + 4]
        int[] from = new int[maxPanels], width = new int[maxPanels];
        double[] f = new double[5 * maxPanels], error = new double[maxPanels];
        int panels = PANELS, used = 4 * PANELS + 1, w0 = GRID / PANELS;
        double max = Double.NEGATIVE_INFINITY;
        for (int p = 0; p < PANELS; p++) {
            from[p] = p * w0;
            width[p] = w0;
            // a panel's first value is its left neighbour's last
            f[5 * p] = p == 0 ? logF.applyAsDouble(lo) : f[5 * p - 1];
            for (int k = 1; k <= 4; k++) f[5 * p + k] = logF.applyAsDouble(lo + (from[p] + k * w0 / 4) * unit);
        }
        for (int i = 0; i < 5 * PANELS; i++) max = Math.max(max, f[i]);
        for (int p = 0; p < panels; p++) error[p] = error(f, p, width[p], max);
        while (used + 4 <= POINTS) {
            // the panel whose two estimates differ most, the leftmost of equals
            int worst = -1;
            for (int p = 0; p < panels; p++) if (worst < 0 ? error[p] >= 0 : error[p] > error[worst]) worst = p;
            if (worst < 0 || width[worst] < MIN_WIDTH) break;
            int a = from[worst], half = width[worst] / 2, q = half / 4;
            double f1 = f[5 * worst + 1], f2 = f[5 * worst + 2], f3 = f[5 * worst + 3], f4 = f[5 * worst + 4];
            System.arraycopy(from, worst + 1, from, worst + 2, panels - worst - 1);
            System.arraycopy(width, worst + 1, width, worst + 2, panels - worst - 1);
            System.arraycopy(error, worst + 1, error, worst + 2, panels - worst - 1);
            System.arraycopy(f, 5 * (worst + 1), f, 5 * (worst + 2), 5 * (panels - worst - 1));
            panels++;
            // the halves' quarters are new; their ends and middles are the panel's points already
            double[] fresh = {logF.applyAsDouble(lo + (a + q) * unit), logF.applyAsDouble(lo + (a + 3 * q) * unit),
                    logF.applyAsDouble(lo + (a + half + q) * unit), logF.applyAsDouble(lo + (a + half + 3 * q) * unit)};
            used += 4;
            width[worst] = half;
            from[worst + 1] = a + half;
            width[worst + 1] = half;
            int l = 5 * worst, r = l + 5;
            f[l + 1] = fresh[0];
            f[l + 2] = f1;
            f[l + 3] = fresh[1];
            f[l + 4] = f2;
            f[r] = f2;
            f[r + 1] = fresh[2];
            f[r + 2] = f3;
            f[r + 3] = fresh[3];
            f[r + 4] = f4;
            double before = max;
            for (double v : fresh) max = Math.max(max, v);
            // the estimates are compared on one scale: a new largest value rescales them all
            if (max != before) for (int p = 0; p < panels; p++) error[p] = error(f, p, width[p], max);
            else {
                error[worst] = error(f, worst, half, max);
                error[worst + 1] = error(f, worst + 1, half, max);
            }
        }
        double sum = 0;
        for (int p = 0; p < panels; p++) sum += fivePoint(f, p, width[p], max);
        return max + Math.log(sum * unit);
    }

    /** A panel's Simpson sums on five points and on three differ by this much (grid units, relative to {@code max}). */
    private static double error(double[] f, int p, int width, double max) {
        double threePoint = width / 6.0 * (Math.exp(f[5 * p] - max) + 4 * Math.exp(f[5 * p + 2] - max)
                + Math.exp(f[5 * p + 4] - max));
        return Math.abs(fivePoint(f, p, width, max) - threePoint);
    }

    /** Simpson's rule over a panel's five points (its two halves), in grid units, relative to {@code max}. */
    private static double fivePoint(double[] f, int p, int width, double max) {
        return width / 12.0 * (Math.exp(f[5 * p] - max) + 4 * Math.exp(f[5 * p + 1] - max)
                + 2 * Math.exp(f[5 * p + 2] - max) + 4 * Math.exp(f[5 * p + 3] - max) + Math.exp(f[5 * p + 4] - max));
    }
}
