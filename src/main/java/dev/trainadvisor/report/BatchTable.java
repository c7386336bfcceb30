package dev.trainadvisor.report;

import dev.trainadvisor.advice.Advice;

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
        return ofViews(advice.stream().map(AdviceView::of).toList(), files);
    }

    static BatchTable ofViews(List<AdviceView> views, List<String> files) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < views.size(); i++) rows.add(row(views.get(i), files.get(i)));
        return ranked(rows);
    }

    /** The rows ranked: totals, then rates, each most lost first; then the runs not ranked; by file name among equals. */
    static BatchTable ranked(List<Row> rows) {
        List<Row> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparing(Row::standing)
                .thenComparing(Comparator.comparingDouble(BatchTable::rankedBy).reversed())
                .thenComparing(Row::file));
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
        int gpus = RunHeader.gpus(a.run());
        String gpu = RunHeader.gpuName(c.path("gpu"));
        double observed = a.observed() == null ? Double.NaN : a.observed().tokensPerGpuPerS();
        double predicted = a.prediction().tokensPerGpuPerS();
        double ratio = observed / predicted;
        double lost = Double.isNaN(ratio) ? Double.NaN : Math.max(0, 1 - ratio);
        AdviceView.DiagnosisView top = topCause(a);
        AdviceView.RecommendationView best = bestRemedy(a);
        double observedTflops = a.summary().observedTflops();
        boolean implausible = !a.implausible().isEmpty();
        Standing standing = implausible ? Standing.IMPLAUSIBLE : Double.isNaN(observedTflops) ? Standing.UNMEASURED : null;
        // what the best same-math recommendation wins back, priced by the model or by the run's history (a stall the
        // median step does not show), and what the prediction says the run should reach: the larger loss of the two
        double bestSpeedup = a.recommendations().stream().filter(AdviceView.RecommendationView::sameMath)
                .mapToDouble(AdviceView.RecommendationView::speedup).max().orElse(1);
        double lostVsAchievable = standing != null ? Double.NaN
                : Math.max(0, Math.max(1 - observedTflops / a.summary().predictedTflops(), 1 - 1 / bestSpeedup));
        double achievable = Double.isNaN(lostVsAchievable) ? Math.max(a.summary().predictedTflops(), a.summary().achievableTflops())
                : observedTflops / (1 - lostVsAchievable);
        double steps = a.observed() == null ? Double.NaN : a.observed().steps();
        double stepTime = a.observed() == null ? Double.NaN : a.observed().stepTimeS();
        double hours = steps > 0 && stepTime > 0 ? steps * stepTime / 3600 : Double.NaN;
        double perHour = gpus * lostVsAchievable;
        if (standing == null) standing = Double.isNaN(hours) ? Standing.RATE : Standing.TOTAL;
        return new Row(a.run().path("name").asText(), file, gpus, gpu, a.run().path("model").path("name").asText(),
                observed, predicted, ratio, lost, a.observed() == null ? Double.NaN : a.observed().mfuHouse(),
                top == null ? "" : top.id(), top == null ? "" : top.severity(), top == null ? 0 : top.impactFraction(),
                best == null ? "" : best.id(), best == null ? Double.NaN : best.speedup(), observedTflops, achievable,
                lostVsAchievable, hours, perHour, standing == Standing.TOTAL ? perHour * hours : Double.NaN, standing);
    }

    /**
     * The remedy a fleet report shows a run's row with: its first recommendation that gains. One that only makes an
     * overflowing run fit at a loss (x0.987) is a recommendation in its own report, not its best remedy.
     */
    static AdviceView.RecommendationView bestRemedy(AdviceView a) {
        return a.recommendations().stream().filter(r -> r.speedup() > 1).findFirst().orElse(null);
    }

    /** The cause that matters most: the first diagnosis of high or medium severity, else the first. */
    static AdviceView.DiagnosisView topCause(AdviceView a) {
        return a.diagnoses().stream().filter(d -> d.severity().equals("high") || d.severity().equals("medium")).findFirst()
                .orElse(a.top());
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
}
