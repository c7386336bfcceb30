package dev.trainadvisor.report;

import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.facts.Evidence;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import static dev.trainadvisor.facts.Fmt.num;
import static dev.trainadvisor.facts.Fmt.pct;

/**
 * Advice as one self-contained HTML page: the verdict in a sentence, the numbers at a glance, each diagnosis as the
 * expert system explains itself (rule, facts matched, formula and arithmetic, what it ruled out, how to confirm it),
 * the recommendations in run-file keys, the model's details, inline SVG charts ({@link Charts}) and a glossary.
 * Nothing is fetched and no script runs; every string from the run is escaped.
 */
public final class Html {
    private Html() {}

    public static String of(Advice advice) { return of(AdviceView.of(advice)); }

    public static String of(AdviceView a) {
        String name = a.run().path("name").asText();
        return page("train-advisor: " + name, "<h1>train-advisor: " + esc(name) + "</h1>\n" + run(a, "r", 2)
                + Glossary.html(), "");
    }

    /**
     * One run's report, its headings from level {@code h} down, every element id prefixed with {@code id} so that a
     * fleet page can hold many.
     */
    static String run(AdviceView a, String id, int h) {
        StringBuilder b = new StringBuilder();
        RunHeader header = RunHeader.of(a.run());
        b.append("<dl class=\"header\"><dt>Cluster</dt><dd>").append(esc(header.cluster())).append("</dd><dt>Model</dt><dd>")
                .append(esc(header.model())).append("</dd><dt>Layout</dt><dd>").append(esc(header.layout()))
                .append("</dd><dt>Framework</dt><dd>").append(esc(a.framework().line())).append("</dd>");
        if (!a.assumed().isEmpty()) {
            b.append("<dt>Assumed</dt><dd class=\"assumed\">neither given nor printed by the log:<ul>");
            for (AdviceView.AssumedView x : a.assumed()) b.append("<li>").append(esc(x.line())).append("</li>");
            b.append("</ul></dd>");
        }
        b.append("</dl>\n");
        AdviceView.DiagnosisView top = a.top();
        b.append("<p class=\"verdict ").append(top == null ? "info" : top.severity()).append("\" id=\"").append(id)
                .append("-verdict\">").append(esc(a.verdict())).append("</p>\n");
        summary(b, a, h);
        diagnoses(b, a, id, h);
        recommendations(b, a, id, h);
        details(b, a, id, h);
        return b.toString();
    }

    static void summary(StringBuilder b, AdviceView a, int h) {
        AdviceView.SummaryView s = a.summary();
        AdviceView.PredictionView p = a.prediction();
        AdviceView.FitView f = a.fit();
        AdviceView.ObservedView o = a.observed();
        heading(b, h, "At a glance");
        b.append("<table class=\"glance\"><tr><th></th><th>observed</th><th>predicted</th><th>fitted</th><th>achievable</th></tr>\n");
        b.append("<tr><th>TFLOPS / GPU (house)</th><td>").append(cell(s.observedTflops())).append("</td><td>")
                .append(num(s.predictedTflops()));
        if (s.predictedRange() != null) b.append("<br><small>").append(num(s.predictedRange()[0])).append("-")
                .append(num(s.predictedRange()[1])).append("</small>");
        b.append("</td><td>").append(cell(s.fittedTflops())).append("</td><td>").append(num(s.achievableTflops()))
                .append(s.achievableBy() == null ? "" : "<br><small>by " + esc(s.achievableBy()) + "</small>").append("</td></tr>\n");
        b.append("<tr><th>MFU</th><td>").append(pctCell(s.observedMfu())).append("</td><td>").append(pct(s.predictedMfu()))
                .append("</td><td>").append(pctCell(s.fittedMfu())).append("</td><td>").append(pct(s.achievableMfu()))
                .append("</td></tr>\n");
        b.append("<tr><th>tokens / GPU / s</th><td>").append(o == null ? "" : cell(o.tokensPerGpuPerS())).append("</td><td>")
                .append(num(p.tokensPerGpuPerS())).append("</td><td>").append(f == null ? "" : num(f.tokensPerGpuPerS()))
                .append("</td><td></td></tr>\n");
        b.append("<tr><th>step time (s)</th><td>").append(o == null ? "" : cell(o.stepTimeS())).append("</td><td>")
                .append(num(p.stepTimeS())).append("</td><td>").append(f == null ? "" : num(f.stepTimeS())).append("</td><td></td></tr>\n");
        b.append("</table>\n<p>");
        if (o != null && !Double.isNaN(o.tokensPerGpuPerS())) b.append("Observed: ").append(esc(o.relation())).append(". ");
        if (a.gap() != null) b.append(esc(Markdown.relative(a.gap().observedOverPredicted()))).append(' ');
        if (p.interval() != null) b.append("The predicted range is where 8 in 10 of the ").append(p.interval().rows())
                .append(" validated runs of its class (").append(esc(p.interval().basis()))
                .append(") landed, each predicted without its own source, each source counted once. ");
        b.append("Achievable: what the best recommendation that keeps the optimisation predicts.</p>\n");
    }

