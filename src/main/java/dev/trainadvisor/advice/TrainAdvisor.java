package dev.trainadvisor.advice;

import dev.trainadvisor.engine.RuleEngine;
import dev.trainadvisor.facts.FactBuilder;
import dev.trainadvisor.facts.GapFact;
import dev.trainadvisor.facts.Materiality;
import dev.trainadvisor.facts.ObservationFact;
import dev.trainadvisor.facts.RemedyProposal;
import dev.trainadvisor.perf.Baseline;
import dev.trainadvisor.perf.PredictionInterval;
import dev.trainadvisor.perf.RunClass;
import dev.trainadvisor.perf.Collective;
import dev.trainadvisor.perf.FitParam;
import dev.trainadvisor.perf.FitParameter;
import dev.trainadvisor.perf.HypothesisFit;
import dev.trainadvisor.perf.Scenario;
import dev.trainadvisor.perf.StepPrediction;
import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecWriter;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * The library's entry point: the run's baseline (catalogue prediction, fit to its times), the facts, the rules'
 * diagnoses and remedies, and every remedy priced from the baseline through the one pricing path
 * ({@link Baseline#price}).
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
        Baseline b = Baseline.of(cluster, run);
        List<Object> facts = FactBuilder.facts(b);
        RuleEngine.Result result = engine.run(facts);
        ObservationFact observed = null;
        GapFact gap = null;
        for (Object f : facts) {
            if (f instanceof ObservationFact o) observed = o;
            if (f instanceof GapFact g) gap = g;
        }
        Materiality materiality = Materiality.shipped();
        for (Object f : result.derived()) if (f instanceof Materiality m) materiality = m;
        List<Recommendation> recs = recommend(b, merge(result.proposals()), observed, materiality);
        return new Advice(SpecWriter.write(cluster, run), b, observed, gap, result.diagnoses(), recs);
    }

    /** Prices every proposal; keeps those that fit in memory and gain over the baseline and over what the run did. */
    static List<Recommendation> recommend(Baseline b, List<RemedyProposal> proposals, ObservationFact observed,
                                          Materiality m) {
        StepPrediction base = b.prediction();
        boolean overflows = base.memory().headroomGb() < 0;
        double done = observed == null || Double.isNaN(observed.tokensPerGpuPerS()) ? 0 : observed.tokensPerGpuPerS();
        List<Recommendation> recs = new ArrayList<>();
        for (RemedyProposal r : proposals) {
            Recommendation rec = price(b, r, m);
            if (rec == null) continue;
            boolean gains = rec.speedup() >= MIN_SPEEDUP && rec.predictedTokensPerGpuPerS() > done;
            if (gains || overflows) recs.add(rec);
        }
        if (recs.isEmpty() && overflows) {
            // no single change makes the run fit: try two of the memory remedies together
            for (RemedyProposal pair : pairs(proposals, "memory-overflow")) {
                Recommendation rec = price(b, pair, m);
                if (rec != null) recs.add(rec);
            }
        }
        recs.sort(Comparator.comparing((Recommendation r) -> !r.sameMath())
                .thenComparing(Comparator.comparingDouble(Recommendation::speedup).reversed())
                .thenComparing(Recommendation::id));
        return List.copyOf(recs);
    }

    /**
     * One proposal priced from the baseline; null when it is invalid or does not fit. When the run's times leave
     * several explanations open (perf.FitResult#alternatives), the remedy is priced under each, and its speedup is their
     * average weighted by their probabilities: the gain the times lead one to expect. The interval spans them and the
     * chosen explanation's freed quantity one posterior standard deviation either way, widened by how far the model
     * has been off, around its median, on validated runs like the changed one (perf.PredictionInterval): the baseline
     * is the run itself, what is uncertain is the model's step for the change. The band is not narrowed for being a
     * ratio of two predictions of one run: on the tune rows, pairs of runs of the same source and model scatter about
     * each other as much (observed over predicted of one over the other's, 10th-90th percentile 0.919-1.089 over 546
     * pairs) as single runs about the model (0.922-1.078 over 162).
     */
    private static Recommendation price(Baseline b, RemedyProposal r, Materiality m) {
        Baseline.Priced q = b.price(r.change());
        if (q == null || q.step().memory().headroomGb() < 0) return null;
        StepPrediction base = b.prediction();
        StepPrediction s = q.step();
        double chosen = s.tokensPerGpuPerS() / base.tokensPerGpuPerS();
        double low = chosen, high = chosen;
        double weight = b.fit() == null ? 1 : b.fit().chosen().posterior(), sum = weight * chosen;
        if (b.fit() != null) {
            for (HypothesisFit h : b.fit().alternatives()) {
                Double sa = speedup(h.scenario(), r);
                if (sa == null) continue;
                low = Math.min(low, sa);
                high = Math.max(high, sa);
                sum += h.posterior() * sa;
                weight += h.posterior();
            }
            for (Scenario spread : spread(b)) {
                Double sa = speedup(spread, r);
                if (sa == null) continue;
                low = Math.min(low, sa);
                high = Math.max(high, sa);
            }
        }
        double speedup = weight > 0 ? sum / weight : chosen;
        PredictionInterval like = PredictionInterval.of(RunClass.of(q.run().cluster(), q.run().run(), s));
        low *= like.low() / like.median();
        high *= like.high() / like.median();
        Collective worst = null;
        for (Collective c : s.collectives()) if (worst == null || c.exposedSeconds() > worst.exposedSeconds()) worst = c;
        boolean next = worst != null && m.material(worst.exposedSeconds(), s.stepTimeS());
        double tokens = base.tokensPerGpuPerS() * speedup;
        return new Recommendation(r.id(), r.action(), q.change(), r.sameMath(), r.addresses(), r.reason(),
                base.stepTimeS(), base.tflopsPerGpu(), base.stepTimeS() / speedup, base.tflopsPerGpu() * speedup, tokens,
                s.memory().totalGb(), s.memory().capacityGb(), speedup, low, high,
                next ? worst.name() : null, next ? worst.link().linkKey() : null, next ? worst.exposedSeconds() : 0);
    }

    /** The remedy's speedup in another explanation of the run's times, or null when the change does not apply. */
    private static Double speedup(Scenario from, RemedyProposal r) {
        Baseline.Priced qa = Baseline.price(from, r.change());
        if (qa == null) return null;
        return qa.step().tokensPerGpuPerS() / from.predict().tokensPerGpuPerS();
    }

    /** The chosen fit with its freed quantity (compute for NOMINAL) one posterior standard deviation either way. */
    private static List<Scenario> spread(Baseline b) {
        List<Scenario> out = new ArrayList<>();
        HypothesisFit chosen = b.fit().chosen();
        FitParam p = chosen.hypothesis().param() == null ? FitParam.COMPUTE_SCALE : chosen.hypothesis().param();
        FitParameter fp = chosen.parameter(p).orElse(null);
        if (fp != null && fp.low() > 0 && fp.high() > 0 && fp.low() != fp.high()) {
            out.add(chosen.scenario().with(p, fp.low()));
            out.add(chosen.scenario().with(p, fp.high()));
        }
        return out;
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
                List<String> sorted = new ArrayList<>(addresses);
                sorted.sort(null);
                byId.put(r.id(), new RemedyProposal(prev.id(), prev.action(), prev.change(), prev.sameMath() && r.sameMath(),
                        sorted, prev.reason(), prev.rule()));
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
                RemedyProposal a = mine.get(i), c = mine.get(j);
                if (a.change().keySet().stream().anyMatch(c.change()::containsKey)) continue;
                Map<String, Object> change = new LinkedHashMap<>(a.change());
                change.putAll(c.change());
                out.add(new RemedyProposal(a.id() + "+" + c.id(), a.action() + "; and " + lowerFirst(c.action()), change,
                        a.sameMath() && c.sameMath(), List.of(diagnosis), a.reason() + " " + c.reason(), a.rule()));
            }
        }
        return out;
    }

    private static String lowerFirst(String s) {
        return s.isEmpty() ? s : Character.toLowerCase(s.charAt(0)) + s.substring(1);
    }
}
