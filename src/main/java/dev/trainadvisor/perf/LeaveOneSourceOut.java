package dev.trainadvisor.perf;

import dev.trainadvisor.spec.ReferenceRun;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

/**
 * The model on sources it was not calibrated on (validate --leave-out source): for each source group, every constant
 * fitted on published runs ({@link Calibration}) is refitted on the tune rows of the other groups, and the group's
 * runs, tune and holdout, are predicted with that refit. A group is a source family (one paper, one repository's
 * benchmark tables), so its runs share what a source shares (the framework's build, the cluster, the way it counts),
 * which a split by row leaves on both sides.
 * <p>
 * The prediction intervals come from these out-of-source errors ({@link PredictionInterval#fit}), and their coverage is
 * checked on held-out sources the same way: the runs of group g against the interval read off the out-of-source errors
 * of the other groups, each of those predicted by constants refitted without g as well as without its own group, so
 * that nothing of g reaches its band.
 */
public final class LeaveOneSourceOut {
    private LeaveOneSourceOut() {}

    /** How many runs landed inside their 80% interval. */
    public record Coverage(int rows, int inside) {
        public double share() { return rows == 0 ? Double.NaN : (double) inside / rows; }
    }

    /**
     * @param group       the source group held out
     * @param fittedOn    the tune rows the constants were refitted on (every tune row of the other groups)
     * @param constants   the refit
     * @param shipped     the group's error with the shipped constants (validate's "all" row of the group)
     * @param outOfSource the group's error with the constants refitted without it
     * @param coverage    of the group's runs, those inside the 80% interval read off the other groups' out-of-source
     *                    errors
     */
    public record Group(String group, int fittedOn, Calibration.Constants constants, Validation.Summary shipped,
                        Validation.Summary outOfSource, Coverage coverage) {}

    /**
     * @param groups         per source group, in the order validate lists them
     * @param shipped        every run with the shipped constants
     * @param outOfSource    every run with the constants refitted without its group
     * @param coverage       over every run, each against the interval its held-out group gets
     * @param rmsShipped     root mean square of ln(predicted / observed) tokens/GPU/s over the tune rows, shipped
     *                       constants (what Fit.COMPUTE_NOMINAL_SIGMA is read from)
     * @param rmsOutOfSource the same, out of source
     * @param allTune        the constants refitted on every tune row, beside the shipped ones
     * @param rows           every run predicted out of source
     */
    public record Report(List<Group> groups, Validation.Summary shipped, Validation.Summary outOfSource, Coverage coverage,
                         double rmsShipped, double rmsOutOfSource, Calibration.Result allTune,
                         List<Validation.Row> rows) {}

    /** The runs that measured their throughput, each group held out in turn. */
    public static Report of(List<ReferenceRun> runs) {
        List<Calibration.Row> rows = new ArrayList<>();
        for (ReferenceRun r : runs)
            if (ObservedThroughput.of(r.spec().cluster(), r.spec().run()).measured()) rows.add(new Calibration.Row(r));
        return ofRows(rows);
    }

    static Report ofRows(List<Calibration.Row> rows) {
        Map<String, List<Calibration.Row>> byGroup = new LinkedHashMap<>();
        for (Calibration.Row r : rows) byGroup.computeIfAbsent(r.run().sourceGroup(), k -> new ArrayList<>()).add(r);
        List<String> names = List.copyOf(byGroup.keySet());
        Set<String> tuned = new TreeSet<>();   // groups with rows fitted on: only leaving these out changes a fit
        for (Calibration.Row r : rows) if (r.tune()) tuned.add(r.run().sourceGroup());

        // every fit needed, by the set of tuned groups left out: none, each group, each pair (coverage)
        Map<Set<String>, Calibration.Result> fits = new ConcurrentHashMap<>();
        List<Set<String>> needed = new ArrayList<>();
        needed.add(Set.of());
        for (String g : names) {
            needed.add(leftOut(tuned, g));
            for (String h : names) if (!h.equals(g)) needed.add(leftOut(tuned, g, h));
        }
        List<Set<String>> distinct = needed.stream().distinct().toList();
        List<Calibration.Result> results = IntStream.range(0, distinct.size()).parallel()
                .mapToObj(i -> fitWithout(rows, distinct.get(i))).toList();
        for (int i = 0; i < distinct.size(); i++) fits.put(distinct.get(i), results.get(i));

        List<Validation.Row> shippedRows = new ArrayList<>(), outRows = new ArrayList<>();
        Map<String, List<Validation.Row>> outByGroup = new LinkedHashMap<>();
        for (String g : names) {
            Calibration.Constants k = fits.get(leftOut(tuned, g)).constants();
            for (Calibration.Row r : byGroup.get(g)) {
                shippedRows.add(r.validation(Calibration.SHIPPED));
                Validation.Row out = r.validation(k);
                outRows.add(out);
                outByGroup.computeIfAbsent(g, x -> new ArrayList<>()).add(out);
            }
        }

        List<Group> groups = new ArrayList<>();
        int covered = 0, counted = 0;
        for (String g : names) {
            // the band of g: the other groups' errors, each predicted without its own group and without g
            List<Validation.Row> others = new ArrayList<>();
            for (String h : names) {
                if (h.equals(g)) continue;
                Calibration.Constants k = fits.get(leftOut(tuned, g, h)).constants();
                for (Calibration.Row r : byGroup.get(h)) others.add(r.validation(k));
            }
            Map<String, PredictionInterval> band = PredictionInterval.fit(others);
            int n = 0, inside = 0;
            for (Validation.Row r : outByGroup.get(g)) {
                if (r.excluded() != null) continue;
                n++;
                double[] b = PredictionInterval.of(r.runClass(), band).around(r.tokensPredicted());
                if (r.tokensObserved() >= b[0] && r.tokensObserved() <= b[1]) inside++;
            }
            covered += inside;
            counted += n;
            Calibration.Result fit = fits.get(leftOut(tuned, g));
            groups.add(new Group(g, fit.rows(), fit.constants(),
                    Validation.summary(g, "all", shippedRows.stream().filter(r -> r.sourceGroup().equals(g)).toList()),
                    Validation.summary(g, "all", outByGroup.get(g)), new Coverage(n, inside)));
        }
        return new Report(List.copyOf(groups), Validation.summary("overall", "all", shippedRows),
                Validation.summary("overall", "all", outRows), new Coverage(counted, covered),
                rms(shippedRows), rms(outRows), fits.get(Set.of()), List.copyOf(outRows));
    }

    /** The tuned groups among {@code groups}, which leaving out changes the fit. */
    private static Set<String> leftOut(Set<String> tuned, String... groups) {
        Set<String> out = new TreeSet<>();
        for (String g : groups) if (tuned.contains(g)) out.add(g);
        return out;
    }

    private static Calibration.Result fitWithout(List<Calibration.Row> rows, Set<String> groups) {
        return Calibration.fit(rows.stream().filter(r -> !groups.contains(r.run().sourceGroup())).toList(),
                Calibration.SHIPPED);
    }

    /** Root mean square of ln(predicted / observed) tokens/GPU/s over the tune rows (not excluded). */
    static double rms(List<Validation.Row> rows) {
        double s = 0;
        int n = 0;
        for (Validation.Row r : rows) {
            if (r.excluded() != null || !r.split().equals("tune")) continue;
            double e = Math.log(r.tokensPredicted() / r.tokensObserved());
            s += e * e;
            n++;
        }
        return Math.sqrt(s / n);
    }
}
