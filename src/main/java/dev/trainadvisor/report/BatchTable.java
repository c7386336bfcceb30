package dev.trainadvisor.report;

import dev.trainadvisor.advice.Advice;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The batch summary: one row per run, ranked by the throughput it loses against the model's
 * prediction, with its top cause and its best remedy.
 *
 * @param lostFraction 1 - observed / predicted tokens per GPU per second, 0 when it does as well or better;
 *                     NaN when the run measured nothing
 */
public record BatchTable(List<Row> rows) {

    public record Row(String run, String file, int gpus, String gpu, String model, double observedTokensPerGpuPerS,
                      double predictedTokensPerGpuPerS, double observedOverPredicted, double lostFraction,
                      double mfuObserved, String topCause, String topSeverity, double topImpact,
                      String bestRemedy, double bestSpeedup) {}

    /** @param files the file each advice came from, in the same order */
    public static BatchTable of(List<Advice> advice, List<String> files) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < advice.size(); i++) {
            AdviceView a = AdviceView.of(advice.get(i));
            var c = a.run().path("cluster");
            int gpus = c.path("nodes").asInt() * c.path("gpus_per_node").asInt();
            String gpu = c.path("gpu").isTextual() ? c.path("gpu").asText() : c.path("gpu").path("key").asText();
            double observed = a.observed() == null ? Double.NaN : a.observed().tokensPerGpuPerS();
            double predicted = a.prediction().tokensPerGpuPerS();
            double ratio = observed / predicted;
            double lost = Double.isNaN(ratio) ? Double.NaN : Math.max(0, 1 - ratio);
            AdviceView.DiagnosisView top = a.diagnoses().stream().filter(d -> !d.severity().equals("info")).findFirst()
                    .orElse(a.top());
            AdviceView.RecommendationView best = a.recommendations().isEmpty() ? null : a.recommendations().get(0);
            rows.add(new Row(a.run().path("name").asText(), files.get(i), gpus, gpu, a.run().path("model").path("name").asText(),
                    observed, predicted, ratio, lost, a.observed() == null ? Double.NaN : a.observed().mfuHouse(),
                    top == null ? "" : top.id(), top == null ? "" : top.severity(), top == null ? 0 : top.impactFraction(),
                    best == null ? "" : best.id(), best == null ? Double.NaN : best.speedup()));
        }
        // most throughput lost first; runs that measured nothing last; then by file name
        rows.sort(Comparator.comparingDouble((Row r) -> Double.isNaN(r.lostFraction()) ? -1 : r.lostFraction()).reversed()
                .thenComparing(Row::file));
        return new BatchTable(List.copyOf(rows));
    }

    static final String[] HEADER = {"run", "file", "gpus", "gpu", "model", "observed_tokens_per_gpu_per_s",
            "predicted_tokens_per_gpu_per_s", "observed_over_predicted", "throughput_lost", "mfu_observed",
            "top_cause", "top_severity", "top_impact", "best_remedy", "best_speedup"};

    static String[] cells(Row r) {
        return new String[]{r.run(), r.file(), Integer.toString(r.gpus()), r.gpu(), r.model(), n(r.observedTokensPerGpuPerS()),
                n(r.predictedTokensPerGpuPerS()), n(r.observedOverPredicted()), n(r.lostFraction()), n(r.mfuObserved()),
                r.topCause(), r.topSeverity(), n(r.topImpact()), r.bestRemedy(), n(r.bestSpeedup())};
    }

    private static String n(double x) { return Double.isNaN(x) ? "" : dev.trainadvisor.facts.Fmt.num(x, 4); }

    /** RFC 4180 CSV: fields with a comma, quote or line break are quoted, quotes doubled; "\n" line ends. */
    public String csv() {
        StringBuilder s = new StringBuilder();
        line(s, HEADER);
        for (Row r : rows) line(s, cells(r));
        return s.toString();
    }

    private static void line(StringBuilder s, String[] fields) {
        for (int i = 0; i < fields.length; i++) {
            if (i > 0) s.append(',');
            String f = fields[i];
            if (f.contains(",") || f.contains("\"") || f.contains("\n") || f.contains("\r"))
                s.append('"').append(f.replace("\"", "\"\"")).append('"');
            else s.append(f);
        }
        s.append('\n');
    }

    public String markdown() {
        StringBuilder s = new StringBuilder("# train-advisor: batch of ").append(rows.size()).append(" runs\n\n");
        s.append("Ranked by throughput lost against the model's prediction.\n\n");
        s.append("| # | run | GPUs | observed tokens/GPU/s | predicted | lost | top cause | best remedy |\n");
        s.append("|---:|---|---:|---:|---:|---:|---|---|\n");
        int i = 1;
        for (Row r : rows) {
            s.append("| ").append(i++).append(" | ").append(esc(r.run())).append(" | ").append(r.gpus()).append(" x ")
                    .append(esc(r.gpu())).append(" | ").append(n(r.observedTokensPerGpuPerS())).append(" | ")
                    .append(n(r.predictedTokensPerGpuPerS())).append(" | ")
                    .append(Double.isNaN(r.lostFraction()) ? "" : dev.trainadvisor.facts.Fmt.pct(r.lostFraction())).append(" | ")
                    .append(r.topCause().isEmpty() ? "" : r.topCause() + " (" + r.topSeverity() + ")").append(" | ")
                    .append(r.bestRemedy().isEmpty() ? "" : r.bestRemedy() + " x" + n(r.bestSpeedup())).append(" |\n");
        }
        return s.toString();
    }

    private static String esc(String s) { return s.replace("|", "\\|"); }
}
