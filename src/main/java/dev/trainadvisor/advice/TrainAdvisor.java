package dev.trainadvisor.advice;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.engine.RuleEngine;
import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.FactBuilder;
import dev.trainadvisor.facts.Fmt;
import dev.trainadvisor.facts.GapFact;
import dev.trainadvisor.facts.ObservationFact;
import dev.trainadvisor.facts.RemedyProposal;
import dev.trainadvisor.perf.Collective;
import dev.trainadvisor.perf.Efficiency;
import dev.trainadvisor.perf.MemoryEstimate;
import dev.trainadvisor.perf.Phase;
import dev.trainadvisor.perf.StepModel;
import dev.trainadvisor.perf.StepPrediction;
import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecException;
import dev.trainadvisor.spec.SpecReader;
import dev.trainadvisor.spec.SpecWriter;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * The library's entry point: predicts the step, lets the rules diagnose it, evaluates every
 * proposed remedy through the step model and returns the advice.
 *
 * <pre>{@code
 * RunSpec spec = new SpecReader().read(Path.of("examples/internlm-7b-pcie-1node.yaml"));
 * Advice advice = TrainAdvisor.advise(spec.cluster(), spec.run());
 * advice.top().id();   // "intra-node-bandwidth"
 * }</pre>
 */
public final class TrainAdvisor {
    /** Below this predicted gain a remedy is not worth recommending. */
    static final double MIN_SPEEDUP = 1.01;

    private final RuleEngine engine;

    public TrainAdvisor(RuleEngine engine) { this.engine = engine; }

    public static Advice advise(Cluster cluster, RunMetrics run) {
        return new TrainAdvisor(RuleEngine.builtIn()).adviseRun(cluster, run);
    }

    public static Advice advise(RunSpec spec) { return advise(spec.cluster(), spec.run()); }

    public Advice adviseRun(Cluster cluster, RunMetrics run) {
        StepPrediction p = StepModel.predict(cluster, run);
        ObservationFact observed = FactBuilder.observe(cluster, run, p);
        RuleEngine.Result result = engine.run(FactBuilder.facts(cluster, run, p, observed));

        List<Diagnosis> diagnoses = new ArrayList<>(result.diagnoses());
        diagnoses.sort(Comparator.comparingDouble(Diagnosis::impactFraction).reversed()
                .thenComparingInt(d -> severityRank(d.severity())).thenComparing(Diagnosis::id));

        ObjectNode tree = SpecWriter.write(cluster, run);
        List<Recommendation> recs = new ArrayList<>();
        for (RemedyProposal r : merge(result.proposals())) {
            Recommendation rec = evaluate(tree, r, p);
            if (rec != null && rec.speedup() >= MIN_SPEEDUP) recs.add(rec);
        }
        recs.sort(Comparator.comparingDouble(Recommendation::speedup).reversed().thenComparing(Recommendation::id));

        GapFact gap = observed == null || Double.isNaN(observed.tokensPerGpuPerS()) ? null : FactBuilder.gap(observed, p);
        return new Advice(tree, view(p), observedView(observed), gap == null ? null
                : new Advice.GapView(gap.observedOverPredicted(), gap.observedStepS(), gap.predictedStepS(), gap.unexplainedS()),
                List.copyOf(diagnoses), List.copyOf(recs));
    }

    /** Several rules may propose the same remedy: one recommendation that addresses all their diagnoses. */
    static List<RemedyProposal> merge(List<RemedyProposal> proposals) {
        Map<String, RemedyProposal> byId = new LinkedHashMap<>();
        for (RemedyProposal r : proposals) {
            RemedyProposal prev = byId.get(r.id());
            if (prev == null) {
                byId.put(r.id(), r);
            } else {
                LinkedHashSet<String> addresses = new LinkedHashSet<>(prev.addresses());
                addresses.addAll(r.addresses());
                byId.put(r.id(), new RemedyProposal(prev.id(), prev.action(), prev.change(), List.copyOf(addresses),
                        prev.explanation(), prev.rule()));
            }
        }
        return List.copyOf(byId.values());
    }

