package dev.trainadvisor.perf;

import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.RunChange;
import dev.trainadvisor.spec.RunFile;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.RunSpec;

import java.util.List;

/**
 * The step a run's advice starts from, and the one way to price a change to it.
 *
 * <p>The catalogue prediction is what the run should do; when the run measured its times (and they are possible,
 * {@link MeasurementCheck}), {@link Fit} fits the model to them and the fitted step is the baseline: every diagnosis
 * apportions its seconds and every remedy is priced from it. A change ({@link RunChange}, typed run-file fields) is
 * made to the run's typed run file ({@link RunFile}) with the fitted link bandwidths pinned, resolved through the same
 * validation as the user's own file, and predicted with the fitted compute scale and overlap on the changed GPU's
 * default efficiencies. The empty change reproduces the fitted step.
 */
public final class Baseline {
    private final Scenario catalogue;
    private final StepPrediction expected;
    private final List<MeasurementCheck> implausible;
    private final FitResult fit;
    private final Scenario scenario;
    private final StepPrediction prediction;
    /** The user's run as a run file, for {@link #price(RunChange)}; made at the first price. */
    private RunFile userFile;
    /** The scenario's run as a run file, which every change is made to; made at the first price. */
    private RunFile scenarioFile;

    private Baseline(Scenario catalogue, StepPrediction expected, List<MeasurementCheck> implausible, FitResult fit) {
        this.catalogue = catalogue;
        this.expected = expected;
        this.implausible = implausible;
        this.fit = fit;
        this.scenario = fit == null ? catalogue : fit.scenario();
        this.prediction = fit == null ? expected : fit.prediction();
    }

    public static Baseline of(Cluster cluster, RunMetrics run) {
        Scenario c = Scenario.catalogue(cluster, run);
        StepPrediction expected = c.predict();
        List<MeasurementCheck> checks = MeasurementCheck.of(cluster, run, expected);
        FitResult fit = null;
        if (checks.isEmpty() && ObservedThroughput.of(cluster, run).measured()) {
            FitResult f = Fit.fit(c);
            if (f.fitted()) fit = f;
        }
        return new Baseline(c, expected, checks, fit);
    }

    /** The run as the catalogue describes it. */
    public Scenario catalogue() { return catalogue; }

    /** What the catalogue predicts for the run. */
    public StepPrediction expected() { return expected; }

    /** The measurements the hardware cannot produce; when any, the run is not fitted. */
    public List<MeasurementCheck> implausible() { return implausible; }

    /** The fit to the run's times, or null when it measured none (or impossible ones). */
    public FitResult fit() { return fit; }

    /** The scenario the advice starts from: fitted, else the catalogue's. */
    public Scenario scenario() { return scenario; }

    /** The step the advice starts from: fitted, else the catalogue prediction. */
    public StepPrediction prediction() { return prediction; }

    /**
     * A change priced: the changed run, its step, and the change as it applied (removals of fields the run did not
     * have left out).
     */
    public record Priced(RunSpec run, StepPrediction step, RunChange change) {}

    /**
     * The run with {@code change} made, priced from the baseline; null when the changed run is not valid (a GPU count
     * the layout cannot divide, say).
     */
    public Priced price(RunChange change) {
        if (scenarioFile == null) scenarioFile = RunFile.of(scenario.cluster(), scenario.run());
        RunSpec changed = changed(scenarioFile, change);
        if (changed == null) return null;
        // the fit pins link bandwidths the user never wrote; what the change clears is shown against the user's run
        if (userFile == null) userFile = RunFile.of(catalogue.cluster(), catalogue.run());
        return new Priced(changed, predict(scenario, changed), change.effectiveOn(userFile));
    }

    /** As {@link #price(RunChange)}, from another fitted scenario (an alternative hypothesis). */
    public static Priced price(Scenario from, RunChange change) {
        RunFile file = RunFile.of(from.cluster(), from.run());
        RunSpec changed = changed(file, change);
        return changed == null ? null : new Priced(changed, predict(from, changed), change.effectiveOn(file));
    }

    /** {@code file} with {@code change} made and validated; null when the changed run is not valid. */
    private static RunSpec changed(RunFile file, RunChange change) {
        try {
            return RunSpec.changed(file, change);
        } catch (SpecException e) {
            return null;
        }
    }

    /** The changed run's step at {@code from}'s fitted compute scale and overlap, on its GPU's default efficiencies. */
    private static StepPrediction predict(Scenario from, RunSpec changed) {
        Efficiency d = Efficiency.defaults(changed.cluster().gpu(), changed.run());
        return new Scenario(changed.cluster(), changed.run(), d, from.computeScale(), from.overlap()).predict();
    }

    /** The baseline step with one fitted quantity put back to its expected (catalogue) value. */
    public StepPrediction restored(FitParam p) {
        if (fit == null) return prediction;
        double expectedValue = catalogue.value(p);
        if (Double.isNaN(expectedValue)) return prediction;
        return scenario.with(p, expectedValue).predict();
    }
}
