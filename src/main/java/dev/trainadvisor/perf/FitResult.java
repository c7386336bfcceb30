package dev.trainadvisor.perf;

import java.util.List;
import java.util.Optional;

/**
 * What {@link Fit} found: the hypotheses it weighed, best first, and the chosen one's fit.
 * {@code scenario().predict()} reproduces {@code prediction}.
 *
 * @param scenario     the run with the chosen hypothesis' fitted values
 * @param prediction   the step model's prediction for {@code scenario}
 * @param expected     the prediction with the priors (catalogue cluster, default efficiency)
 * @param hypotheses   every hypothesis weighed, by posterior probability, highest first; the first is chosen
 * @param observations the measured times the fit matched; empty when the run measured nothing usable
 * @param nominalRuledOut the run is slower than the catalogue by more than the model's error, so the healthy
 *                     explanation is not chosen (nor an alternative) however likely the priors make it
 */
public record FitResult(Scenario scenario, StepPrediction prediction, StepPrediction expected,
                        List<HypothesisFit> hypotheses, List<FitObservation> observations, boolean nominalRuledOut) {

    /** Whether anything was fitted; false when no measurement could be used, and everything is the prior. */
    public boolean fitted() { return !observations.isEmpty(); }

    public HypothesisFit chosen() { return hypotheses.get(0); }

    public List<FitParameter> parameters() { return chosen().parameters(); }

    public Optional<FitParameter> parameter(FitParam p) { return chosen().parameter(p); }

    public boolean converged() { return chosen().converged(); }

    /**
     * The hypotheses the times cannot tell from the chosen one: posterior at least 1 / {@link Fit#AMBIGUOUS_BAYES_FACTOR}
     * of the chosen one's, or a fit of the times as good ({@link Fit#EQUALLY_GOOD_FIT}) that only the priors set apart.
     */
    public List<HypothesisFit> alternatives() {
        return hypotheses.subList(1, hypotheses.size()).stream()
                .filter(h -> !(nominalRuledOut && h.hypothesis() == FitHypothesis.NOMINAL))
                // a fault hypothesis that leaves its quantity within the ordinary spread is the healthy one renamed
                .filter(h -> h.hypothesis() == FitHypothesis.NOMINAL || h.departs())
                .filter(h -> rivals(chosen(), h)).toList();
    }

    /** Whether the times cannot tell {@code other} from {@code chosen}. */
    public static boolean rivals(HypothesisFit chosen, HypothesisFit other) {
        return Fit.indistinguishable(chosen.posterior(), chosen.dataCost(), other.posterior(), other.dataCost());
    }

    /** Exposed communication seconds per step, fitted. */
    public double exposedCommSeconds() { return prediction.exposedCommSeconds(); }
}
