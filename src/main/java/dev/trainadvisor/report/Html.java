package dev.trainadvisor.report;

import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.facts.Evidence;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static dev.trainadvisor.facts.Fmt.num;
import static dev.trainadvisor.facts.Fmt.pct;

/**
 * Advice as one self-contained HTML page with inline SVG charts (no scripts, nothing fetched): the
 * step's breakdown, and each recommendation's predicted TFLOPS against the run's.
 */
public final class Html {
    private Html() {}

    static final String[] PALETTE = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
            "#ff9da7", "#9c755f", "#bab0ac"};

    public static String of(Advice advice) { return of(AdviceView.of(advice)); }

    public static String of(AdviceView a) {
        StringBuilder b = new StringBuilder();
        String name = a.run().path("name").asText();
        b.append("<h1>train-advisor: ").append(esc(name)).append("</h1>\n");
        AdviceView.DiagnosisView top = a.top();
        if (top != null) {
            b.append("<p class=\"verdict ").append(top.severity()).append("\"><b>").append(esc(top.severity().toUpperCase(Locale.ROOT)))
                    .append(":</b> ").append(esc(top.title()));
            if (top.impactFraction() > 0) b.append(" (").append(pct(top.impactFraction())).append(" of the step)");
            b.append("</p>\n");
        }
        AdviceView.PredictionView p = a.prediction();
        AdviceView.ObservedView o = a.observed();
        b.append("<table><tr><th></th><th>predicted</th><th>observed</th></tr>\n");
        kpi(b, "step time (s)", p.stepTimeS(), o == null ? Double.NaN : o.stepTimeS());
        kpi(b, "tokens / GPU / s", p.tokensPerGpuPerS(), o == null ? Double.NaN : o.tokensPerGpuPerS());
        kpi(b, "TFLOPS / GPU (house)", p.tflopsPerGpu(), o == null ? Double.NaN : o.tflopsPerGpuHouse());
        b.append("<tr><td>MFU</td><td>").append(pct(p.mfu())).append("</td><td>").append(o == null ? "" : pct(o.mfuHouse()))
                .append("</td></tr></table>\n");
        if (o != null) b.append("<p>Observed: ").append(esc(o.relation())).append(".</p>\n");
        AdviceView.IntervalView iv = p.interval();
        if (iv != null) b.append("<p>Predicted range: ").append(num(iv.tflopsPerGpu()[0])).append("-")
                .append(num(iv.tflopsPerGpu()[1])).append(" TFLOPS, where 8 in 10 of the ").append(iv.rows())
                .append(" validated runs of its class (").append(esc(iv.basis())).append(") landed.</p>\n");

        b.append("<h2>Where the step goes</h2>\n");
        List<String> labels = new ArrayList<>();
        List<Double> values = new ArrayList<>();
        for (AdviceView.BreakdownLine l : p.breakdown()) {
            if (l.exposedSeconds() <= 0) continue;
            labels.add(l.phase() + (l.link() == null ? "" : " (" + l.link() + ")"));
            values.add(l.exposedSeconds());
        }
        b.append(stackedBar(labels, values, "s")).append('\n');

        if (a.fit() != null) {
            b.append("<h2>Fitted to the run's timings</h2>\n<table><tr><th>parameter</th><th>expected</th><th>fitted</th><th>set by</th><th>prior</th></tr>\n");
            for (AdviceView.FitParameterView f : a.fit().parameters())
                b.append("<tr><td>").append(esc(f.parameter())).append("</td><td>").append(num(f.expected())).append(' ').append(esc(f.unit()))
                        .append("</td><td>").append(num(f.fitted())).append(' ').append(esc(f.unit())).append("</td><td>")
                        .append(esc(f.setBy())).append("</td><td>").append(esc(f.priorSource()))
                        .append("</td></tr>\n");
            b.append("</table>\n");
        }

        b.append("<h2>Diagnoses</h2>\n");
        if (a.diagnoses().isEmpty()) b.append("<p>No rule fired.</p>\n");
        for (AdviceView.DiagnosisView d : a.diagnoses()) {
            b.append("<h3><span class=\"badge ").append(d.severity()).append("\">").append(d.severity()).append("</span> ")
                    .append(esc(d.title())).append("</h3>\n<p><code>").append(esc(d.id())).append("</code>");
            if (d.impactFraction() > 0) b.append(", ").append(pct(d.impactFraction())).append(" of the step");
            b.append(", rule <code>").append(esc(d.rule())).append("</code></p>\n<p>").append(esc(d.explanation())).append("</p>\n");
            if (!d.evidence().isEmpty()) {
                b.append("<table><tr><th>evidence</th><th>value</th><th>unit</th></tr>\n");
                for (Evidence e : d.evidence())
                    b.append("<tr><td>").append(esc(e.name())).append("</td><td>").append(num(e.value(), 4)).append("</td><td>")
                            .append(esc(e.unit())).append("</td></tr>\n");
                b.append("</table>\n");
            }
        }

        b.append("<h2>Recommendations</h2>\n");
        List<AdviceView.RecommendationView> recs = a.recommendations();
        if (recs.isEmpty()) {
            b.append("<p>None with a predicted gain.</p>\n");
        } else {
            List<String> names = new ArrayList<>(List.of("as run"));
            // "as run": what the run measured (house count), else the prediction
            List<Double> tflops = new ArrayList<>(List.of(o != null ? o.tflopsPerGpuHouse() : p.tflopsPerGpu()));
            for (AdviceView.RecommendationView r : recs) {
                names.add(r.id());
                tflops.add(r.predictedTflopsPerGpu());
            }
            b.append(hbars(names, tflops, "TFLOPS/GPU", true)).append('\n');
            b.append("<table><tr><th>#</th><th>action</th><th>predicted TFLOPS/GPU</th><th>speedup (range)</th><th>addresses</th></tr>\n");
            int i = 1;
            for (AdviceView.RecommendationView r : recs)
                b.append("<tr><td>").append(i++).append("</td><td>").append(esc(r.action())).append("<br><small>")
                        .append(esc(r.explanation())).append("</small></td><td>").append(num(r.predictedTflopsPerGpu()))
                        .append("</td><td>x").append(num(r.speedup())).append(" (").append(num(r.speedupInterval()[0]))
                        .append("-").append(num(r.speedupInterval()[1])).append(")</td><td>")
                        .append(esc(String.join(", ", r.addresses()))).append("</td></tr>\n");
            b.append("</table>\n");
        }
        AdviceView.MemoryView m = p.memory();
        b.append("<h2>Memory per GPU</h2>\n<p>").append(num(m.totalGb())).append(" of ").append(num(m.capacityGb())).append(" GB</p>\n");
        List<String> memLabels = List.of("weights", "gradients", "optimizer", "activations", "logits", "buffers");
        List<Double> memValues = List.of(m.weightsGb(), m.gradientsGb(), m.optimizerGb(), m.activationsGb(), m.logitsGb(), m.buffersGb());
        b.append(stackedBar(memLabels, memValues, "GB")).append('\n');
        return page("train-advisor: " + name, b.toString());
    }

    public static String of(BatchTable t) {
        StringBuilder b = new StringBuilder("<h1>train-advisor: batch of ").append(t.rows().size()).append(" runs</h1>\n");
        b.append("<p>Ranked by throughput lost against the model's prediction.</p>\n");
        List<String> names = new ArrayList<>();
        List<Double> lost = new ArrayList<>();
        for (BatchTable.Row r : t.rows()) {
            if (Double.isNaN(r.lostFraction())) continue;
            names.add(r.run());
            lost.add(100 * r.lostFraction());
        }
        if (!names.isEmpty()) b.append(hbars(names, lost, "% lost", false)).append('\n');
        b.append("<table><tr><th>#</th><th>run</th><th>GPUs</th><th>observed tokens/GPU/s</th><th>predicted</th><th>lost</th>"
                + "<th>top cause</th><th>best remedy</th></tr>\n");
        int i = 1;
        for (BatchTable.Row r : t.rows()) {
            b.append("<tr><td>").append(i++).append("</td><td>").append(esc(r.run())).append("<br><small>").append(esc(r.file()))
                    .append("</small></td><td>").append(r.gpus()).append(" x ").append(esc(r.gpu())).append("</td><td>")
                    .append(num(r.observedTokensPerGpuPerS(), 4)).append("</td><td>").append(num(r.predictedTokensPerGpuPerS(), 4))
                    .append("</td><td>").append(Double.isNaN(r.lostFraction()) ? "" : pct(r.lostFraction())).append("</td><td>");
            if (!r.topCause().isEmpty())
                b.append("<span class=\"badge ").append(r.topSeverity()).append("\">").append(r.topSeverity()).append("</span> ")
                        .append(esc(r.topCause()));
            b.append("</td><td>").append(r.bestRemedy().isEmpty() ? "" : esc(r.bestRemedy()) + " x" + num(r.bestSpeedup()))
                    .append("</td></tr>\n");
        }
        b.append("</table>\n");
        return page("train-advisor: batch", b.toString());
    }

    /** One horizontal bar split into segments, with a legend. */
    static String stackedBar(List<String> labels, List<Double> values, String unit) {
        double total = values.stream().mapToDouble(Double::doubleValue).sum();
        if (!(total > 0)) return "";
        int width = 720, barHeight = 28, legendRow = 18;
        int height = barHeight + 12 + legendRow * labels.size();
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\">", width, height));
        double x = 0;
        for (int i = 0; i < values.size(); i++) {
            double w = values.get(i) / total * width;
            s.append(String.format(Locale.ROOT, "<rect x=\"%.2f\" y=\"0\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>%s: %s %s</title></rect>",
                    x, w, barHeight, PALETTE[i % PALETTE.length], esc(labels.get(i)), num(values.get(i)), unit));
            x += w;
        }
        for (int i = 0; i < labels.size(); i++) {
            int y = barHeight + 12 + legendRow * i;
            s.append(String.format(Locale.ROOT, "<rect x=\"0\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                            + "<text x=\"18\" y=\"%d\" font-size=\"12\">%s: %s %s (%s)</text>", y, PALETTE[i % PALETTE.length],
                    y + 11, esc(labels.get(i)), num(values.get(i)), unit, pct(values.get(i) / total)));
        }
        return s.append("</svg>").toString();
    }

    /** Horizontal bars, one per label, scaled to the largest value. */
    static String hbars(List<String> labels, List<Double> values, String unit, boolean firstIsReference) {
        double max = values.stream().mapToDouble(Double::doubleValue).filter(v -> !Double.isNaN(v)).max().orElse(0);
        if (!(max > 0)) return "";
        int labelWidth = 220, barWidth = 440, row = 22;
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\">", labelWidth + barWidth + 150,
                row * labels.size() + 4));
        for (int i = 0; i < labels.size(); i++) {
            double v = values.get(i);
            double w = Double.isNaN(v) ? 0 : v / max * barWidth;
            int y = row * i + 2;
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"end\">%s</text>"
                            + "<rect x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"16\" fill=\"%s\"/>"
                            + "<text x=\"%.2f\" y=\"%d\" font-size=\"12\">%s %s</text>",
                    labelWidth - 6, y + 13, esc(labels.get(i)), labelWidth, y, w, PALETTE[i == 0 && firstIsReference ? 9 : 0],
                    labelWidth + w + 4, y + 13, num(v), unit));
        }
        return s.append("</svg>").toString();
    }

    static void kpi(StringBuilder b, String name, double predicted, double observed) {
        b.append("<tr><td>").append(esc(name)).append("</td><td>").append(num(predicted)).append("</td><td>")
                .append(Double.isNaN(observed) ? "" : num(observed)).append("</td></tr>\n");
    }

    static String page(String title, String body) {
        return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + esc(title) + "</title>\n"
                + "<style>body{font-family:system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em;color:#222}"
                + "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}"
                + ".badge{padding:1px 6px;border-radius:3px;color:#fff;font-size:.8em}.high{background:#c0392b}.medium{background:#e67e22}"
                + ".low{background:#7f8c8d}.info{background:#2980b9}p.verdict{padding:.6em;border-left:6px solid #c0392b;background:#fbeeee}"
                + "p.verdict.info,p.verdict.low{border-color:#2980b9;background:#eef5fb}</style></head>\n<body>\n"
                + body + "</body></html>\n";
    }

    static String esc(String s) {
        if (s == null) return "";
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
