package dev.trainadvisor.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.advice.Recommendation;
import dev.trainadvisor.facts.Claim;
import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.Evidence;
import dev.trainadvisor.facts.Fmt;
import dev.trainadvisor.facts.ObservationFact;
import dev.trainadvisor.perf.Collective;
import dev.trainadvisor.perf.Efficiency;
import dev.trainadvisor.perf.FitObservation;
import dev.trainadvisor.perf.FitParameter;
import dev.trainadvisor.perf.FitResult;
import dev.trainadvisor.perf.HypothesisFit;
import dev.trainadvisor.perf.MeasurementCheck;
import dev.trainadvisor.perf.MemoryEstimate;
import dev.trainadvisor.perf.Phase;
import dev.trainadvisor.perf.PredictionInterval;
import dev.trainadvisor.perf.StepPrediction;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The advice as the reports show it (DESIGN.md section 4): plain records of numbers and words, in the order the JSON
 * keys appear. Every renderer starts from this view of the advice.
 *
 * @param prediction what the catalogue predicts for the run
 * @param fit        the model fitted to the run's times: the step every diagnosis and recommendation starts from;
 *                   null when the run measured no usable time
 * @param observed   null when the run measured nothing
 * @param gap        null when the run measured no throughput
 */
public record AdviceView(JsonNode run, PredictionView prediction, FitView fit, ObservedView observed, GapView gap,
                         List<CheckView> implausible, List<DiagnosisView> diagnoses,
                         List<RecommendationView> recommendations) {

    public record PredictionView(double stepTimeS, double tflopsPerGpu, double mfu, double hfu,
                                 double tokensPerGpuPerS, double modelFlopsPerToken, double hardwareFlopsPerToken,
                                 List<BreakdownLine> breakdown, List<CollectiveLine> collectives, MemoryView memory,
                                 EfficiencyView efficiency, List<String> notes, IntervalView interval) {}

    /**
     * The prediction's interval: observed over predicted on the validated runs of its class (perf.PredictionInterval),
     * applied to its throughput, TFLOPS and step time.
     */
    public record IntervalView(String basis, int rows, double lowRatio, double highRatio, double[] tokensPerGpuPerS,
                               double[] tflopsPerGpu, double[] stepTimeS) {}

    public record BreakdownLine(String phase, double seconds, double exposedSeconds, String link) {}

    public record CollectiveLine(String name, String kind, String group, int groupSize, double bytesPerStep, long calls,
                                 String link, String scope, double busbwGbps, double alphaUs, double seconds,
                                 double exposedSeconds, String overlapsWith, String algorithm) {}

    /** The peak pipeline stage's memory, and every stage's total (one entry without pipeline parallelism). */
    public record MemoryView(double totalGb, double capacityGb, double headroomGb, double weightsGb, double gradientsGb,
                             double optimizerGb, double activationsGb, double logitsGb, double buffersGb,
                             List<StageMemoryView> stages) {}

    public record StageMemoryView(int stage, double totalGb, double activationsGb) {}

    public record EfficiencyView(double gemmFractionOfPeak, double attentionFractionOfPeak, double hbmFraction,
                                 double overlapFraction, double elementwiseTraffic) {}

    /**
     * @param hypothesis   the explanation of the run's times the fit chose
     * @param alternatives explanations the times cannot rule out (within a Bayes factor of 3)
     */
    public record FitView(String hypothesis, double posterior, List<String> alternatives, double stepTimeS,
                          double tokensPerGpuPerS, double tflopsPerGpu, double mfu, double exposedCommSeconds,
                          List<FitParameterView> parameters, List<FitObservationView> observations,
                          List<HypothesisView> hypotheses, boolean converged) {}

    /** A fitted quantity: what the model expected, what the run's times say, and how sure that is. */
    public record FitParameterView(String parameter, String unit, double expected, double fitted, double low, double high,
                                   double relativeChange, boolean constrained, String setBy, String priorSource) {}

    public record FitObservationView(String name, String source, double measured, double expected, double fitted) {}

    public record HypothesisView(String hypothesis, double prior, double posterior, double fittedValue) {}

    public record ObservedView(double tokensPerGpuPerS, String tokensSource, double stepTimeS, double fwdBwdTimeS,
                               double tflopsPerGpu, String tflopsConvention, double tflopsPerGpuHouse, double mfuHouse,
                               String relation) {}

    /** Throughput observed over predicted and over fitted; unexplained seconds are observed minus predicted step. */
    public record GapView(double observedOverPredicted, double observedOverFitted, double observedStepTimeS,
                          double predictedStepTimeS, double fittedStepTimeS, double unexplainedSeconds) {}

    public record CheckView(String kind, String metric, double measured, double limit, double ratio) {}

    public record DiagnosisView(String id, String title, String severity, boolean fault, double impactFraction,
                                String explanation, List<Evidence> evidence, String rule, List<Claim> claims) {}

    public record RecommendationView(String id, String action, Map<String, Object> change, boolean sameMath,
                                     double predictedTflopsPerGpu, double predictedStepTimeS, double speedup,
                                     double[] speedupInterval, double memoryHeadroomGb, List<String> addresses,
                                     String explanation) {}

    public static AdviceView of(Advice a) {
        return new AdviceView(a.run(), prediction(a.expected(), a.interval()), fit(a.fit()), observed(a.observed()), gap(a),
                a.baseline().implausible().stream().map(c -> new CheckView(c.kind().key(), c.metric().key(), c.measured(),
                        c.limit(), c.ratio())).toList(),
                a.diagnoses().stream().map(AdviceView::diagnosis).toList(),
                a.recommendations().stream().map(r -> recommendation(r, a.baseline().fit() != null)).toList());
    }

    static DiagnosisView diagnosis(Diagnosis d) {
        return new DiagnosisView(d.id(), d.title(), d.severity().key(), d.fault(), d.impactFraction(), d.explanation(),
                d.evidence(), d.rule(), d.claims());
    }

    static PredictionView prediction(StepPrediction p, PredictionInterval i) {
        List<BreakdownLine> lines = new ArrayList<>();
        for (Phase ph : p.phases()) lines.add(new BreakdownLine(ph.name(), ph.seconds(), ph.exposedSeconds(), ph.link()));
        List<CollectiveLine> cols = new ArrayList<>();
        for (Collective c : p.collectives())
            cols.add(new CollectiveLine(c.name(), c.kind().key, c.group().key(), c.groupSize(), c.bytesPerStep(), c.calls(),
                    c.link().linkKey(), c.link().scope().key(), c.busbwGbps(), c.alphaUs(), c.seconds(),
                    c.exposedSeconds(), c.overlapsWith().key(), c.cost().algorithm()));
        MemoryEstimate m = p.memory();
        Efficiency e = p.efficiency();
        return new PredictionView(p.stepTimeS(), p.tflopsPerGpu(), p.mfu(), p.hfu(), p.tokensPerGpuPerS(),
                p.flopsPerToken().model(), p.flopsPerToken().hardware(), List.copyOf(lines), List.copyOf(cols),
                new MemoryView(m.totalGb(), m.capacityGb(), m.headroomGb(), m.weightsGb(), m.gradientsGb(),
                        m.optimizerGb(), m.activationsGb(), m.logitsGb(), m.buffersGb(), m.stages().stream()
                        .map(st -> new StageMemoryView(st.stage(), st.totalGb(), st.activationsGb())).toList()),
                new EfficiencyView(e.gemmFractionOfPeak(), e.attentionFractionOfPeak(), e.hbmFraction(),
                        e.overlapFraction(), e.elementwiseTraffic()), p.notes(),
                i == null ? null : new IntervalView(i.basis(), i.rows(), i.low(), i.high(), i.around(p.tokensPerGpuPerS()),
                        i.around(p.tflopsPerGpu()), new double[]{p.stepTimeS() / i.high(), p.stepTimeS() / i.low()}));
    }

    static FitView fit(FitResult f) {
        if (f == null) return null;
        StepPrediction p = f.prediction();
        List<FitParameterView> params = new ArrayList<>();
        for (FitParameter q : f.parameters())
            params.add(new FitParameterView(q.name(), q.unit(), q.expected(), q.fitted(), q.low(), q.high(), q.relativeChange(),
                    q.constrained(), q.setBy().words, q.priorSource()));
        List<FitObservationView> obs = new ArrayList<>();
        for (FitObservation o : f.observations())
            obs.add(new FitObservationView(o.name(), o.source().key(), o.measured(), o.expected(), o.fitted()));
        List<HypothesisView> hyps = new ArrayList<>();
        for (HypothesisFit h : f.hypotheses())
            hyps.add(new HypothesisView(h.hypothesis().key(), h.prior(), h.posterior(),
                    h.hypothesis().param() == null ? Double.NaN : h.fitted(h.hypothesis().param())));
        return new FitView(f.chosen().hypothesis().key(), f.chosen().posterior(),
                f.alternatives().stream().map(h -> h.hypothesis().key()).toList(), p.stepTimeS(), p.tokensPerGpuPerS(),
                p.tflopsPerGpu(), p.mfu(), p.exposedCommSeconds(), List.copyOf(params), List.copyOf(obs), List.copyOf(hyps),
                f.converged());
    }

    static ObservedView observed(ObservationFact o) {
        if (o == null) return null;
        String relation;
        if (o.convention() == null || Double.isNaN(o.tflopsPrinted())) {
            relation = "house TFLOPS = observed tokens/GPU/s x " + Fmt.num(o.houseFlopsPerToken() / 1e9, 4)
                    + " GFLOPs per token";
        } else {
            relation = "printed " + Fmt.num(o.tflopsPrinted(), 4) + " TFLOPS (" + o.convention().key + ", "
                    + Fmt.num(o.conventionFlopsPerToken() / 1e9, 4) + " GFLOPs/token) = house "
                    + Fmt.num(o.tflopsPrinted() * o.houseFlopsPerToken() / o.conventionFlopsPerToken(), 4)
                    + " TFLOPS (" + Fmt.num(o.houseFlopsPerToken() / 1e9, 4) + " GFLOPs/token)";
        }
        return new ObservedView(o.tokensPerGpuPerS(), o.tokensSource() == null ? null : o.tokensSource().key(), o.stepTimeS(),
                o.fwdBwdTimeS(), o.tflopsPrinted(), o.convention() == null ? null : o.convention().key, o.tflopsHouse(),
                o.mfuHouse(), relation);
    }

    static GapView gap(Advice a) {
        var g = a.gap();
        if (g == null) return null;
        return new GapView(g.observedOverPredicted(), g.observedOverFitted(), g.observedStepS(), g.predictedStepS(),
                g.fittedStepS(), g.unexplainedS());
    }

    /** Below this share of the GPU's memory left free, a recommendation says it is tight. */
    public static final double TIGHT_MEMORY = dev.trainadvisor.search.LayoutSearch.HEADROOM;

    static RecommendationView recommendation(Recommendation r, boolean fitted) {
        return new RecommendationView(r.id(), r.action(), r.change(), r.sameMath(), r.predictedTflopsPerGpu(),
                r.predictedStepTimeS(), r.speedup(), new double[]{r.speedupLow(), r.speedupHigh()}, r.memoryHeadroomGb(),
                r.addresses(), explanation(r, fitted));
    }

    /**
     * Why the remedy helps, then what it is priced at from the step the advice starts from (fitted, or predicted when
     * the run measured no times), and what would bound the step next.
     */
    static String explanation(Recommendation r, boolean fitted) {
        StringBuilder s = new StringBuilder(r.reason()).append(fitted ? " Priced from the fitted step: " : " Priced from the predicted step: ")
                .append(Fmt.num(r.baselineStepS())).append(" s -> ").append(Fmt.num(r.predictedStepTimeS())).append(" s, ")
                .append(Fmt.num(r.baselineTflopsPerGpu())).append(" -> ").append(Fmt.num(r.predictedTflopsPerGpu()))
                .append(" TFLOPS per GPU (x").append(Fmt.num(r.speedup()));
        if (r.speedupLow() < r.speedup() - 0.005 || r.speedupHigh() > r.speedup() + 0.005)
            s.append(", x").append(Fmt.num(r.speedupLow())).append(" to x").append(Fmt.num(r.speedupHigh()))
                    .append(" under the explanations the run's times allow");
        s.append("), memory ").append(Fmt.num(r.predictedMemoryGb())).append(" of ").append(Fmt.num(r.memoryCapacityGb()))
                .append(" GB.");
        if (r.memoryHeadroomGb() < TIGHT_MEMORY * r.memoryCapacityGb())
            s.append(" It leaves only ").append(Fmt.num(r.memoryHeadroomGb())).append(" GB free, under ")
                    .append(Fmt.pct(TIGHT_MEMORY)).append(" of the GPU's memory: allocator fragmentation or a longer "
                            + "sequence may not fit.");
        if (!r.sameMath()) s.append(" It changes the optimisation (the global batch, sequence length or weight precision).");
        if (r.nextBottleneck() != null)
            s.append(" The largest exposed collective would then be ").append(r.nextBottleneck()).append(" on ")
                    .append(r.nextBottleneckLink()).append(" (").append(Fmt.num(r.nextBottleneckSeconds())).append(" s, ")
                    .append(Fmt.pct(r.nextBottleneckSeconds() / r.predictedStepTimeS())).append(" of the step).");
        return s.toString();
    }

    /** The diagnosis that matters most, or null. */
    public DiagnosisView top() { return diagnoses.isEmpty() ? null : diagnoses.get(0); }
}
