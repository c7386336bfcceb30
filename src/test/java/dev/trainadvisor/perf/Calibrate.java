package dev.trainadvisor.perf;

import dev.trainadvisor.spec.ReferenceRun;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Calibration of the step model's fitted constants on every "tune" reference run (not a test): runs the fit the shipped
 * jar runs ({@link Calibration#fit}, which validate --leave-out source repeats without each source group) from the
 * shipped values, and prints the optimum and the per-group errors on tune and holdout rows there.
 * Run: java -cp target/test-classes:target/classes:... dev.trainadvisor.perf.Calibrate
 */
public final class Calibrate {
    public static void main(String[] args) {
        List<Calibration.Row> rows = Calibration.rows(ReferenceRun.builtIn());
        Calibration.Result fit = Calibration.fit(rows, Calibration.SHIPPED);
        StringBuilder sb = new StringBuilder("optimum:");
        for (int i = 0; i < Calibration.NAMES.size(); i++)
            sb.append(String.format(Locale.ROOT, " %s %.4f,", Calibration.NAMES.get(i), fit.constants().get(i)));
        System.out.printf(Locale.ROOT, "%s rms log error %.4f over %d tune rows%n", sb, fit.rmsLogError(), fit.rows());
        report(rows, fit.constants());
    }

    static void report(List<Calibration.Row> rows, Calibration.Constants c) {
        Map<String, double[]> acc = new TreeMap<>();   // group|split -> {n, sum|err|, sum err}
        for (Calibration.Row row : rows) {
            ReferenceRun r = row.run();
            double err = row.predict(c).tokensPerGpuPerS() / row.observed() - 1;
            for (String key : new String[]{r.sourceGroup() + " | " + r.split(), "overall | " + r.split(),
                    "overall (without excluded) | " + r.split()}) {
                if (key.startsWith("overall (without") && r.isExcluded()) continue;
                double[] a = acc.computeIfAbsent(key, k -> new double[3]);
                a[0]++; a[1] += Math.abs(err); a[2] += err;
            }
        }
        acc.forEach((k, a) -> System.out.printf(Locale.ROOT, "%-48s n=%3d MAPE %5.1f%% bias %+6.1f%%%n", k, (int) a[0],
                100 * a[1] / a[0], 100 * a[2] / a[0]));
    }
}