    static void diagnoses(StringBuilder b, AdviceView a, String id, int h) {
        heading(b, h, "Diagnoses");
        if (!a.implausible().isEmpty()) b.append("<p>Not fitted: the measurements cannot be right.</p>\n");
        if (a.diagnoses().isEmpty()) b.append("<p>No rule fired.</p>\n");
        int n = 1;
        for (AdviceView.DiagnosisView d : a.diagnoses()) {
            b.append("<article class=\"diagnosis\" id=\"").append(id).append("-d-").append(esc(d.id())).append("\">\n");
            b.append("<h").append(h + 1).append("><span class=\"badge ").append(d.severity()).append("\">").append(d.severity())
                    .append("</span> ").append(n++).append(". ").append(esc(d.title())).append("</h").append(h + 1).append(">\n");
            b.append("<p class=\"rule\">Rule <code>").append(esc(d.rule())).append("</code> concluded <code>").append(esc(d.id()))
                    .append("</code>");
            if (d.impactFraction() > 0) b.append(", claiming ").append(d.share());
            if (d.fault()) b.append("; a fault: something does less than it should");
            b.append(".</p>\n");
            if (!d.evidence().isEmpty()) {
                b.append("<table class=\"evidence\"><caption>The facts it matched</caption><tr><th>fact</th><th>value</th>"
                        + "<th>unit</th></tr>\n");
                for (Evidence e : d.evidence())
                    b.append("<tr><td>").append(esc(e.name())).append("</td><td class=\"num\">").append(num(e.value(), 4))
                            .append("</td><td>").append(esc(e.unit())).append("</td></tr>\n");
                b.append("</table>\n");
            }
            b.append("<p class=\"explanation\"><b>Formula and arithmetic.</b> ").append(esc(d.explanation())).append("</p>\n");
            if (!d.confirm().isEmpty())
                b.append("<p class=\"confirm\"><b>To confirm it:</b> ").append(esc(d.confirm())).append("</p>\n");
            b.append("</article>\n");
        }
        if (!a.ruledOut().isEmpty()) {
            b.append("<div class=\"ruled-out\" id=\"").append(id).append("-ruled-out\"><p><b>Ruled out.</b> These rules were "
                    + "tested and did not fire: what each found falls short of the share of the step it must reach.</p><ul>\n");
            for (AdviceView.RuledOutView r : a.ruledOut())
                b.append("<li><code>").append(esc(r.id())).append("</code>: ").append(esc(r.margin())).append("</li>\n");
            b.append("</ul></div>\n");
        }
        if (a.fit() != null && !a.fit().alternatives().isEmpty())
            b.append("<p>The run's times cannot rule out: ").append(esc(String.join(", ", a.fit().alternatives())))
                    .append(" (within a Bayes factor of 3 of the chosen ").append(esc(a.fit().hypothesis())).append(").</p>\n");
    }

