package dev.trainadvisor.api;

import dev.trainadvisor.report.AdviceView;
import dev.trainadvisor.report.Html;
import dev.trainadvisor.report.Json;
import dev.trainadvisor.report.Markdown;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * What train-advisor concludes about one run, read-only: a one-sentence headline, the diagnosed causes by severity and
 * share of the step, the recommended changes by predicted speedup, the catalogue's prediction and the step fitted to
 * the run's times beside what it measured, and what was assumed. {@link #toJson()}, {@link #toMarkdown()} and
 * {@link #toHtml()} give the reports {@code advise --format json|md|html} writes, byte for byte. Immutable and safe to
 * share between threads.
 *
 * <p>Step values are per optimizer step and per GPU: seconds a step, tokens a GPU processes a second, TFLOPS a GPU
 * achieves and MFU, the TFLOPS and MFU counted by train-advisor's own FLOPs of the model (the same count for predicted,
 * fitted and measured, whatever the framework printed).
 */
public final class Advice {
    private final dev.trainadvisor.advice.Advice advice;
    private final String headline;
    private final List<Diagnosis> diagnoses;
    private final List<Recommendation> recommendations;
    private final Step predicted;
    private final Step fitted;
    private final Measured measured;
    private final List<Run.Assumption> assumptions;

    Advice(dev.trainadvisor.advice.Advice advice, Run run) {
        this.advice = advice;
        AdviceView v = AdviceView.of(advice);
        this.headline = v.verdict();
        List<Diagnosis> ds = new ArrayList<>();
        for (AdviceView.DiagnosisView d : v.diagnoses())
            ds.add(new Diagnosis(d.id(), d.title(), Severity.valueOf(d.severity().toUpperCase(Locale.ROOT)), d.probability(),
                    d.impactFraction(), d.explanation()));
        this.diagnoses = List.copyOf(ds);
        List<Recommendation> rs = new ArrayList<>();
        for (AdviceView.RecommendationView r : v.recommendations())
            rs.add(new Recommendation(r.id(), r.action(), changes(r.change()), r.speedup(), optional(r.speedupInterval()[0]),
                    optional(r.speedupInterval()[1]), r.predictedStepTimeS(), r.predictedTflopsPerGpu(), r.addresses(),
                    r.explanation()));
        this.recommendations = List.copyOf(rs);
        AdviceView.PredictionView p = v.prediction();
        this.predicted = new Step(p.stepTimeS(), p.tokensPerGpuPerS(), p.tflopsPerGpu(), p.mfu());
        AdviceView.FitView f = v.fit();
        this.fitted = f == null ? null : new Step(f.stepTimeS(), f.tokensPerGpuPerS(), f.tflopsPerGpu(), f.mfu());
        AdviceView.ObservedView o = v.observed();
        this.measured = o == null ? Measured.NONE : new Measured(optional(o.stepTimeS()), optional(o.tokensPerGpuPerS()),
                optional(o.tflopsPerGpuHouse()), optional(o.mfuHouse()));
        this.assumptions = run.assumptions();
    }

    private static OptionalDouble optional(double v) { return Double.isNaN(v) ? OptionalDouble.empty() : OptionalDouble.of(v); }

    /** A change as a run file writes it: each value a String, a Number or a Boolean; null where the field returns to its default. */
    private static Map<String, Object> changes(Map<String, Object> change) {
        Map<String, Object> out = new LinkedHashMap<>();
        change.forEach((k, val) -> out.put(k, val == null || val instanceof String || val instanceof Number
                || val instanceof Boolean ? val : String.valueOf(val)));
        return Collections.unmodifiableMap(out);
    }

    /** The run's name. */
    public String runName() { return advice.run().name(); }

    /** One sentence: the cause that matters most and the change predicted to gain most, or how the run compares. */
    public String headline() { return headline; }

    /** The causes found, by severity, then by the share of the step they explain. */
    public List<Diagnosis> diagnoses() { return diagnoses; }

