package dev.trainadvisor.perf;

import dev.trainadvisor.spec.ReferenceRun;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The step model's constants that were fitted on published runs, and the fit that sets them: coordinate descent, each
 * constant over its grid in turn until none moves, on the mean squared log error of tokens/GPU/s over the "tune" rows
 * of knowledge-base/reference-runs (the rows marked excluded left out). The shipped values are {@link #SHIPPED}, each
 * argued in {@link Efficiency}; this class is how {@code validate --leave-out source} refits them without one source
 * group, and how src/test/java/dev/trainadvisor/perf/Calibrate.java refits them on every tune row.
 * <p>
 * These five are every constant of the model set on the reference runs. The host's launch time and overlap power
 * ({@link Overheads}), the grouped GEMMs' p-norm ({@link Roofline#GROUPED_GEMM_POWER}) and the attention and GEMM
 * curves were fitted on measurements of their own (knowledge-base/measurements), not on published runs. The fit's
 * compute prior ({@link Fit#COMPUTE_NOMINAL_SIGMA}) and the prediction intervals ({@link PredictionInterval}) are read
 * off the model's errors on the runs rather than fitted into its predictions; validate --leave-out source prints what
 * they are out of source.
 */
public final class Calibration {
    private Calibration() {}

    /**
     * The fitted constants: the in-step fraction of the compute benchmarks ({@link Efficiency#TRAINING_FRACTION_OF_BENCHMARK}),
     * the element-wise traffic factor of hand-fused kernels ({@link Efficiency#ELEMENTWISE_TRAFFIC}) and of
     * torch.compile's ({@link Efficiency#COMPILED_ELEMENTWISE_TRAFFIC}), Triton's FlashAttention over FlashAttention-2
     * ({@link Efficiency#TRITON_SPEED_OVER_FA2}) and ring attention's extra time
     * ({@link Efficiency#RING_ATTENTION_OVERHEAD}).
     */
    public record Constants(double inStep, double traffic, double compiled, double triton, double ring) {
        /** The constant {@code i} (in {@link #NAMES}' order) set to {@code v}. */
        public Constants with(int i, double v) {
            return new Constants(i == 0 ? v : inStep, i == 1 ? v : traffic, i == 2 ? v : compiled, i == 3 ? v : triton,
                    i == 4 ? v : ring);
        }

        /** The constant {@code i}, in {@link #NAMES}' order. */
        public double get(int i) { return new double[]{inStep, traffic, compiled, triton, ring}[i]; }
    }

    /** The values the model ships with (Efficiency). */
    public static final Constants SHIPPED = new Constants(Efficiency.TRAINING_FRACTION_OF_BENCHMARK,
            Efficiency.ELEMENTWISE_TRAFFIC, Efficiency.COMPILED_ELEMENTWISE_TRAFFIC, Efficiency.TRITON_SPEED_OVER_FA2,
            Efficiency.RING_ATTENTION_OVERHEAD);

    public static final List<String> NAMES = List.of("in-step fraction", "element-wise traffic", "compiled traffic",
            "Triton over FA2", "ring-attention overhead");

    /**
     * Where each constant is searched: the in-step fraction 0.50-1.00; the element-wise traffic factors 1.0-5.0 and
     * 0.5-5.0 (torch.compile may fuse below the model's count of one read and write per operation); Triton's speed
     * only inside the 0.40-0.77 that Dao 2023 publishes (Efficiency#TRITON_SPEED_OVER_FA2); ring attention's extra
     * time 0-1 of the work.
     */
    static final double[][] GRIDS = {grid(0.50, 1.00, 0.0125), grid(1.0, 5.0, 0.05), grid(0.5, 5.0, 0.05),
            grid(0.40, 0.77, 0.01), grid(0.0, 1.0, 0.025)};

    static double[] grid(double from, double to, double step) {
        int n = (int) Math.round((to - from) / step) + 1;
        double[] g = new double[n];
        for (int i = 0; i < n; i++) g[i] = Math.round((from + i * step) * 1e6) / 1e6;
        return g;
    }

    /**
     * A reference run made ready to predict under many candidate constants: its observed tokens/GPU/s, and the
     * predictions made so far by the efficiencies they came from. The constants reach the model only through
     * {@link Efficiency#defaults(dev.trainadvisor.spec.Gpu, dev.trainadvisor.spec.RunMetrics, Constants)}, so two
     * candidates that give a run the same efficiencies give it the same prediction (a run without context parallelism
     * does not see the ring overhead): the fit and every refit of validate --leave-out share them.
     */
    public static final class Row {
        private final ReferenceRun run;
        private final double observed;
        private final String observedFrom;
        private final Map<Efficiency, StepPrediction> predictions = new ConcurrentHashMap<>();
        private final Map<Constants, StepPrediction> byConstants = new ConcurrentHashMap<>();

        public Row(ReferenceRun run) { this(run, 1); }

        /** The run as if it had measured {@code scale} times its tokens/GPU/s (tests of what a fit may see). */
        Row(ReferenceRun run, double scale) {
            this.run = run;
            ObservedThroughput o = ObservedThroughput.of(run.spec().cluster(), run.spec().run());
            this.observed = o.tokensPerGpuPerS() * scale;
            this.observedFrom = o.source() == null ? null : o.source().key();
        }

        public ReferenceRun run() { return run; }

        /** Observed tokens/GPU/s. */
        public double observed() { return observed; }

        /** The step model's prediction of the run with the fitted constants {@code k}. */
        public StepPrediction predict(Constants k) {
            StepPrediction p = byConstants.get(k);
            if (p != null) return p;
            var c = run.spec().cluster();
            var r = run.spec().run();
            p = predictions.computeIfAbsent(Efficiency.defaults(c.gpu(), r, k), e -> StepModel.predict(c, r, e));
            byConstants.put(k, p);
            return p;
        }

        /** The run's validation row with the fitted constants {@code k}. */
        public Validation.Row validation(Constants k) { return Validation.row(run, predict(k), observed, observedFrom); }

        /** ln(predicted / observed) tokens/GPU/s. */
        public double logError(Constants k) { return Math.log(predict(k).tokensPerGpuPerS() / observed); }

        /** Whether the constants are fitted on it: a tune row, not excluded. */
        public boolean tune() { return run.split().equals("tune") && !run.isExcluded(); }
    }

    /** The rows of {@code runs}, in order, ready to predict. */
    public static List<Row> rows(List<ReferenceRun> runs) {
        List<Row> out = new ArrayList<>();
        for (ReferenceRun r : runs) out.add(new Row(r));
        return out;
    }

    /** @param rmsLogError the root mean square of ln(predicted / observed) over the rows fitted on */
    public record Result(Constants constants, double rmsLogError, int rows) {}

    /**
     * The constants that minimize the squared log error over the tune rows among {@code rows} (the others are
     * ignored), from {@code start}: coordinate descent, each constant over its whole grid in turn, a value kept when
     * it lowers the error by more than 1e-12, until a sweep moves none; then, since constants that trade against each
     * other (the in-step fraction and the element-wise traffic both slow a step) leave coordinate descent stuck in a
     * diagonal valley of the grid, the best of the grid neighbours that move several constants at once by one step
     * each, and coordinate descent again, until neither moves. With no tune row the start is returned.
     */
    public static Result fit(List<Row> rows, Constants start) {
        List<Row> tune = rows.stream().filter(Row::tune).toList();
        if (tune.isEmpty()) return new Result(start, Double.NaN, 0);
        Constants c = start;
        double best = sse(tune, c);
        for (boolean moved = true; moved; ) {
            moved = false;
            for (int i = 0; i < NAMES.size(); i++) {
                for (double v : GRIDS[i]) {
                    Constants k = c.with(i, v);
                    double s = sse(tune, k);
                    if (s < best - 1e-12) { best = s; c = k; moved = true; }
                }
            }
            if (moved) continue;
            // every neighbour on the grid: each constant one step down, kept or one step up (3^5 - 1 of them)
            Constants diagonal = null;
            double diagonalBest = best;
            int n = NAMES.size();
            for (int code = 0; code < (int) Math.pow(3, n); code++) {
                Constants k = c;
                boolean inside = true, same = true;
                for (int i = 0, rest = code; i < n; i++, rest /= 3) {
                    int step = rest % 3 - 1, at = nearest(GRIDS[i], c.get(i)) + step;
                    if (step != 0) same = false;
                    if (at < 0 || at >= GRIDS[i].length) { inside = false; break; }
                    k = k.with(i, GRIDS[i][at]);
                }
                if (same || !inside) continue;
                double s = sse(tune, k);
                if (s < diagonalBest - 1e-12) { diagonalBest = s; diagonal = k; }
            }
            if (diagonal != null) { best = diagonalBest; c = diagonal; moved = true; }
        }
        return new Result(c, Math.sqrt(best / tune.size()), tune.size());
    }

    /** The index of the grid value nearest {@code v}. */
    static int nearest(double[] grid, double v) {
        int best = 0;
        for (int i = 1; i < grid.length; i++) if (Math.abs(grid[i] - v) < Math.abs(grid[best] - v)) best = i;
        return best;
    }

    static double sse(List<Row> rows, Constants c) {
        double s = 0;
        for (Row r : rows) {
            double e = r.logError(c);
            s += e * e;
        }
        return s;
    }
}