    static void recommendations(StringBuilder b, AdviceView a, String id, int h) {
        heading(b, h, "Recommendations");
        List<AdviceView.RecommendationView> recs = a.recommendations();
        if (recs.isEmpty()) {
            b.append("<p>None with a predicted gain.</p>\n");
            return;
        }
        b.append(Charts.recommendations(id + "-chart-recommendations", a));
        int n = 1;
        for (AdviceView.RecommendationView r : recs) {
            b.append("<article class=\"recommendation\" id=\"").append(id).append("-rec-").append(esc(r.id())).append("\">\n<h")
                    .append(h + 1).append(">").append(n++).append(". ").append(esc(r.action())).append("</h").append(h + 1).append(">\n");
            b.append("<p class=\"gain\">Predicted <b>x").append(num(r.speedup())).append("</b> (x").append(num(r.speedupInterval()[0]))
                    .append("-").append(num(r.speedupInterval()[1])).append("): ").append(num(r.predictedTflopsPerGpu()))
                    .append(" TFLOPS per GPU, step ").append(num(r.predictedStepTimeS())).append(" s; memory ")
                    .append(num(r.predictedMemoryGb())).append(" of ").append(num(r.memoryCapacityGb())).append(" GB (")
                    .append(num(r.memoryHeadroomGb())).append(" GB free)");
            if (!r.sameMath()) b.append("; <b>changes the optimisation</b>");
            b.append(". Addresses ").append(esc(String.join(", ", r.addresses()))).append(".</p>\n");
            if (r.change().isEmpty()) {
                b.append("<p class=\"change\">No run-file key changes: a change to how the run is operated, priced from its "
                        + "history.</p>\n");
            } else {
                b.append("<table class=\"change\"><caption>Change in the run file</caption><tr><th>key</th><th>new value</th>"
                        + "</tr>\n");
                for (Map.Entry<String, Object> e : r.change().entrySet())
                    b.append("<tr><td><code>").append(esc(e.getKey())).append("</code></td><td><code>")
                            .append(esc(e.getValue() == null ? "(remove)" : String.valueOf(e.getValue()))).append("</code></td></tr>\n");
                b.append("</table>\n");
            }
            if (r.nextBottleneck() != null)
                b.append("<p class=\"next\"><b>Next bottleneck:</b> ").append(esc(r.nextBottleneck().collective())).append(" on ")
                        .append(esc(r.nextBottleneck().link())).append(", ").append(num(r.nextBottleneck().seconds())).append(" s (")
                        .append(pct(r.nextBottleneck().fraction())).append(" of the changed step).</p>\n");
            b.append("<p><small>").append(esc(r.explanation())).append("</small></p>\n</article>\n");
        }
    }

    static void details(StringBuilder b, AdviceView a, String id, int h) {
        heading(b, h, "The model's details");
        AdviceView.PredictionView p = a.prediction();
        b.append(Charts.timeline(id + "-chart-timeline", a));
        b.append("<table><caption>Predicted step</caption><tr><th>phase</th><th>seconds</th><th>exposed</th><th>link</th></tr>\n");
        for (AdviceView.BreakdownLine l : p.breakdown())
            b.append("<tr><td>").append(esc(l.phase())).append("</td><td class=\"num\">").append(num(l.seconds()))
                    .append("</td><td class=\"num\">").append(num(l.exposedSeconds())).append("</td><td>")
                    .append(l.link() == null ? "" : esc(l.link())).append("</td></tr>\n");
        b.append("</table>\n");
        if (!p.collectives().isEmpty()) {
            b.append("<table><caption>Collectives per step</caption><tr><th>collective</th><th>group</th><th>GB</th><th>calls</th>"
                    + "<th>link</th><th>busbw GB/s</th><th>alpha us</th><th>algorithm</th><th>seconds</th><th>exposed</th></tr>\n");
            for (AdviceView.CollectiveLine c : p.collectives())
                b.append("<tr><td>").append(esc(c.name())).append("</td><td>").append(esc(c.group())).append(" x").append(c.groupSize())
                        .append("</td><td class=\"num\">").append(num(c.bytesPerStep() / 1e9)).append("</td><td class=\"num\">")
                        .append(c.calls()).append("</td><td>").append(esc(c.link())).append("</td><td class=\"num\">")
                        .append(num(c.busbwGbps())).append("</td><td class=\"num\">").append(num(c.alphaUs())).append("</td><td>")
                        .append(esc(c.algorithm())).append("</td><td class=\"num\">").append(num(c.seconds()))
                        .append("</td><td class=\"num\">").append(num(c.exposedSeconds())).append("</td></tr>\n");
            b.append("</table>\n");
        }
        b.append(Charts.memory(id + "-chart-memory", p.memory()));
        b.append(Charts.roofline(id + "-chart-roofline", p));
        AdviceView.FitView f = a.fit();
        if (f != null) {
            b.append("<p>The fit weighed a healthy run against one quantity far off and chose <b>").append(esc(f.hypothesis()))
                    .append("</b> (probability ").append(pct(f.posterior())).append(").</p>\n");
            b.append(Charts.fit(id + "-chart-fit", f));
            b.append("<table><caption>Fitted to the run's times</caption><tr><th>parameter</th><th>expected</th><th>fitted</th>"
                    + "<th>set by</th><th>prior</th></tr>\n");
            for (AdviceView.FitParameterView q : f.parameters())
                b.append("<tr><td>").append(esc(q.parameter())).append("</td><td>").append(num(q.expected())).append(' ')
                        .append(esc(q.unit())).append("</td><td>").append(num(q.fitted())).append(' ').append(esc(q.unit()))
                        .append("</td><td>").append(esc(q.setBy())).append("</td><td>").append(esc(q.priorSource()))
                        .append("</td></tr>\n");
            b.append("</table>\n");
        }
        for (String note : p.notes()) b.append("<p>Not modelled: ").append(esc(note)).append(".</p>\n");
    }

