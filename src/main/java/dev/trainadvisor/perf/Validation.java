package dev.trainadvisor.perf;

import dev.trainadvisor.spec.FlopsConvention;
import dev.trainadvisor.spec.ReferenceRun;
import dev.trainadvisor.spec.RunMetrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The step model against published measured runs: the error of predicted tokens/GPU/s, and of
 * TFLOPS counted in each source's own convention, per source group and split.
 */
public final class Validation {
    private Validation() {}

    /**
     * @param tokensError     predicted over observed tokens/GPU/s, minus 1
     * @param tflopsObserved  as the source printed it (NaN if it printed none)
     * @param tflopsPredicted predicted, counted the source's way
     */
    public record Row(String id, String sourceGroup, String split, String excluded, String observedFrom, double tokensObserved, double tokensPredicted,
                      double tokensError, String convention, double tflopsObserved, double tflopsPredicted,
                      double tflopsError, int gpus, RunClass runClass) {}

    /** Mean absolute percentage error and mean signed error over a set of rows. */
    public record Summary(String group, String split, int rows, double tokensMape, double tokensBias, int tflopsRows,
                          double tflopsMape) {}

    /**
     * @param summaries per source group and split, then overall
     * @param kinds     per kind of run across the groups (RunClass: the family, 256 GPUs or more, what bounds the step)
     */
    public record Report(List<Row> rows, List<Summary> summaries, List<Summary> kinds) {}

    public static Row row(ReferenceRun r) {
        return row(r, StepModel.predict(r.spec().cluster(), r.spec().run()));
    }

    /** The row of {@code r} predicted as {@code p} (by other constants than the shipped ones: Calibration). */
    public static Row row(ReferenceRun r, StepPrediction p) {
        ObservedThroughput o = ObservedThroughput.of(r.spec().cluster(), r.spec().run());
        return row(r, p, o.tokensPerGpuPerS(), o.source() == null ? null : o.source().key());
    }

    /** The row of {@code r} predicted as {@code p}, against {@code tokensObserved} read from {@code observedFrom}. */
    static Row row(ReferenceRun r, StepPrediction p, double tokensObserved, String observedFrom) {
        var c = r.spec().cluster();
        RunMetrics run = r.spec().run();
        double err = p.tokensPerGpuPerS() / tokensObserved - 1;
        FlopsConvention conv = FlopsConvention.parse(run.measured().tflopsConvention());
        double tObs = run.measured().tflopsPerGpu();
        double tPred = Double.NaN, tErr = Double.NaN;
        if (conv != null && !Double.isNaN(tObs)) {
            tPred = p.tokensPerGpuPerS() * ConventionFlops.perToken(conv, run.model(), run.training()) / 1e12;
            tErr = tPred / tObs - 1;
        }
        return new Row(r.id(), r.sourceGroup(), r.split(), r.excluded(), observedFrom, tokensObserved, p.tokensPerGpuPerS(), err, conv == null ? null : conv.key,
                tObs, tPred, tErr, c.gpus(), RunClass.of(c, run, p));
    }

    public static Report of(List<ReferenceRun> runs) {
        List<Row> rows = new ArrayList<>();
        for (ReferenceRun r : runs) {
            if (!ObservedThroughput.of(r.spec().cluster(), r.spec().run()).measured()) continue;
            rows.add(row(r));
        }
        Map<String, List<Row>> byGroup = new LinkedHashMap<>();
        for (Row row : rows) byGroup.computeIfAbsent(row.sourceGroup(), k -> new ArrayList<>()).add(row);
        List<Summary> out = new ArrayList<>();
        for (Map.Entry<String, List<Row>> e : byGroup.entrySet()) {
            for (String split : new String[]{"tune", "holdout", "all"}) out.add(summary(e.getKey(), split, e.getValue()));
        }
        for (String split : new String[]{"tune", "holdout", "all"}) out.add(summary("overall", split, rows));
        out.removeIf(s -> s.rows() == 0);
        Map<String, List<Row>> byKind = new java.util.TreeMap<>();
        for (Row row : rows) for (String k : kinds(row.runClass())) byKind.computeIfAbsent(k, x -> new ArrayList<>()).add(row);
        List<Summary> kinds = new ArrayList<>();
        for (Map.Entry<String, List<Row>> e : byKind.entrySet())
            for (String split : new String[]{"tune", "holdout"}) kinds.add(summary(e.getKey(), split, e.getValue()));
        kinds.removeIf(s -> s.rows() == 0);
        return new Report(List.copyOf(rows), List.copyOf(out), List.copyOf(kinds));
    }

    /** The kinds a run counts in: its family, 256 GPUs or more, what bounds its step. */
    static List<String> kinds(RunClass c) {
        List<String> out = new ArrayList<>();
        out.add("family: " + c.family().name().toLowerCase(java.util.Locale.ROOT));
        if (c.large()) out.add("GPUs: 256 or more");
        out.add("bound by: " + c.bound().name().toLowerCase(java.util.Locale.ROOT));
        return out;
    }

    static Summary summary(String group, String split, List<Row> rows) {
        int n = 0, nt = 0;
        double abs = 0, signed = 0, tabs = 0;
        for (Row r : rows) {
            if (r.excluded() != null) continue;
            if (!split.equals("all") && !split.equals(r.split())) continue;
            n++;
            abs += Math.abs(r.tokensError());
            signed += r.tokensError();
            if (!Double.isNaN(r.tflopsError())) {
                nt++;
                tabs += Math.abs(r.tflopsError());
            }
        }
        return new Summary(group, split, n, n == 0 ? Double.NaN : abs / n, n == 0 ? Double.NaN : signed / n, nt,
                nt == 0 ? Double.NaN : tabs / nt);
    }
}