    private static Recommendation evaluate(ObjectNode tree, RemedyProposal r, StepPrediction base) {
        RunSpec changed;
        try {
            changed = new SpecReader().read(SpecWriter.apply(tree, r.change()), "what-if " + r.id());
        } catch (SpecException e) {
            return null;   // the change does not fit this run (e.g. a GPU count the layout cannot divide)
        }
        StepPrediction q = StepModel.predict(changed.cluster(), changed.run());
        double speedup = q.tokensPerGpuPerS() / base.tokensPerGpuPerS();
        String explanation = r.explanation() + " Predicted: step " + Fmt.num(base.stepTimeS()) + " s -> "
                + Fmt.num(q.stepTimeS()) + " s, " + Fmt.num(base.tflopsPerGpu()) + " -> " + Fmt.num(q.tflopsPerGpu())
                + " TFLOPS per GPU (x" + Fmt.num(speedup) + ").";
        return new Recommendation(r.id(), r.action(), r.change(), q.tflopsPerGpu(), q.tokensPerGpuPerS(), q.stepTimeS(),
                speedup, r.addresses(), explanation);
    }

    static int severityRank(String s) {
        return switch (s) {
            case "high" -> 0;
            case "medium" -> 1;
            case "low" -> 2;
            default -> 3;
        };
    }

    static Advice.PredictionView view(StepPrediction p) {
        List<Advice.BreakdownLine> lines = new ArrayList<>();
        for (Phase ph : p.phases()) lines.add(new Advice.BreakdownLine(ph.name(), ph.seconds(), ph.exposedSeconds(), ph.link()));
        List<Advice.CollectiveLine> cols = new ArrayList<>();
        for (Collective c : p.collectives())
            cols.add(new Advice.CollectiveLine(c.name(), c.kind().key, c.group(), c.groupSize(), c.bytesPerStep(),
                    c.link().linkKey(), c.link().scope(), c.link().busbwGbps(), c.seconds(), c.exposedSeconds(),
                    c.overlapsWith()));
        MemoryEstimate m = p.memory();
        Efficiency e = p.efficiency();
        return new Advice.PredictionView(p.stepTimeS(), p.tflopsPerGpu(), p.mfu(), p.hfu(), p.tokensPerGpuPerS(),
                p.flopsPerToken().model(), p.flopsPerToken().hardware(), List.copyOf(lines), List.copyOf(cols),
                new Advice.MemoryView(m.totalGb(), m.capacityGb(), m.headroomGb(), m.weightsGb(), m.gradientsGb(),
                        m.optimizerGb(), m.activationsGb(), m.logitsGb(), m.buffersGb()),
                new Advice.EfficiencyView(e.gemmFractionOfPeak(), e.attentionFractionOfPeak(), e.hbmFraction(),
                        e.overlapFraction()), p.notes());
    }

    static Advice.ObservedView observedView(ObservationFact o) {
        if (o == null) return null;
        String relation;
        if (o.convention() == null || Double.isNaN(o.tflopsPrinted())) {
            relation = "house TFLOPS = observed tokens/GPU/s x " + Fmt.num(o.houseFlopsPerToken() / 1e9, 4)
                    + " GFLOPs per token";
        } else {
            relation = "printed " + Fmt.num(o.tflopsPrinted(), 4) + " TFLOPS (" + o.convention() + ", "
                    + Fmt.num(o.conventionFlopsPerToken() / 1e9, 4) + " GFLOPs/token) = house "
                    + Fmt.num(o.tflopsPrinted() * o.houseFlopsPerToken() / o.conventionFlopsPerToken(), 4)
                    + " TFLOPS (" + Fmt.num(o.houseFlopsPerToken() / 1e9, 4) + " GFLOPs/token)";
        }
        return new Advice.ObservedView(o.tokensPerGpuPerS(), o.tokensSource(), o.stepTimeS(), o.fwdBwdTimeS(),
                o.tflopsPrinted(), o.convention(), o.tflopsHouse(), o.mfuHouse(), relation);
    }
}
