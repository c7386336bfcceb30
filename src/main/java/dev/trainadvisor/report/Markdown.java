package dev.trainadvisor.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.facts.Evidence;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import static dev.trainadvisor.facts.Fmt.num;
import static dev.trainadvisor.facts.Fmt.pct;
import static dev.trainadvisor.report.MdText.cell;
import static dev.trainadvisor.report.MdText.code;
import static dev.trainadvisor.report.MdText.prose;

/** Advice as a Markdown report: verdict first, then the numbers it rests on, causes, remedies, and the step. */
public final class Markdown {
    private Markdown() {}

    public static String of(Advice advice) { return of(AdviceView.of(advice)); }

    /** The fleet report: the ranking, GPU-hours lost by cause, the failed files, then every run's report. */
    public static String of(Fleet fleet) { return FleetReport.markdown(fleet); }

    public static String of(AdviceView a) {
        StringBuilder s = new StringBuilder();
        JsonNode run = a.run();
        RunHeader h = RunHeader.of(run);
        s.append("# train-advisor: ").append(FleetReport.md(run.path("name").asText())).append("\n\n");
        s.append("**Cluster:** ").append(prose(h.cluster())).append("  \n**Model:** ").append(prose(h.model())).append("  \n**Layout:** ")
                .append(prose(h.layout())).append("  \n**Framework:** ").append(prose(a.framework().line()));
        if (!a.assumed().isEmpty()) {
            s.append("  \n**Assumed** (neither given nor printed by the log):");
            for (AdviceView.AssumedView x : a.assumed()) s.append("  \n- ").append(FleetReport.md(x.line()));
        }
        s.append("\n\n");

        AdviceView.DiagnosisView top = a.top();
        s.append("> **").append(top == null ? "INFO" : top.severity().toUpperCase(Locale.ROOT)).append(":** ")
                .append(prose(a.verdict())).append("\n\n");

        AdviceView.PredictionView pr = a.prediction();
        AdviceView.FitView fit = a.fit();
        AdviceView.ObservedView o = a.observed();
        AdviceView.SummaryView sum = a.summary();
        s.append("## Predicted, fitted and observed\n\n| | predicted | fitted | observed | achievable |\n|---|---:|---:|---:|---:|\n");
        row(s, "step time (s)", pr.stepTimeS(), fit == null ? Double.NaN : fit.stepTimeS(), o == null ? Double.NaN : o.stepTimeS());
        row(s, "tokens / GPU / s", pr.tokensPerGpuPerS(), fit == null ? Double.NaN : fit.tokensPerGpuPerS(),
                o == null ? Double.NaN : o.tokensPerGpuPerS());
        row(s, "TFLOPS / GPU (house)", pr.tflopsPerGpu(), fit == null ? Double.NaN : fit.tflopsPerGpu(),
                o == null ? Double.NaN : o.tflopsPerGpuHouse(), sum.achievableTflops());
        s.append("| MFU | ").append(pct(pr.mfu())).append(" | ").append(fit == null ? "" : pct(fit.mfu())).append(" | ")
                .append(o == null || Double.isNaN(o.mfuHouse()) ? "" : pct(o.mfuHouse())).append(" | ")
                .append(pct(sum.achievableMfu())).append(" |\n\n");
        s.append("Predicted: the catalogue's hardware at its default efficiencies. ");
        if (fit != null) s.append("Fitted: the model fitted to the run's times; every diagnosis and recommendation starts from it. ");
        s.append(sum.achievableBy() == null ? "Achievable: no recommendation that keeps the optimisation gains on it. "
                : "Achievable: what recommendation " + sum.achievableBy() + " predicts. ");
        if (o != null && !Double.isNaN(o.tokensPerGpuPerS())) s.append("Observed: ").append(prose(o.relation())).append(".");
        else s.append("Observed: no throughput was measured.");
        if (a.gap() != null) s.append(" ").append(relative(a.gap().observedOverPredicted()));
        AdviceView.IntervalView iv = pr.interval();
        if (iv != null) s.append(" Predicted range: ").append(num(iv.tflopsPerGpu()[0])).append("-")
                .append(num(iv.tflopsPerGpu()[1])).append(" TFLOPS (").append(num(iv.tokensPerGpuPerS()[0])).append("-")
                .append(num(iv.tokensPerGpuPerS()[1])).append(" tokens/GPU/s), where 8 in 10 of the ").append(iv.rows())
                .append(" validated runs of its class (").append(iv.basis()).append(") landed, each predicted without its own source, each source counted once.");
        s.append("\n\n");

        if (fit != null) {
            s.append("## Fitted to the run's times\n\n");
            s.append("The fit weighed a healthy run against one quantity far off and chose **").append(fit.hypothesis())
                    .append("** (probability ").append(pct(fit.posterior())).append(")");
            if (!fit.alternatives().isEmpty())
                s.append("; the times cannot rule out ").append(String.join(", ", fit.alternatives()));
            s.append(".\n\n| parameter | expected | fitted | one sigma | set by | prior |\n|---|---:|---:|---:|---|---|\n");
            for (AdviceView.FitParameterView fp : fit.parameters())
                s.append("| ").append(fp.parameter()).append(" | ").append(num(fp.expected())).append(' ').append(fp.unit())
                        .append(" | ").append(num(fp.fitted())).append(' ').append(fp.unit()).append(" | ").append(num(fp.low()))
                        .append("-").append(num(fp.high())).append(" | ")
                        .append(fp.setBy()).append(" | ").append(fp.priorSource()).append(" |\n");
            s.append("\n");
        }
        if (!a.implausible().isEmpty()) {
            s.append("Not fitted: the measurements cannot be right (implausible-measurement).\n\n");
        }

        s.append("## Diagnoses\n\n");
        if (a.diagnoses().isEmpty()) s.append("No rule fired: the run measured no throughput to judge, and nothing in its"
                + " configuration costs a share of the step.\n\n");
        int i = 1;
        for (AdviceView.DiagnosisView d : a.diagnoses()) {
            s.append("### ").append(i++).append(". ").append(prose(d.title())).append("\n\n");
            s.append("`").append(code(d.id())).append("`, severity **").append(d.severity()).append("**");
            if (d.impactFraction() > 0) s.append(", ").append(d.share());
            s.append(", rule `").append(code(d.rule())).append("`\n\n").append(prose(d.explanation())).append("\n\n");
            if (!d.evidence().isEmpty()) {
                s.append("| evidence | value | unit |\n|---|---:|---|\n");
                for (Evidence e : d.evidence()) s.append("| ").append(cell(e.name())).append(" | ").append(num(e.value(), 4))
                        .append(" | ").append(cell(e.unit())).append(" |\n");
                s.append("\n");
            }
            if (!d.confirm().isEmpty()) s.append("To confirm it: ").append(prose(d.confirm())).append("\n\n");
        }
        if (!a.ruledOut().isEmpty()) {
            s.append("Ruled out (tested, short of the share of the step they must reach):\n\n");
            for (AdviceView.RuledOutView r : a.ruledOut()) s.append("- `").append(code(r.id())).append("`: ").append(prose(r.margin())).append("\n");
            s.append("\n");
        }

        s.append("## Recommendations\n\n");
        List<AdviceView.RecommendationView> recs = a.recommendations();
        if (recs.isEmpty()) {
            s.append("None with a predicted gain.\n\n");
        } else {
            if (fit != null) s.append("Priced from the fitted step. Speedup = predicted / fitted throughput; the range covers the"
                    + " explanations of the run's times the fit cannot rule out.\n\n");
            else s.append("Priced from the predicted step (the run measured no times to fit). Speedup = changed / predicted"
                    + " throughput.\n\n");
            s.append("| # | action | predicted TFLOPS/GPU | speedup | range | same math | addresses |\n|---:|---|---:|---:|---|---|---|\n");
            i = 1;
            for (AdviceView.RecommendationView r : recs) s.append("| ").append(i++).append(" | ").append(cell(r.action())).append(" | ")
                    .append(num(r.predictedTflopsPerGpu())).append(" | x").append(num(r.speedup())).append(" | x")
                    .append(num(r.speedupInterval()[0])).append("-").append(num(r.speedupInterval()[1])).append(" | ")
                    .append(r.sameMath() ? "yes" : "no: changes the optimisation").append(" | ")
                    .append(cell(String.join(", ", r.addresses()))).append(" |\n");
            s.append("\n");
            for (AdviceView.RecommendationView r : recs) {
                s.append("- **").append(prose(r.id())).append("**: ");
                if (r.change().isEmpty()) s.append("no run-file key changes. ");
                else {
                    s.append("change `");
                    boolean first = true;
                    for (Map.Entry<String, Object> e : r.change().entrySet()) {
                        if (!first) s.append(", ");
                        s.append(code(e.getKey())).append(": ").append(e.getValue() == null ? "(remove)" : code(String.valueOf(e.getValue())));
                        first = false;
                    }
                    s.append("`. ");
                }
                s.append(prose(r.explanation())).append("\n");
            }
            s.append("\n");
        }

        s.append("## Predicted step\n\n| phase | seconds | exposed | link |\n|---|---:|---:|---|\n");
        for (AdviceView.BreakdownLine b : pr.breakdown()) s.append("| ").append(cell(b.phase())).append(" | ").append(num(b.seconds()))
                .append(" | ").append(num(b.exposedSeconds())).append(" | ").append(b.link() == null ? "" : cell(b.link())).append(" |\n");
        AdviceView.MemoryView mem = pr.memory();
        s.append("\nMemory per GPU: ").append(num(mem.totalGb())).append(" of ").append(num(mem.capacityGb()))
                .append(" GB (weights ").append(num(mem.weightsGb())).append(", gradients ").append(num(mem.gradientsGb()))
                .append(", optimizer ").append(num(mem.optimizerGb())).append(", activations ").append(num(mem.activationsGb()))
                .append(", logits ").append(num(mem.logitsGb())).append(", buffers ").append(num(mem.buffersGb())).append(").\n");
        if (mem.stages().size() > 1) {
            s.append("\n| pipeline stage | GB | of which activations |\n|---:|---:|---:|\n");
            for (AdviceView.StageMemoryView st : mem.stages())
                s.append("| ").append(st.stage()).append(" | ").append(num(st.totalGb())).append(" | ").append(num(st.activationsGb())).append(" |\n");
        }
        for (String n : pr.notes()) s.append("\nNot modelled: ").append(prose(n)).append(".\n");
        s.append("\n## Glossary\n\n").append(Glossary.markdown());
        return s.toString();
    }

    private static void row(StringBuilder s, String name, double predicted, double fitted, double observed) {
        row(s, name, predicted, fitted, observed, Double.NaN);
    }

    private static void row(StringBuilder s, String name, double predicted, double fitted, double observed, double achievable) {
        s.append("| ").append(name).append(" | ").append(num(predicted)).append(" | ")
                .append(Double.isNaN(fitted) ? "" : num(fitted)).append(" | ")
                .append(Double.isNaN(observed) ? "" : num(observed)).append(" | ")
                .append(Double.isNaN(achievable) ? "" : num(achievable)).append(" |\n");
    }

    /**
     * "Observed throughput is 1.005x predicted (0.5% above)": four significant digits and the difference in words, so
     * a run a few percent off does not read as "1x".
     */
    static String relative(double observedOverPredicted) {
        double d = observedOverPredicted - 1;
        String words = Math.abs(d) < 0.0005 ? "as predicted"
                : String.format(java.util.Locale.ROOT, "%.1f%% %s", Math.abs(d) * 100, d > 0 ? "above" : "below");
        return "Observed throughput is " + dev.trainadvisor.facts.Fmt.num(observedOverPredicted, 4) + "x predicted (" + words + ").";
    }
}
