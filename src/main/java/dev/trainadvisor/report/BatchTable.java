package dev.trainadvisor.report;

import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.advice.Recommendation;
import dev.trainadvisor.facts.Diagnosis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The batch summary: one row per run with what it loses against what the model says it can reach, its top cause and
 * its best remedy, ranked so that like is compared with like.
 *
 * <p>A run loses the share {@code lost = max(0, 1 - observed / predicted, 1 - 1 / s)} of its time, s the speedup of
 * its best recommendation that keeps the optimisation (house TFLOPS per GPU): a run slower than predicted loses the gap,
 * a run as fast as predicted on a slow layout what the remedy would recover, and a run that stalls every N steps what
 * the stalls take (a remedy priced from its history). Achievable is observed / (1 - lost). Its loss is then
 *
 * <ul>
 *   <li>a total, where the log says how long the run ran: GPU-hours lost = GPUs x hours x lost, hours = steps logged x
 *       the observed step time ({@link Standing#TOTAL});</li>
 *   <li>a rate, where it does not: GPU-hours lost per hour of running = GPUs x lost ({@link Standing#RATE}). A rate is
 *       never added to a total nor ranked against one;</li>
 *   <li>nothing, where the measurements cannot be right (implausible-measurement: {@link Standing#IMPLAUSIBLE}) or the
 *       run measured no throughput ({@link Standing#UNMEASURED}); those are listed apart, not ranked.</li>
 * </ul>
 */
public record BatchTable(List<Row> rows) {

    /** How a run's loss is counted, and so which ranking it is in: the order of the report's sections. */
    public enum Standing {
        /** GPU-hours lost over the hours its log covers. */
        TOTAL("total"),
        /** GPU-hours lost per hour of running: its log gives no step count. */
        RATE("rate"),
        /** Its measurements cannot be right: no loss is computed from them. */
        IMPLAUSIBLE("implausible"),
        /** It measured no throughput: a prediction only. */
        UNMEASURED("unmeasured");

        private final String key;

        Standing(String key) { this.key = key; }

        public String key() { return key; }
    }

    /**
     * @param lostFraction         1 - observed / predicted tokens per GPU per second, 0 when it does as well or better;
     *                             NaN when the run measured nothing
     * @param bestRemedy           the first recommendation that gains (speedup above 1), empty when none does
     * @param achievableTflops     observed / (1 - lostVsAchievable); without a plausible measurement, the larger of the
     *                             prediction and the best same-math recommendation
     * @param lostVsAchievable     max(0, 1 - observed / predicted, 1 - 1 / best same-math speedup); NaN when the run
     *                             measured nothing or its measurements cannot be right
     * @param hours                hours of running the log covers (steps x observed step time); NaN when unknown
     * @param lostGpuHoursPerHour  GPUs x lostVsAchievable: GPU-hours lost per hour of running
     * @param lostGpuHours         GPUs x hours x lostVsAchievable; NaN where the hours are unknown (a rate is no total)
     */
    public record Row(String run, String file, int gpus, String gpu, String model, double observedTokensPerGpuPerS,
                      double predictedTokensPerGpuPerS, double observedOverPredicted, double lostFraction,
                      double mfuObserved, String topCause, String topSeverity, double topImpact,
                      String bestRemedy, double bestSpeedup, double observedTflops, double achievableTflops,
                      double lostVsAchievable, double hours, double lostGpuHoursPerHour, double lostGpuHours,
                      Standing standing) {}

    /** @param files the file each advice came from, in the same order */
    public static BatchTable of(List<Advice> advice, List<String> files) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < advice.size(); i++) rows.add(row(advice.get(i), files.get(i)));
        return ranked(rows);
    }

    /** Totals, then rates, each most lost first; then the runs not ranked; by file name among equals. */
    static final Comparator<Row> RANKING = ranking(Row::standing, BatchTable::rankedBy, Row::file);

    /** The ranking, of rows or of what a CSV's line keeps of its row ({@link Line}). */
    private static <T> Comparator<T> ranking(java.util.function.Function<T, Standing> standing,
                                             java.util.function.ToDoubleFunction<T> rankedBy,
                                             java.util.function.Function<T, String> file) {
        return Comparator.comparing(standing).thenComparing(Comparator.comparingDouble(rankedBy).reversed())
                .thenComparing(file);
    }

    /** The rows ranked ({@link #RANKING}). */
    static BatchTable ranked(List<Row> rows) {
        List<Row> sorted = new ArrayList<>(rows);
        sorted.sort(RANKING);
        return new BatchTable(List.copyOf(sorted));
    }

    /** What a row is ranked by within its standing: its total, its rate, or nothing. */
    static double rankedBy(Row r) {
        return switch (r.standing()) {
            case TOTAL -> r.lostGpuHours();
            case RATE -> r.lostGpuHoursPerHour();
            default -> 0;
        };
    }

    /** The rows of one standing, in rank order. */
    public List<Row> rows(Standing s) { return rows.stream().filter(r -> r.standing() == s).toList(); }

    static Row row(AdviceView a, String file) {
        var c = a.run().path("cluster");
        var o = a.observed();
        AdviceView.DiagnosisView top = topCause(a);
        AdviceView.RecommendationView best = bestRemedy(a);
        return row(new Reading(a.run().path("name").asText(), RunHeader.gpus(a.run()), RunHeader.gpuName(c.path("gpu")),
                a.run().path("model").path("name").asText(), o == null ? Double.NaN : o.tokensPerGpuPerS(),
                a.prediction().tokensPerGpuPerS(), o == null ? Double.NaN : o.mfuHouse(), o == null ? Double.NaN : o.steps(),
                o == null ? Double.NaN : o.stepTimeS(), a.summary().observedTflops(), a.summary().predictedTflops(),
                a.summary().achievableTflops(), !a.implausible().isEmpty(), top == null ? "" : top.id(),
                top == null ? "" : top.severity(), top == null ? 0 : top.impactFraction(), best == null ? "" : best.id(),
                best == null ? Double.NaN : best.speedup(), bestSameMathSpeedup(a.recommendations(),
                AdviceView.RecommendationView::sameMath, AdviceView.RecommendationView::speedup)), file);
    }

    /**
     * As {@code row(AdviceView.of(a), file)}, the same row to the bit, read off the advice without making its view: a
     * batch writing CSV makes a row of every run and nothing else of it, and the view (its breakdown, collectives,
     * operations, explanations and run-file tree) was 4% of the batch's CPU (bench/ab.sh with a probe that left it out).
     * BatchTableTest holds the two readings to each other over the examples and test run files (with a step count,
     * implausible and unmeasured variants of each) and the published runs.
     */
    static Row row(Advice a, String file) {
        var run = a.run().run();
        var cluster = a.run().cluster();
        var o = a.observed();
        var p = a.expected();
        var recs = a.recommendations();
        // the summary's achievable TFLOPS (AdviceView.summary): the best same-math recommendation's, where it beats the
        // step the advice starts from
        double start = a.fit() != null ? a.fit().prediction().tflopsPerGpu() : p.tflopsPerGpu();
        Recommendation achievable = AdviceView.achievableBy(recs, Recommendation::sameMath,
                Recommendation::predictedTflopsPerGpu, start);
        var measured = a.baseline().scenario().run().measured();
        Diagnosis top = topCause(a.diagnoses(), d -> d.severity().key());
        Recommendation best = firstGaining(recs, Recommendation::speedup);
        // the view's run is its run-file tree (SpecWriter), whose names a missing one writes as null
        return row(new Reading(String.valueOf(run.name()), cluster.nodes() * cluster.gpusPerNode(), cluster.gpu().key(),
                String.valueOf(run.model().name()), o == null ? Double.NaN : o.tokensPerGpuPerS(), p.tokensPerGpuPerS(),
                o == null ? Double.NaN : o.mfuHouse(), o == null ? Double.NaN : measured == null ? Double.NaN : measured.steps(),
                o == null ? Double.NaN : o.stepTimeS(), o == null ? Double.NaN : o.tflopsHouse(), p.tflopsPerGpu(),
                achievable != null ? achievable.predictedTflopsPerGpu() : start, !a.baseline().implausible().isEmpty(),
                top == null ? "" : top.id(), top == null ? "" : top.severity().key(), top == null ? 0 : top.impactFraction(),
                best == null ? "" : best.id(), best == null ? Double.NaN : best.speedup(),
                bestSameMathSpeedup(recs, Recommendation::sameMath, Recommendation::speedup)), file);
    }

    /**
     * What a row reads of one run's advice: from its view (the markdown and HTML reports, which make the view anyway)
     * or from the advice itself (CSV); the two readings give the same values, and {@link #row(Reading, String)} the row.
     *
     * @param achievableTflops     the summary's: the best same-math recommendation's TFLOPS where it beats the step
     *                             the advice starts from, else that step's
     * @param bestSameMathSpeedup  the largest speedup of a same-math recommendation, 1 without one
     */
    record Reading(String run, int gpus, String gpu, String model, double observedTokens, double predictedTokens,
                   double mfuObserved, double steps, double observedStepS, double observedTflops, double predictedTflops,
                   double achievableTflops, boolean implausible, String topCause, String topSeverity, double topImpact,
                   String bestRemedy, double bestSpeedup, double bestSameMathSpeedup) {}

    static Row row(Reading a, String file) {
        double ratio = a.observedTokens() / a.predictedTokens();
        double lost = Double.isNaN(ratio) ? Double.NaN : Math.max(0, 1 - ratio);
        double observedTflops = a.observedTflops();
        Standing standing = a.implausible() ? Standing.IMPLAUSIBLE : Double.isNaN(observedTflops) ? Standing.UNMEASURED : null;
        // what the best same-math recommendation wins back, priced by the model or by the run's history (a stall the
        // median step does not show), and what the prediction says the run should reach: the larger loss of the two
        double lostVsAchievable = standing != null ? Double.NaN
                : Math.max(0, Math.max(1 - observedTflops / a.predictedTflops(), 1 - 1 / a.bestSameMathSpeedup()));
        double achievable = Double.isNaN(lostVsAchievable) ? Math.max(a.predictedTflops(), a.achievableTflops())
                : observedTflops / (1 - lostVsAchievable);
        double hours = a.steps() > 0 && a.observedStepS() > 0 ? a.steps() * a.observedStepS() / 3600 : Double.NaN;
        double perHour = a.gpus() * lostVsAchievable;
        if (standing == null) standing = Double.isNaN(hours) ? Standing.RATE : Standing.TOTAL;
        return new Row(a.run(), file, a.gpus(), a.gpu(), a.model(), a.observedTokens(), a.predictedTokens(), ratio, lost,
                a.mfuObserved(), a.topCause(), a.topSeverity(), a.topImpact(), a.bestRemedy(), a.bestSpeedup(),
                observedTflops, achievable, lostVsAchievable, hours, perHour,
                standing == Standing.TOTAL ? perHour * hours : Double.NaN, standing);
    }

    /** The largest speedup of a recommendation that keeps the optimisation, 1 without one. */
    static <R> double bestSameMathSpeedup(List<R> recs, java.util.function.Predicate<R> sameMath,
                                          java.util.function.ToDoubleFunction<R> speedup) {
        return recs.stream().filter(sameMath).mapToDouble(speedup).max().orElse(1);
    }

    /**
     * The remedy a fleet report shows a run's row with: its first recommendation that gains. One that only makes an
     * overflowing run fit at a loss (x0.987) is a recommendation in its own report, not its best remedy.
     */
    static AdviceView.RecommendationView bestRemedy(AdviceView a) {
        return firstGaining(a.recommendations(), AdviceView.RecommendationView::speedup);
    }

    static <R> R firstGaining(List<R> recs, java.util.function.ToDoubleFunction<R> speedup) {
        return recs.stream().filter(r -> speedup.applyAsDouble(r) > 1).findFirst().orElse(null);
    }

    /** The cause that matters most: the first diagnosis of high or medium severity, else the first. */
    static AdviceView.DiagnosisView topCause(AdviceView a) {
        return topCause(a.diagnoses(), AdviceView.DiagnosisView::severity);
    }

    static <D> D topCause(List<D> diagnoses, java.util.function.Function<D, String> severity) {
        return diagnoses.stream().filter(d -> severity.apply(d).equals("high") || severity.apply(d).equals("medium"))
                .findFirst().orElse(diagnoses.isEmpty() ? null : diagnoses.get(0));
    }

    static final String[] HEADER = {"run", "file", "gpus", "gpu", "model", "observed_tokens_per_gpu_per_s",
            "predicted_tokens_per_gpu_per_s", "observed_over_predicted", "throughput_lost", "mfu_observed",
            "top_cause", "top_severity", "top_impact", "best_remedy", "best_speedup", "observed_tflops_per_gpu",
            "achievable_tflops_per_gpu", "lost_vs_achievable", "hours", "lost_gpu_hours_per_hour", "lost_gpu_hours", "standing"};

    static String[] cells(Row r) {
        return new String[]{r.run(), r.file(), Integer.toString(r.gpus()), r.gpu(), r.model(), n(r.observedTokensPerGpuPerS()),
                n(r.predictedTokensPerGpuPerS()), n(r.observedOverPredicted()), n(r.lostFraction()), n(r.mfuObserved()),
                r.topCause(), r.topSeverity(), n(r.topImpact()), r.bestRemedy(), n(r.bestSpeedup()), n(r.observedTflops()),
                n(r.achievableTflops()), n(r.lostVsAchievable()), n(r.hours()), n(r.lostGpuHoursPerHour()), n(r.lostGpuHours()),
                r.standing().key()};
    }

    static String n(double x) { return Double.isNaN(x) ? "" : dev.trainadvisor.facts.Fmt.num(x, 4); }

    /** RFC 4180 CSV (report.Csv): a header naming the columns, fields quoted where they need it, "\n" line ends. */
    public String csv() {
        List<List<String>> out = new ArrayList<>();
        for (Row r : rows) out.add(List.of(cells(r)));
        return Csv.of(List.of(HEADER), out);
    }

    /** The batch table's CSV written a row at a time (Csv.Rows). */
    private static final Csv.Rows CSV_ROWS = new Csv.Rows(List.of(HEADER));

    /**
     * A row's line of the CSV, written when the row comes, with what the ranking reads of the row: a batch's writer
     * formats each run's row while the next runs are advised, where formatting and writing the 10,000 rows of
     * bench/batch.sh's fleet once the last was in had taken 0.13-0.16 s on one core, in code not yet compiled, the
     * other core idle (57th stop). The row itself is not kept: on that fleet a line and its text hold some 240 bytes a
     * run where a row, its fleet entry and its run's name held some 280 (jcmd GC.class_histogram during a batch).
     * Past what a batch holds of its lines' text ({@link CsvLines}), the text goes to a file and the line keeps where
     * it lies there.
     *
     * @param rankedBy {@link #rankedBy} of the row
     * @param csv      the line's text; null where it was moved to a file
     * @param at       where the moved text begins in the file (bytes of UTF-8); -1 while held
     * @param bytes    the moved text's length in bytes
     */
    record Line(Standing standing, double rankedBy, String file, String csv, long at, int bytes) {
        static Line of(Row r) {
            return new Line(r.standing(), BatchTable.rankedBy(r), r.file(),
                    CSV_ROWS.row(List.of(BatchTable.cells(r))), -1, 0);
        }

        /** This line with its text at {@code at} in a file, {@code bytes} long, and no longer held. */
        Line movedTo(long at, int bytes) { return new Line(standing, rankedBy, file, null, at, bytes); }
    }

    /** {@link #RANKING}, read off the lines. */
    static final Comparator<Line> LINE_RANKING = ranking(Line::standing, Line::rankedBy, Line::file);

    /** The CSV's header line. */
    static String csvHeader() { return CSV_ROWS.header(); }

}
