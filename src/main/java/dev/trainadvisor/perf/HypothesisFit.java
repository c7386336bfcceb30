package dev.trainadvisor.perf;

import java.util.List;
import java.util.Optional;

/**
 * One hypothesis fitted to a run's times and weighed against the others.
 *
 * @param prior       its probability before the run's times are seen
 * @param logEvidence log of the marginal likelihood of the times under it (Laplace approximation, up to a
 *                    constant common to all hypotheses of the run)
 * @param posterior   its probability given the times, among the hypotheses weighed
 * @param cost        the minimized sum of squared whitened residuals (observations and priors)
 * @param dataCost    of {@code cost}, the observations' part: how well the hypothesis fits the times, priors aside
 * @param scenario    the run with this hypothesis' fitted values
 * @param parameters  every fitted quantity under it
 */
public record HypothesisFit(FitHypothesis hypothesis, double prior, double logEvidence, double posterior, double cost,
                            double dataCost, Scenario scenario, List<FitParameter> parameters, boolean converged) {

    public Optional<FitParameter> parameter(FitParam p) {
        return parameters.stream().filter(f -> f.param() == p).findFirst();
    }

    /** Departing from the ordinary: a quantity it frees moves beyond this many of its ordinary standard deviations. */
    public static final double DEPARTURE_SIGMAS = 1;

    /**
     * Whether a quantity it frees lies beyond its ordinary spread on the slow side ({@link #DEPARTURE_SIGMAS} below):
     * a fault makes a run slower; a quantity that moves up explains nothing a fault would.
     */
    public boolean departs() {
        return parameters.stream().anyMatch(q -> hypothesis.frees(q.param())
                && q.shiftInNominalSigmas() <= -DEPARTURE_SIGMAS);
    }

    /** The fitted value of {@code p}, NaN when the run has no such quantity. */
    public double fitted(FitParam p) { return parameter(p).map(FitParameter::fitted).orElse(Double.NaN); }
}
