package dev.trainadvisor.perf;

import dev.trainadvisor.spec.AttentionKernel;
import dev.trainadvisor.spec.ElementwiseKernels;
import dev.trainadvisor.spec.ReferenceRun;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Calibration of the step model's efficiency constants on the "tune" reference runs (not a test): coordinate descent,
 * each constant over its grid in turn until none moves, on the mean squared log error of tokens/GPU/s, over
 * <ul>
 * <li>the in-step fraction of the compute benchmarks (Efficiency.TRAINING_FRACTION_OF_BENCHMARK), 0.50-1.00;</li>
 * <li>the element-wise traffic factor of hand-fused kernels (ELEMENTWISE_TRAFFIC), 1.0-5.0;</li>
 * <li>the same for torch.compile's kernels (COMPILED_ELEMENTWISE_TRAFFIC), 0.5-5.0;</li>
 * <li>Triton's FlashAttention over FlashAttention-2 (TRITON_SPEED_OVER_FA2), inside its published 0.40-0.77;</li>
 * <li>ring attention's extra time (RING_ATTENTION_OVERHEAD), 0-1.</li>
 * </ul>
 * Prints the optimum and the per-group errors on tune and holdout rows there.
 * Run: java -cp target/test-classes:target/classes:... dev.trainadvisor.perf.Calibrate
 */
public final class Calibrate {
    /** Rows the model cannot express (marked "excluded" with the reason in knowledge-base/reference-runs), kept out. */
    static boolean excluded(ReferenceRun r) { return r.isExcluded(); }

    /** The candidate constants, in the order above. */
    record Constants(double inStep, double traffic, double compiled, double triton, double ring) {
        Constants with(int i, double v) {
            return new Constants(i == 0 ? v : inStep, i == 1 ? v : traffic, i == 2 ? v : compiled, i == 3 ? v : triton,
                    i == 4 ? v : ring);
        }

        double get(int i) { return new double[]{inStep, traffic, compiled, triton, ring}[i]; }
    }

    static final double[][] GRIDS = {grid(0.50, 1.00, 0.0125), grid(1.0, 5.0, 0.05), grid(0.5, 5.0, 0.05),
            grid(0.40, 0.77, 0.01), grid(0.0, 1.0, 0.025)};
    static final String[] NAMES = {"in-step fraction", "element-wise traffic", "compiled traffic", "Triton over FA2",
            "ring-attention overhead"};

    static double[] grid(double from, double to, double step) {
        int n = (int) Math.round((to - from) / step) + 1;
        double[] g = new double[n];
        for (int i = 0; i < n; i++) g[i] = Math.round((from + i * step) * 1e6) / 1e6;
        return g;
    }

    public static void main(String[] args) {
        List<ReferenceRun> runs = ReferenceRun.builtIn();
        List<ReferenceRun> tune = new ArrayList<>();
        for (ReferenceRun r : runs) if (r.split().equals("tune") && !excluded(r)) tune.add(r);
        Constants c = new Constants(Efficiency.TRAINING_FRACTION_OF_BENCHMARK, Efficiency.ELEMENTWISE_TRAFFIC,
                Efficiency.COMPILED_ELEMENTWISE_TRAFFIC, Efficiency.TRITON_SPEED_OVER_FA2, Efficiency.RING_ATTENTION_OVERHEAD);
        double best = sse(tune, c);
        for (boolean moved = true; moved; ) {
            moved = false;
            for (int i = 0; i < NAMES.length; i++) {
                for (double v : GRIDS[i]) {
                    Constants k = c.with(i, v);
                    double s = sse(tune, k);
                    if (s < best - 1e-12) { best = s; c = k; moved = true; }
                }
            }
        }
        StringBuilder sb = new StringBuilder("optimum:");
        for (int i = 0; i < NAMES.length; i++) sb.append(String.format(Locale.ROOT, " %s %.4f,", NAMES[i], c.get(i)));
        System.out.printf(Locale.ROOT, "%s rms log error %.4f over %d tune rows%n", sb, Math.sqrt(best / tune.size()), tune.size());
        report(runs, c);
    }

    static double sse(List<ReferenceRun> rows, Constants c) {
        double s = 0;
        for (ReferenceRun r : rows) {
            double e = Math.log(predict(r, c) / observed(r));
            s += e * e;
        }
        return s;
    }

    static double observed(ReferenceRun r) { return ObservedThroughput.of(r.spec().cluster(), r.spec().run()).tokensPerGpuPerS(); }

    static double predict(ReferenceRun r, Constants k) {
        var c = r.spec().cluster();
        var t = r.spec().run().training();
        Efficiency d = Efficiency.defaults(c.gpu(), r.spec().run());
        double mamf = d.gemmFractionOfPeak() / Efficiency.TRAINING_FRACTION_OF_BENCHMARK;
        double attention = d.attentionFractionOfPeak() / Efficiency.TRAINING_FRACTION_OF_BENCHMARK * k.inStep();
        // the model applies Efficiency.RING_ATTENTION_OVERHEAD itself: replace it with the candidate
        int cp = r.spec().run().parallel().cp();
        attention *= Efficiency.ringFactor(cp) / (1 + k.ring() * (cp - 1) / cp);
        // the model applies Efficiency.TRITON_SPEED_OVER_FA2 itself: scale the rate so that the candidate replaces it
        if (t.flashAttention() && t.attentionKernel() == AttentionKernel.TRITON) attention *= k.triton() / Efficiency.TRITON_SPEED_OVER_FA2;
        double traffic = t.elementwiseKernels() == ElementwiseKernels.COMPILED ? k.compiled() : k.traffic();
        Efficiency e = new Efficiency(mamf * k.inStep(), attention, d.hbmFraction(), d.overlapFraction(), traffic);
        return StepModel.predict(c, r.spec().run(), e).tokensPerGpuPerS();
    }

    static void report(List<ReferenceRun> runs, Constants c) {
        Map<String, double[]> acc = new TreeMap<>();   // group|split -> {n, sum|err|, sum err}
        for (ReferenceRun r : runs) {
            double err = predict(r, c) / observed(r) - 1;
            for (String key : new String[]{r.sourceGroup() + " | " + r.split(), "overall | " + r.split(),
                    "overall (without excluded) | " + r.split()}) {
                if (key.startsWith("overall (without") && excluded(r)) continue;
                double[] a = acc.computeIfAbsent(key, k -> new double[3]);
                a[0]++; a[1] += Math.abs(err); a[2] += err;
            }
        }
        acc.forEach((k, a) -> System.out.printf(Locale.ROOT, "%-48s n=%3d MAPE %5.1f%% bias %+6.1f%%%n", k, (int) a[0],
                100 * a[1] / a[0], 100 * a[2] / a[0]));
    }
}
