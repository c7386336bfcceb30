package dev.trainadvisor.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.advice.Recommendation;
import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.Evidence;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import static dev.trainadvisor.facts.Fmt.num;
import static dev.trainadvisor.facts.Fmt.pct;

/** Advice as a Markdown report: verdict first, then causes, remedies, and the numbers behind them. */
public final class Markdown {
    private Markdown() {}

    public static String of(Advice a) {
        StringBuilder s = new StringBuilder();
        JsonNode run = a.run();
        JsonNode c = run.path("cluster");
        s.append("# train-advisor: ").append(run.path("name").asText()).append("\n\n");
        s.append("**Cluster:** ").append(c.path("nodes").asInt()).append(" node(s) x ").append(c.path("gpus_per_node").asInt())
                .append(" ").append(gpuName(c.path("gpu"))).append(", intra-node ").append(c.path("intra_node").path("link").asText("none"));
        if (c.path("intra_node").has("busbw_gbps")) s.append(" (measured ").append(num(c.path("intra_node").path("busbw_gbps").asDouble())).append(" GB/s)");
        if (c.has("inter_node")) s.append(", inter-node ").append(c.path("inter_node").path("nics_per_node").asInt()).append(" x ")
                .append(c.path("inter_node").path("link").asText());
        s.append("  \n");
        JsonNode m = run.path("model"), p = run.path("parallel"), t = run.path("training");
        s.append("**Model:** ").append(m.path("name").asText()).append(" (").append(m.path("layers").asInt()).append(" layers, hidden ")
                .append(m.path("hidden").asInt()).append(")  \n");
        s.append("**Layout:** tp ").append(p.path("tp").asInt()).append(", pp ").append(p.path("pp").asInt()).append(", dp ")
                .append(p.path("dp").asInt()).append(", ZeRO ").append(p.path("zero_stage").asInt()).append(" over ")
                .append(p.path("zero_group_size").asInt()).append("; seq ").append(t.path("seq_len").asInt()).append(", micro-batch ")
                .append(t.path("micro_batch_size").asInt()).append(" x ").append(t.path("micro_batches").asInt())
                .append(", recompute ").append(t.path("recompute").asText()).append("\n\n");

        Diagnosis top = a.top();
        if (top != null) {
            s.append("> **").append(top.severity().toUpperCase(Locale.ROOT)).append(": ").append(top.title()).append("**");
            if (top.impactFraction() > 0) s.append(" (").append(pct(top.impactFraction())).append(" of the step)");
            s.append("\n\n");
        }

        Advice.PredictionView pr = a.prediction();
        s.append("## Predicted and observed\n\n| | predicted | observed |\n|---|---:|---:|\n");
        Advice.ObservedView o = a.observed();
        row(s, "step time (s)", pr.stepTimeS(), o == null ? Double.NaN : o.stepTimeS());
        row(s, "tokens / GPU / s", pr.tokensPerGpuPerS(), o == null ? Double.NaN : o.tokensPerGpuPerS());
        row(s, "TFLOPS / GPU (house)", pr.tflopsPerGpu(), o == null ? Double.NaN : o.tflopsPerGpuHouse());
        s.append("| MFU | ").append(pct(pr.mfu())).append(" | ").append(o == null ? "" : pct(o.mfuHouse())).append(" |\n\n");
        if (o != null) s.append("Observed: ").append(o.relation()).append(".");
        if (a.gap() != null) s.append(" Observed throughput is ").append(num(a.gap().observedOverPredicted())).append("x predicted.");
        s.append("\n\n");

        Advice.FitView fit = a.fit();
        if (fit != null) {
            s.append("## Fitted to the run's timings\n\n");
            s.append("The diagnoses and the what-ifs start from the model fitted to what the run measured (least squares,"
                    + " catalogue values as priors): step ").append(num(fit.stepTimeS())).append(" s, ")
                    .append(num(fit.tflopsPerGpu())).append(" TFLOPS per GPU.\n\n");
            s.append("| parameter | expected | fitted | set by | prior |\n|---|---:|---:|---|---|\n");
            for (Advice.FitParameterView fp : fit.parameters())
                s.append("| ").append(fp.parameter()).append(" | ").append(num(fp.expected())).append(' ').append(fp.unit())
                        .append(" | ").append(num(fp.fitted())).append(' ').append(fp.unit()).append(" | ")
                        .append(fp.constrained() ? "the measurements" : "the prior").append(" | ").append(fp.priorSource()).append(" |\n");
            s.append("\n");
        }

        s.append("## Diagnoses\n\n");
        if (a.diagnoses().isEmpty()) s.append("No rule fired.\n\n");
        int i = 1;
        for (Diagnosis d : a.diagnoses()) {
            s.append("### ").append(i++).append(". ").append(d.title()).append("\n\n");
            s.append("`").append(d.id()).append("`, severity **").append(d.severity()).append("**");
            if (d.impactFraction() > 0) s.append(", ").append(pct(d.impactFraction())).append(" of the step");
            s.append(", rule `").append(d.rule()).append("`\n\n").append(d.explanation()).append("\n\n");
            if (!d.evidence().isEmpty()) {
                s.append("| evidence | value | unit |\n|---|---:|---|\n");
                for (Evidence e : d.evidence()) s.append("| ").append(e.name()).append(" | ").append(num(e.value(), 4))
                        .append(" | ").append(e.unit()).append(" |\n");
                s.append("\n");
            }
        }

        s.append("## Recommendations\n\n");
        List<Recommendation> recs = a.recommendations();
        if (recs.isEmpty()) {
            s.append("None with a predicted gain.\n\n");
        } else {
            s.append("| # | action | predicted TFLOPS/GPU | speedup | addresses |\n|---:|---|---:|---:|---|\n");
            i = 1;
            for (Recommendation r : recs) s.append("| ").append(i++).append(" | ").append(r.action()).append(" | ")
                    .append(num(r.predictedTflopsPerGpu())).append(" | x").append(num(r.speedup())).append(" | ")
                    .append(String.join(", ", r.addresses())).append(" |\n");
            s.append("\n");
            for (Recommendation r : recs) {
                s.append("- **").append(r.id()).append("**: change `");
                boolean first = true;
                for (Map.Entry<String, Object> e : r.change().entrySet()) {
                    if (!first) s.append(", ");
                    s.append(e.getKey()).append(": ").append(e.getValue() == null ? "(remove)" : e.getValue());
                    first = false;
                }
                s.append("`. ").append(r.explanation()).append("\n");
            }
            s.append("\n");
        }

        s.append("## Predicted step\n\n| phase | seconds | exposed | link |\n|---|---:|---:|---|\n");
        for (Advice.BreakdownLine b : pr.breakdown()) s.append("| ").append(b.phase()).append(" | ").append(num(b.seconds()))
                .append(" | ").append(num(b.exposedSeconds())).append(" | ").append(b.link() == null ? "" : b.link()).append(" |\n");
        Advice.MemoryView mem = pr.memory();
        s.append("\nMemory per GPU: ").append(num(mem.totalGb())).append(" of ").append(num(mem.capacityGb()))
                .append(" GB (weights ").append(num(mem.weightsGb())).append(", gradients ").append(num(mem.gradientsGb()))
                .append(", optimizer ").append(num(mem.optimizerGb())).append(", activations ").append(num(mem.activationsGb()))
                .append(", logits ").append(num(mem.logitsGb())).append(", buffers ").append(num(mem.buffersGb())).append(").\n");
        if (mem.stages().size() > 1) {
            s.append("\n| pipeline stage | GB | of which activations |\n|---:|---:|---:|\n");
            for (Advice.StageMemoryView st : mem.stages())
                s.append("| ").append(st.stage()).append(" | ").append(num(st.totalGb())).append(" | ").append(num(st.activationsGb())).append(" |\n");
        }
        for (String n : pr.notes()) s.append("\nNot modelled: ").append(n).append(".\n");
        return s.toString();
    }

    private static String gpuName(JsonNode gpu) { return gpu.isTextual() ? gpu.asText() : gpu.path("key").asText(); }

    private static void row(StringBuilder s, String name, double predicted, double observed) {
        s.append("| ").append(name).append(" | ").append(num(predicted)).append(" | ")
                .append(Double.isNaN(observed) ? "" : num(observed)).append(" |\n");
    }
}
