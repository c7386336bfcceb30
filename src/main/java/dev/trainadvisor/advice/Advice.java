package dev.trainadvisor.advice;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.GapFact;
import dev.trainadvisor.facts.ObservationFact;
import dev.trainadvisor.facts.RuledOut;
import dev.trainadvisor.perf.Baseline;
import dev.trainadvisor.perf.PredictionInterval;
import dev.trainadvisor.perf.RunClass;
import dev.trainadvisor.perf.Scenario;
import dev.trainadvisor.perf.FitResult;
import dev.trainadvisor.perf.StepPrediction;

import java.util.List;

/**
 * Everything train-advisor concludes about one run; the renderers (package report) see only this.
 *
 * @param run             the run as validated: its cluster, model, layout, training and measurements
 * @param baseline        the catalogue prediction, the fit to the run's times and the step the advice starts from
 * @param observed        the run's measurements in house terms; null when it measured nothing
 * @param gap             observed against the catalogue prediction and the fitted step; null when it measured no
 *                        throughput
 * @param diagnoses       by severity, then the share of the step they explain
 * @param recommendations those that keep the optimisation first, then by predicted speedup
 * @param ruledOut        the diagnosis rules that were tested and fell short of their threshold, nearest miss first
 */
public record Advice(dev.trainadvisor.spec.RunSpec run, Baseline baseline, ObservationFact observed, GapFact gap, List<Diagnosis> diagnoses,
                     List<Recommendation> recommendations, List<RuledOut> ruledOut) {

    /** What the catalogue predicts for the run. */
    public StepPrediction expected() { return baseline.expected(); }

    /** The step the advice starts from: fitted to the run's times, else the catalogue prediction. */
    public StepPrediction fitted() { return baseline.prediction(); }

    /** The fit, or null when the run measured no usable time. */
    public FitResult fit() { return baseline.fit(); }

    /** How far the model has been off on validated runs like this one: the catalogue prediction's interval. */
    public PredictionInterval interval() {
        Scenario s = baseline.scenario();
        return PredictionInterval.of(RunClass.of(s.cluster(), s.run(), expected()));
    }

    /** The diagnosis that matters most, or null. */
    public Diagnosis top() { return diagnoses.isEmpty() ? null : diagnoses.get(0); }
}
