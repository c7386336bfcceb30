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
        StepPrediction expected = StepModel.predict(cluster, run);
        ObservationFact observed = FactBuilder.observe(cluster, run, expected);
        // the rules reason on the step as the run's own timings show it, when it measured them
        Basis basis = Basis.of(cluster, run, expected);
        StepPrediction p = basis.prediction();
        List<Object> facts = FactBuilder.facts(basis.cluster(), run, p, expected, observed, basis.fit() != null);
        facts.addAll(basis.parameterFacts(run));
        RuleEngine.Result result = engine.run(facts);

        List<Diagnosis> diagnoses = new ArrayList<>(result.diagnoses());
        diagnoses.sort(Comparator.comparingDouble(Diagnosis::impactFraction).reversed()
                .thenComparingInt(d -> severityRank(d.severity())).thenComparing(Diagnosis::id));

        ObjectNode whatIf = SpecWriter.write(basis.cluster(), run);
        StepPrediction whatIfBase = basis.whatIfBase(run);
        List<RemedyProposal> proposals = merge(result.proposals());
        List<Recommendation> recs = new ArrayList<>();
        for (RemedyProposal r : proposals) {
            Recommendation rec = evaluate(whatIf, r, basis, whatIfBase);
            if (rec != null && (rec.speedup() >= MIN_SPEEDUP || p.memory().headroomGb() < 0)) recs.add(rec);
        }
        if (recs.isEmpty() && p.memory().headroomGb() < 0) {
            // no single change makes the run fit: try two of the memory remedies together
            for (RemedyProposal pair : pairs(proposals, "memory-overflow")) {
                Recommendation rec = evaluate(whatIf, pair, basis, whatIfBase);
                if (rec != null) recs.add(rec);
            }
        }
        recs.sort(Comparator.comparingDouble(Recommendation::speedup).reversed().thenComparing(Recommendation::id));

        GapFact gap = observed == null || Double.isNaN(observed.tokensPerGpuPerS()) ? null : FactBuilder.gap(observed, expected);
        return new Advice(SpecWriter.write(cluster, run), view(expected), observedView(observed), gap == null ? null
                : new Advice.GapView(gap.observedOverPredicted(), gap.observedStepS(), gap.predictedStepS(), gap.unexplainedS()),
                basis.view(), List.copyOf(diagnoses), List.copyOf(recs));
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

    /** Every pair of proposals addressing {@code diagnosis} whose changes touch different fields, as one proposal. */
    static List<RemedyProposal> pairs(List<RemedyProposal> proposals, String diagnosis) {
        List<RemedyProposal> mine = proposals.stream().filter(r -> r.addresses().contains(diagnosis)).toList();
        List<RemedyProposal> out = new ArrayList<>();
        for (int i = 0; i < mine.size(); i++) {
            for (int j = i + 1; j < mine.size(); j++) {
                RemedyProposal a = mine.get(i), b = mine.get(j);
                if (a.change().keySet().stream().anyMatch(b.change()::containsKey)) continue;
                Map<String, Object> change = new LinkedHashMap<>(a.change());
                change.putAll(b.change());
                out.add(new RemedyProposal(a.id() + "+" + b.id(), a.action() + "; and " + lowerFirst(b.action()), change,
                        List.of(diagnosis), a.explanation() + " " + b.explanation(), a.rule()));
            }
        }
        return out;
    }

    private static String lowerFirst(String s) {
        return s.isEmpty() ? s : Character.toLowerCase(s.charAt(0)) + s.substring(1);
    }

    private static Recommendation evaluate(ObjectNode tree, RemedyProposal r, Basis basis, StepPrediction base) {
        RunSpec changed;
        try {
            changed = new SpecReader().read(SpecWriter.apply(tree, r.change()), "what-if " + r.id());
        } catch (SpecException e) {
            return null;   // the change does not fit this run (e.g. a GPU count the layout cannot divide)
        }
        StepPrediction q = StepModel.predict(changed.cluster(), changed.run(), basis.efficiencyFor(changed));
        // a configuration that does not fit in memory cannot run: no remedy
        if (q.memory().headroomGb() < 0) return null;
        double speedup = q.tokensPerGpuPerS() / base.tokensPerGpuPerS();
        String explanation = r.explanation() + " Predicted: step " + Fmt.num(base.stepTimeS()) + " s -> "
                + Fmt.num(q.stepTimeS()) + " s, " + Fmt.num(base.tflopsPerGpu()) + " -> " + Fmt.num(q.tflopsPerGpu())
                + " TFLOPS per GPU (x" + Fmt.num(speedup) + "), memory " + Fmt.num(q.memory().totalGb()) + " of "
                + Fmt.num(q.memory().capacityGb()) + " GB." + thenBoundBy(q);
        return new Recommendation(r.id(), r.action(), r.change(), q.tflopsPerGpu(), q.tokensPerGpuPerS(), q.stepTimeS(),
                q.memory().totalGb(), speedup, r.addresses(), explanation);
    }

    /** What the changed step spends most of its exposed communication on, so the next bottleneck is visible. */
    static String thenBoundBy(StepPrediction q) {
        Collective worst = null;
        for (Collective c : q.collectives()) if (worst == null || c.exposedSeconds() > worst.exposedSeconds()) worst = c;
        if (worst == null || worst.exposedSeconds() < 0.05 * q.stepTimeS()) return "";
        return " The largest exposed collective would then be " + worst.name() + " on " + worst.link().linkKey() + " ("
                + Fmt.num(worst.exposedSeconds()) + " s, " + Fmt.pct(worst.exposedSeconds() / q.stepTimeS()) + " of the step).";
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
                        m.optimizerGb(), m.activationsGb(), m.logitsGb(), m.buffersGb(), m.stages().stream()
                        .map(st -> new Advice.StageMemoryView(st.stage(), st.totalGb(), st.activationsGb())).toList()),
                new Advice.EfficiencyView(e.gemmFractionOfPeak(), e.attentionFractionOfPeak(), e.hbmFraction(),
                        e.overlapFraction(), e.elementwiseTraffic()), p.notes());
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
