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
 * The advice as the reports show it (docs/advice-json.md): plain records of numbers and words, in the order the JSON
 * keys appear. Every renderer starts from this view of the advice.
 *
 * @param prediction what the catalogue predicts for the run
 * @param fit        the model fitted to the run's times: the step every diagnosis and recommendation starts from;
 *                   null when the run measured no usable time
 * @param observed   null when the run measured nothing
 * @param gap        null when the run measured no throughput
 * @param verdict    the report's first sentence: the cause that matters most and the change that gains most
 * @param summary    observed, predicted, fitted and achievable throughput in one place
 * @param ruledOut   the diagnosis rules that were tested and missed their threshold, with the margin
 */
public record AdviceView(JsonNode run, FrameworkView framework, List<AssumedView> assumed, String verdict, SummaryView summary, PredictionView prediction, FitView fit,
                         ObservedView observed, GapView gap, List<CheckView> implausible, List<DiagnosisView> diagnoses,
                         List<RuledOutView> ruledOut, List<RecommendationView> recommendations) {

    /**
     * The framework that runs the layout, at its version, and what named it: the run file's training.framework, the
     * log's format, the printed TFLOPS' convention, or nothing (the default profile, "generic").
     */
    public record FrameworkView(String key, String name, String version, String namedBy) {

        /**
         * "internevo 2024 (named by metrics.tflops_convention (internevo), at the profile's default version; set
         * training.framework and training.framework_version for another)", as the reports' headers print it. A
         * framework named by the log or the TFLOPS' convention is at its profile's default version (a version is given
         * only with training.framework), which the line says: hf-trainer's default, deepspeed, is not what a log says;
         * so is one the run file named without its version ("hf-trainer deepspeed (at the profile's default version;
         * set training.framework_version for another)"); a log printed before its profile's default version began
         * names the version current on its day, which the origin says ("torchtitan before-2025-10 (named by the log's
         * format (torchtitan), at the version current on 2025-06-16, the log's date (...); set ...)").
         */
        public String line() {
            return (version == null ? key : key + " " + version) + (namedBy.equals(dev.trainadvisor.spec.Implementation.DEFAULT_ORIGIN)
                    ? " (none named: the layout as ZeRO's paper describes it; set training.framework)"
                    : namedBy.equals(dev.trainadvisor.spec.Implementation.GIVEN) ? ""
                    : namedBy.equals(dev.trainadvisor.spec.Implementation.GIVEN_AT_DEFAULT_VERSION)
                    ? " (at the profile's default version; set training.framework_version for another)"
                    : dev.trainadvisor.spec.Implementation.given(namedBy)
                    ? " (" + namedBy.substring(dev.trainadvisor.spec.Implementation.GIVEN.length() + 2)
                            + "; set training.framework_version for another)"
                    : " (named by " + namedBy + (version == null ? ""
                            : dev.trainadvisor.spec.Implementation.versionByLog(namedBy) ? CHOOSE : ", at the profile's default version" + CHOOSE)
                    + ")");
        }

        /** What {@link #line()} adds of a version no one gave. */
        private static final String CHOOSE = "; set training.framework and training.framework_version for another";
    }

    /**
     * A value of the run that neither its user nor its log gave (spec.Assumption): the run-file field, the value taken,
     * why (derived from what the log prints, or assumed), and the option of {@code advise --log} that sets it (in a run
     * file or runs.yaml, the field).
     */
    public record AssumedView(String field, Object value, String why, String option) {

        /** "parallel.zero_stage 1 (not given, nor printed by the log; ...; set --zero-stage)", as the reports' headers list it. */
        public String line() {
            return field + " " + value + " (" + why + "; set " + option + ")";
        }
    }

    /**
     * TFLOPS per GPU (house count) and MFU: observed (NaN when not measured), predicted with its interval, fitted (NaN
     * without a fit), and achievable: what the best recommendation that keeps the optimisation predicts
     * ({@code achievableBy}), or the fitted step when none gains.
     */
    public record SummaryView(double observedTflops, double observedMfu, double predictedTflops, double predictedMfu,
                              double[] predictedRange, double fittedTflops, double fittedMfu, double achievableTflops,
                              double achievableMfu, String achievableBy) {}

    /** What a rule tested and why it did not fire: {@code margin} in words. */
    public record RuledOutView(String id, String title, String rule, double seconds, double fraction, double threshold,
                               String margin) {}

    /** The GPU's ceilings a roofline draws: its dense peak (the MFU denominator), measured MAMF and HBM bandwidth. */
    public record CeilingsView(String gpu, double peakTflops, double mamfTflops, double hbmGbps) {}

    /**
     * One operation of a micro-batch's forward on one GPU (perf.StepOperations): its FLOPs, the HBM bytes it must move,
     * their ratio, its forward time and what that achieves; {@code secondsPerMicroBatch} counts backward and
     * recomputation too.
     */
    public record OperationView(String name, String kind, double flops, double hbmBytes, double intensity,
                                double forwardSeconds, double secondsPerMicroBatch, double achievedTflops,
                                double achievedGbps) {}

    /** The collective that would bound the step after a change, and its share of the changed step. */
    public record NextBottleneckView(String collective, String link, double seconds, double fraction) {}

    public record PredictionView(double stepTimeS, double tflopsPerGpu, double mfu, double hfu,
                                 double tokensPerGpuPerS, double modelFlopsPerToken, double hardwareFlopsPerToken,
                                 List<BreakdownLine> breakdown, List<CollectiveLine> collectives, MemoryView memory,
                                 EfficiencyView efficiency, List<String> notes, IntervalView interval,
                                 CeilingsView ceilings, List<OperationView> operations) {}

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

    /**
     * The peak pipeline stage's memory, and every stage's total (one entry without pipeline parallelism); {@code hostGb}
     * what a GPU keeps in host memory instead (training.offload), absent when nothing is offloaded.
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record MemoryView(double totalGb, double capacityGb, double headroomGb, double weightsGb, double gradientsGb,
                             double optimizerGb, double activationsGb, double logitsGb, double buffersGb,
                             List<StageMemoryView> stages, Double hostGb) {}

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
                          List<HypothesisView> hypotheses, boolean converged, List<BreakdownLine> breakdown) {}

    /** A fitted quantity: what the model expected, what the run's times say, and how sure that is. */
    public record FitParameterView(String parameter, String unit, double expected, double fitted, double low, double high,
                                   double relativeChange, boolean constrained, String setBy, String priorSource) {}

    public record FitObservationView(String name, String source, double measured, double expected, double fitted) {}

    public record HypothesisView(String hypothesis, double prior, double posterior, double fittedValue) {}

    public record ObservedView(double tokensPerGpuPerS, String tokensSource, double stepTimeS, double fwdBwdTimeS,
                               double tflopsPerGpu, String tflopsConvention, double tflopsPerGpuHouse, double mfuHouse,
                               String relation, double steps) {}

    /** Throughput observed over predicted and over fitted; unexplained seconds are observed minus predicted step. */
    public record GapView(double observedOverPredicted, double observedOverFitted, double observedStepTimeS,
                          double predictedStepTimeS, double fittedStepTimeS, double unexplainedSeconds) {}

    public record CheckView(String kind, String metric, double measured, double limit, double ratio) {
        /**
         * "tflops_per_gpu is 0.481x what the measured tokens/s times the framework's own FLOPs per token give": the
         * measured value against what its check compares it with.
         */
        public String sentence() {
            return metric + " is " + Fmt.ratio(ratio) + "x " + dev.trainadvisor.perf.MeasurementCheck.Kind.of(kind).against;
        }
    }

    public record DiagnosisView(String id, String title, String severity, boolean fault, double probability,
                                double impactFraction, String explanation, List<Evidence> evidence, String rule,
                                List<Claim> claims, String confirm) {
        /**
         * "50% of the step" for a cause that claims seconds of the modelled step; "27% of the wall time" for one seen in
         * the run's history (a stall, a slowdown), which the step does not contain.
         */
        public String share() {
            return Fmt.pct(impactFraction) + (claims.isEmpty() ? " of the wall time" : " of the step");
        }
    }

    public record RecommendationView(String id, String action, Map<String, Object> change, boolean sameMath,
                                     double predictedTflopsPerGpu, double predictedStepTimeS, double speedup,
                                     double[] speedupInterval, double memoryHeadroomGb, List<String> addresses,
                                     String explanation, double predictedMemoryGb, double memoryCapacityGb,
                                     NextBottleneckView nextBottleneck, String pricedBy) {}

    public static AdviceView of(Advice a) {
        PredictionView prediction = prediction(a.expected(), a.interval(), a.baseline().scenario().cluster().gpu());
        FitView fit = fit(a.fit());
        ObservedView observed = observed(a.observed(), a.baseline().scenario().run().measured());
        GapView gap = gap(a);
        List<CheckView> implausible = a.baseline().implausible().stream().map(c -> new CheckView(c.kind().key(),
                c.metric().key(), c.measured(), c.limit(), c.ratio())).toList();
        List<DiagnosisView> diagnoses = a.diagnoses().stream().map(AdviceView::diagnosis).toList();
        List<RecommendationView> recs = a.recommendations().stream().map(r -> recommendation(r, a.baseline().fit() != null))
                .toList();
        SummaryView summary = summary(prediction, fit, observed, recs);
        dev.trainadvisor.spec.Implementation impl = a.run().run().training().implementation();
        FrameworkView framework = new FrameworkView(impl.framework().key(), impl.framework().name(), impl.framework().version(),
                impl.origin());
        List<AssumedView> assumed = a.run().run().assumed().stream().map(x -> new AssumedView(x.field(), x.value(), x.why(),
                x.option())).toList();
        return new AdviceView(dev.trainadvisor.spec.SpecWriter.write(a.run().cluster(), a.run().run()), framework, assumed, verdict(prediction, gap, implausible, diagnoses, recs), summary, prediction, fit,
                observed, gap, implausible, diagnoses, a.ruledOut().stream().map(r -> new RuledOutView(r.id(), r.title(),
                r.rule(), r.seconds(), r.fraction(), r.threshold(), r.margin())).toList(), recs);
    }

    static DiagnosisView diagnosis(Diagnosis d) {
        return new DiagnosisView(d.id(), d.title(), d.severity().key(), d.fault(), d.probability(), d.impactFraction(),
                d.explanation(), d.evidence(), d.rule(), d.claims(), d.confirm());
    }

    static SummaryView summary(PredictionView p, FitView f, ObservedView o, List<RecommendationView> recs) {
        double peak = p.ceilings().peakTflops();
        double start = f != null ? f.tflopsPerGpu() : p.tflopsPerGpu();
        RecommendationView best = achievableBy(recs, RecommendationView::sameMath, RecommendationView::predictedTflopsPerGpu,
                start);
        double achievable = best != null ? best.predictedTflopsPerGpu() : start;
        double observed = o == null ? Double.NaN : o.tflopsPerGpuHouse();
        return new SummaryView(observed, o == null ? Double.NaN : o.mfuHouse(), p.tflopsPerGpu(), p.mfu(),
                p.interval() == null ? null : p.interval().tflopsPerGpu(), f == null ? Double.NaN : f.tflopsPerGpu(),
                f == null ? Double.NaN : f.mfu(), achievable, achievable / peak,
                best != null ? best.id() : null);
    }

    /**
     * What the summary's achievable TFLOPS come from: the same-math recommendation of the most predicted TFLOPS (the
     * first of equals), where it beats {@code start}, the TFLOPS the advice starts from; else null. Of the views here,
     * of the advice's recommendations for a fleet table's row (BatchTable).
     */
    static <R> R achievableBy(List<R> recs, java.util.function.Predicate<R> sameMath,
                              java.util.function.ToDoubleFunction<R> tflops, double start) {
        R best = recs.stream().filter(sameMath).max(java.util.Comparator.comparingDouble(tflops)).orElse(null);
        return best != null && tflops.applyAsDouble(best) > start ? best : null;
    }

    /**
     * One sentence: the cause that matters most (a measurement that cannot be right, else the first diagnosis above
     * low severity) and the change predicted to gain most; or how the run compares with the model when nothing is
     * wrong.
     */
    /** Below this probability the headline says how sure its fault is. */
    static final double SURE = Diagnosis.SURE;

    static String verdict(PredictionView p, GapView gap, List<CheckView> implausible, List<DiagnosisView> diagnoses,
                          List<RecommendationView> recs) {
        DiagnosisView top = diagnoses.stream().filter(d -> d.severity().equals("high") || d.severity().equals("medium"))
                .findFirst().orElse(null);
        RecommendationView best = recs.isEmpty() ? null : recs.get(0);
        StringBuilder s = new StringBuilder();
        if (!implausible.isEmpty()) {
            return "The run's measurements cannot be right (" + implausible.get(0).sentence()
                    + "), so the model was not fitted to them.";
        }
        List<String> candidates = top == null ? List.of() : candidates(top);
        if (top != null && !candidates.isEmpty()) {
            // a slowdown the fit could not single out: its candidates, likeliest first, each with its probability
            s.append("The run is slower than the model and its times cannot single out why");
            if (top.impactFraction() > 0) s.append(" (").append(top.share()).append(")");
            s.append(": most likely ").append(String.join(", or ", candidates));
        } else if (top != null) {
            // a fault the fit is not sure of says how sure it is (issue 20)
            boolean unsure = top.fault() && top.probability() < SURE;
            s.append(unsure && top.probability() < Diagnosis.EVEN_ODDS ? "Possibly: " + lowerFirst(top.title())
                    : top.title());
            if (top.impactFraction() > 0 || unsure) {
                s.append(" (");
                if (top.impactFraction() > 0) s.append(top.share());
                if (top.impactFraction() > 0 && unsure) s.append(", ");
                if (unsure) s.append("probability ").append(Fmt.pct(top.probability()));
                s.append(")");
            }
        } else if (gap != null) {
            IntervalView iv = p.interval();
            double r = gap.observedOverPredicted();
            boolean inside = iv != null && r >= iv.lowRatio() && r <= iv.highRatio();
            s.append(inside ? "The run is as fast as the model predicts for this hardware and layout (observed "
                            : "No cause reaches the rules' thresholds (observed ").append(Fmt.num(r, 4)).append("x predicted");
            if (iv != null) s.append("; 8 in 10 runs like it land within ").append(Fmt.num(iv.lowRatio())).append("-")
                    .append(Fmt.num(iv.highRatio())).append("x)");
            else s.append(")");
        } else {
            s.append("The model predicts ").append(Fmt.num(p.tflopsPerGpu())).append(" TFLOPS per GPU (")
                    .append(Fmt.pct(p.mfu())).append(" MFU); the run measured nothing to compare it with");
        }
        RecommendationView answer = top == null ? best
                : recs.stream().filter(r -> r.addresses().contains(top.id())).findFirst().orElse(null);
        if (answer != null) {
            s.append(": ").append(lowerFirst(answer.action())).append(" for a predicted x").append(gain(answer));
        } else if (best != null) {
            s.append("; no recommendation addresses it, and the largest predicted gain is x").append(gain(best)).append(": ")
                    .append(lowerFirst(best.action()));
        } else if (top != null) {
            s.append("; no change the rules know is predicted to gain enough to recommend");
        }
        return s.append(".").toString();
    }

    /**
     * The candidates a diagnosis lists (its evidence {@code candidate.<quantity>.posterior}, with {@code .ratio_pct}
     * or {@code .ratio}), in its order: "the intra-node link at 6.29% of its rating (probability 52%)".
     */
    static List<String> candidates(DiagnosisView d) {
        List<String> out = new ArrayList<>();
        Map<String, Double> values = new java.util.HashMap<>();
        for (Evidence e : d.evidence()) if (e.name().startsWith("candidate.")) values.put(e.name(), e.value());
        for (Evidence e : d.evidence()) {
            if (!e.name().startsWith("candidate.") || !e.name().endsWith(".posterior")) continue;
            String key = e.name().substring("candidate.".length(), e.name().length() - ".posterior".length());
            Double pct = values.get("candidate." + key + ".ratio_pct"), ratio = values.get("candidate." + key + ".ratio");
            dev.trainadvisor.perf.FitParam param = null;
            for (dev.trainadvisor.perf.FitParam q : dev.trainadvisor.perf.FitParam.values()) if (q.key().equals(key)) param = q;
            String what = param == null ? "several quantities at once" : dev.trainadvisor.facts.Explanations.what(param);
            String at = pct != null ? " at " + Fmt.pct(pct / 100) + " of its rating" : ratio != null ? " at " + Fmt.num(ratio) + "x" : "";
            out.add(what + at + " (probability " + Fmt.pct(e.value() / 100) + ")");
        }
        return out;
    }

    /** "2.08 (x1.85-2.3)". */
    static String gain(RecommendationView r) {
        return Fmt.num(r.speedup()) + " (x" + Fmt.num(r.speedupInterval()[0]) + "-" + Fmt.num(r.speedupInterval()[1]) + ")";
    }

    /** "Train on ..." -> "train on ...", but "NVLink ..." stays. */
    static String lowerFirst(String action) {
        if (action.length() < 2 || !Character.isUpperCase(action.charAt(0)) || Character.isUpperCase(action.charAt(1)))
            return action;
        return Character.toLowerCase(action.charAt(0)) + action.substring(1);
    }

    static PredictionView prediction(StepPrediction p, PredictionInterval i, dev.trainadvisor.spec.Gpu gpu) {
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
                        .map(st -> new StageMemoryView(st.stage(), st.totalGb(), st.activationsGb())).toList(),
                        m.hostGb() > 0 ? m.hostGb() : null),
                new EfficiencyView(e.gemmFractionOfPeak(), e.attentionFractionOfPeak(), e.hbmFraction(),
                        e.overlapFraction(), e.elementwiseTraffic()), p.notes(),
                i == null ? null : new IntervalView(i.basis(), i.rows(), i.low(), i.high(), i.around(p.tokensPerGpuPerS()),
                        i.around(p.tflopsPerGpu()), new double[]{p.stepTimeS() / i.high(), p.stepTimeS() / i.low()}),
                new CeilingsView(gpu.key(), p.tflopsPerGpu() / p.mfu(), gpu.mamfTflopsBf16(), gpu.hbmGbps()),
                operations(p));
    }

    /** The step's operations, most time first (forward, backward and recomputation of one micro-batch). */
    static List<OperationView> operations(StepPrediction p) {
        List<OperationView> out = new ArrayList<>();
        for (dev.trainadvisor.perf.ComputeTime.Timed t : p.compute().operations()) {
            var o = t.operation();
            if (!(t.forwardSeconds() > 0)) continue;
            out.add(new OperationView(o.name(), o.kind().name().toLowerCase(java.util.Locale.ROOT), o.flops(), o.hbmBytes(),
                    o.intensity(), t.forwardSeconds(), t.seconds(), o.flops() / t.forwardSeconds() / 1e12,
                    o.hbmBytes() / t.forwardSeconds() / 1e9));
        }
        out.sort(java.util.Comparator.comparingDouble(OperationView::secondsPerMicroBatch).reversed()
                .thenComparing(OperationView::name));
        return List.copyOf(out);
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
        List<BreakdownLine> lines = new ArrayList<>();
        for (Phase ph : p.phases()) lines.add(new BreakdownLine(ph.name(), ph.seconds(), ph.exposedSeconds(), ph.link()));
        return new FitView(f.chosen().hypothesis().key(), f.chosen().posterior(),
                f.alternatives().stream().map(h -> h.hypothesis().key()).toList(), p.stepTimeS(), p.tokensPerGpuPerS(),
                p.tflopsPerGpu(), p.mfu(), p.exposedCommSeconds(), List.copyOf(params), List.copyOf(obs), List.copyOf(hyps),
                f.converged(), List.copyOf(lines));
    }

    /** @param m the run's measurements, for the steps it logged (NaN when it did not say) */
    static ObservedView observed(ObservationFact o, dev.trainadvisor.spec.Measurements m) {
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
                o.mfuHouse(), relation, m == null ? Double.NaN : m.steps());
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
        return new RecommendationView(r.id(), r.action(), r.change().asRunFile(), r.sameMath(), r.predictedTflopsPerGpu(),
                r.predictedStepTimeS(), r.speedup(), new double[]{r.speedupLow(), r.speedupHigh()}, r.memoryHeadroomGb(),
                r.addresses(), explanation(r, fitted), r.predictedMemoryGb(), r.memoryCapacityGb(),
                r.nextBottleneck() == null ? null : new NextBottleneckView(r.nextBottleneck(), r.nextBottleneckLink(),
                        r.nextBottleneckSeconds(), r.nextBottleneckSeconds() / r.predictedStepTimeS()), r.pricedBy().key);
    }

    /**
     * Why the remedy helps, then what it is priced at from the step the advice starts from (fitted, or predicted when
     * the run measured no times), and what would bound the step next.
     */
    static String explanation(Recommendation r, boolean fitted) {
        if (r.pricedBy() == Recommendation.PricedBy.HISTORY)
            return r.reason() + " Priced from the run's history, not the step model: the wall-clock pace of "
                    + Fmt.num(r.baselineStepS()) + " s per step (" + Fmt.num(r.baselineTflopsPerGpu())
                    + " TFLOPS per GPU) returns to its median step of " + Fmt.num(r.predictedStepTimeS()) + " s ("
                    + Fmt.num(r.predictedTflopsPerGpu()) + " TFLOPS, x" + Fmt.num(r.speedup()) + "); no run-file key changes.";
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
