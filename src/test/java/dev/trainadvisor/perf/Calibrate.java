package dev.trainadvisor.perf;

import dev.trainadvisor.spec.AttentionKernel;
import dev.trainadvisor.spec.ReferenceRun;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Calibration of the step model's efficiency constants on the "tune" reference runs (not a test):
 * a grid over the in-step fraction of the compute benchmarks, the element-wise traffic factor and the speed
 * of Triton's FlashAttention over FlashAttention-2 (inside its published 0.40-0.77), minimizing the mean
 * squared log error of tokens/GPU/s; prints the per-group errors on tune and holdout rows at the optimum.
 * Run: java -cp target/test-classes:target/classes:... dev.trainadvisor.perf.Calibrate
 */
public final class Calibrate {
    /** Rows the model cannot express (marked "excluded" with the reason in knowledge-base/reference-runs), kept out. */
    static boolean excluded(ReferenceRun r) { return r.isExcluded(); }

    public static void main(String[] args) {
        List<ReferenceRun> runs = ReferenceRun.builtIn();
        List<ReferenceRun> tune = new ArrayList<>();
        for (ReferenceRun r : runs) if (r.split().equals("tune") && !excluded(r)) tune.add(r);
        double best = Double.MAX_VALUE, bestG = 0, bestH = 0, bestT = 0;
        for (double g = 0.50; g <= 1.0001; g += 0.025) {
            for (double h = 1.0; h <= 5.0001; h += 0.1) {
                for (double t = 0.40; t <= 0.7701; t += 0.05) {
                    double sse = 0;
                    for (ReferenceRun r : tune) {
                        double e = Math.log(predict(r, g, h, t) / observed(r));
                        sse += e * e;
                    }
                    if (sse < best) { best = sse; bestG = g; bestH = h; bestT = t; }
                }
            }
        }
        System.out.printf(Locale.ROOT, "optimum: in-step fraction of the benchmarks %.3f, element-wise traffic factor %.2f, "
                        + "Triton over FA2 %.2f, rms log error %.3f%n", bestG, bestH, bestT, Math.sqrt(best / tune.size()));
        report(runs, bestG, bestH, bestT);
    }

    static double observed(ReferenceRun r) { return ObservedThroughput.of(r.spec().cluster(), r.spec().run()).tokensPerGpuPerS(); }

    static double predict(ReferenceRun r, double inStep, double traffic, double triton) {
        var c = r.spec().cluster();
        Efficiency d = Efficiency.defaults(c.gpu(), r.spec().run().training().precision());
        double mamf = d.gemmFractionOfPeak() / Efficiency.TRAINING_FRACTION_OF_BENCHMARK;
        double attention = d.attentionFractionOfPeak() / Efficiency.TRAINING_FRACTION_OF_BENCHMARK * inStep;
        // the model applies Efficiency.TRITON_SPEED_OVER_FA2 itself: scale the rate so that the candidate replaces it
        if (r.spec().run().training().attentionKernel() == AttentionKernel.TRITON) attention *= triton / Efficiency.TRITON_SPEED_OVER_FA2;
        Efficiency e = new Efficiency(mamf * inStep, attention, d.hbmFraction(), d.overlapFraction(), traffic);
        return StepModel.predict(c, r.spec().run(), e).tokensPerGpuPerS();
    }

    static void report(List<ReferenceRun> runs, double g, double h, double t) {
        Map<String, double[]> acc = new TreeMap<>();   // group|split -> {n, sum|err|, sum err}
        for (ReferenceRun r : runs) {
            double err = predict(r, g, h, t) / observed(r) - 1;
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