    static void heading(StringBuilder b, int level, String text) {
        b.append("<h").append(level).append(">").append(esc(text)).append("</h").append(level).append(">\n");
    }

    private static String cell(double v) { return Double.isNaN(v) ? "" : num(v); }

    private static String pctCell(double v) { return Double.isNaN(v) ? "" : pct(v); }

    /** The fleet page: the ranking, its charts, the files that failed, and every run's report below. */
    public static String of(Fleet fleet) { return FleetReport.html(fleet); }

    static final String STYLE = "body{font-family:system-ui,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222;"
            + "line-height:1.4}table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:3px 7px;"
            + "text-align:left;vertical-align:top}td.num{text-align:right}caption{text-align:left;font-weight:600;padding:2px 0}"
            + "figure.chart{margin:1em 0;overflow-x:auto}figcaption{font-weight:600}dl.header{display:grid;"
            + "grid-template-columns:max-content 1fr;gap:2px 12px}dl.header dt{font-weight:600}dl.header dd{margin:0}"
            + ".badge{padding:1px 6px;border-radius:3px;color:#fff;font-size:.8em;border:1px solid #000}.high{background:#8b1a1a}"
            + ".medium{background:#b35900}.low{background:#555}.info{background:#1d4e89}p.verdict{padding:.6em;"
            + "border-left:8px solid #8b1a1a;background:#f6eaea;font-size:1.1em}p.verdict.info,p.verdict.low{border-color:#1d4e89;"
            + "background:#eaf0f6}p.verdict.medium{border-color:#b35900}article{border-top:1px solid #ccc;margin-top:1em}"
            + "#glossary dt{font-weight:600}#glossary dd{margin:0 0 .3em 1.5em}th[data-sort]{cursor:pointer}th[aria-sort=ascending]::after{content:' \\25B2'}"
            + "th[aria-sort=descending]::after{content:' \\25BC'}@media print{details{display:none}}";

    static String page(String title, String body, String script) { return pageStart(title) + body + pageEnd(script); }

    /** A page up to its body's content. */
    static String pageStart(String title) {
        return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + esc(title) + "</title>\n"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<style>" + STYLE + "</style></head>\n"
                + "<body>\n";
    }

    /** A page from its body's content on. */
    static String pageEnd(String script) { return (script.isEmpty() ? "" : "<script>" + script + "</script>\n") + "</body></html>\n"; }

    /** Text or an attribute value, escaped: a run named {@code <script>} stays text. */
    static String esc(String s) {
        if (s == null) return "";
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