    /** The cause that matters most; empty when none was found. */
    public Optional<Diagnosis> top() { return diagnoses.isEmpty() ? Optional.empty() : Optional.of(diagnoses.get(0)); }

    /** The changes predicted to gain, those that keep the optimisation the same first, then by predicted speedup. */
    public List<Recommendation> recommendations() { return recommendations; }

    /** What the catalogue predicts for the run: its hardware's numbers and the model, before any fit. */
    public Step predicted() { return predicted; }

    /** The step fitted to the run's measured times; empty when it measured none the fit can use. */
    public Optional<Step> fitted() { return Optional.ofNullable(fitted); }

    /** What the run measured, in the same terms; each value empty where it measured nothing that gives it. */
    public Measured measured() { return measured; }

    /** The values of the run that neither the caller nor its log gave (see {@link Run#assumptions()}). */
    public List<Run.Assumption> assumptions() { return assumptions; }

    /** The advice as {@code advise --format json} writes it (docs/advice-json.md describes it). */
    public String toJson() { return Json.of(advice); }

    /** The advice as {@code advise --format md} writes it. */
    public String toMarkdown() { return Markdown.of(advice); }

    /** The self-contained HTML report {@code advise --format html} writes. */
    public String toHtml() { return Html.of(advice); }

    @Override
    public String toString() { return runName() + ": " + headline; }

    /** How much a cause matters. */
    public enum Severity { HIGH, MEDIUM, LOW, INFO }

    /**
     * A cause of the run's speed.
     *
     * @param id          stable across versions ("intra-node-bandwidth"); docs/rules.md lists them
     * @param title       in words
     * @param severity    how much it matters
     * @param probability how sure the fit is of it, 0-1 (1 for what the run's layout and hardware make certain)
     * @param share       the share of the step it explains, 0-1 (of the wall time, for a cause seen in the run's history)
     * @param explanation why, with the numbers
     */
    public record Diagnosis(String id, String title, Severity severity, double probability, double share,
                            String explanation) {}

    /**
     * A change to the run and what it is predicted to gain, priced from the fitted step.
     *
     * @param id                    stable across versions ("nvlink-nodes")
     * @param action                what to do, in words
     * @param changes               what changes, as run-file fields ("cluster.gpu" to "A100-SXM4-80GB"); a null value
     *                              returns the field to its default
     * @param speedup               predicted new throughput over the current (1.99 is 99% faster)
     * @param speedupLow            the lowest speedup the explanations of the run's times the fit cannot rule out
     *                              give, and the prediction's interval; empty where there is none
     * @param speedupHigh           the highest; empty where there is none
     * @param predictedStepTimeS    the changed step, seconds
     * @param predictedTflopsPerGpu the changed run's TFLOPS a GPU
     * @param addresses             the ids of the diagnoses it answers
     * @param explanation           why, with the numbers
     */
    public record Recommendation(String id, String action, Map<String, Object> changes, double speedup,
                                 OptionalDouble speedupLow, OptionalDouble speedupHigh, double predictedStepTimeS,
                                 double predictedTflopsPerGpu, List<String> addresses, String explanation) {
        public Recommendation {
            changes = Collections.unmodifiableMap(new LinkedHashMap<>(changes));
            addresses = List.copyOf(addresses);
        }
    }

    /** A step: seconds, tokens a GPU a second, TFLOPS a GPU and MFU (0-1). */
    public record Step(double stepTimeS, double tokensPerGpuPerS, double tflopsPerGpu, double mfu) {}

    /** What a run measured, in a {@link Step}'s terms; a value the run did not measure is empty. */
    public record Measured(OptionalDouble stepTimeS, OptionalDouble tokensPerGpuPerS, OptionalDouble tflopsPerGpu,
                           OptionalDouble mfu) {
        static final Measured NONE = new Measured(OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty(),
                OptionalDouble.empty());
    }
}
