package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;

import java.util.List;
import java.util.Optional;

/**
 * What {@link Fit} found. {@code StepModel.predict(cluster, run, efficiency)} reproduces {@code prediction}.
 *
 * @param cluster      the cluster with the fitted intra-node bus bandwidth and inter-node bandwidth (the input
 *                     cluster itself when neither moved)
 * @param efficiency   the fitted efficiencies: GEMM and attention fractions times the compute scale, the
 *                     fitted overlap fraction, HBM fraction as given
 * @param prediction   the step model's prediction with the fitted parameters
 * @param expected     the prediction with the priors (catalogue cluster, default efficiency)
 * @param parameters   every parameter of the fit, in the order compute-scale, intra-node-busbw,
 *                     [inter-node-gbps], overlap-fraction
 * @param observations the measured times the fit matched; empty when the run measured nothing usable
 * @param cost         the minimized sum of squared whitened residuals (observations and priors)
 * @param evaluations  evaluations of the residual function (each predicts 1 + parameters times)
 * @param iterations   Levenberg-Marquardt iterations, -1 when it did not converge
 * @param converged    false when the optimizer ran out of evaluations (or could not reduce the cost further
 *                     within its tolerances) and the fit kept the lowest-cost point it had evaluated
 */
public record FitResult(Cluster cluster, Efficiency efficiency, StepPrediction prediction, StepPrediction expected,
                        List<FitParameter> parameters, List<FitObservation> observations, double cost,
                        int evaluations, int iterations, boolean converged) {

    /** Whether anything was fitted; false when no measurement could be used, and everything is the prior. */
    public boolean fitted() { return !observations.isEmpty(); }

    public Optional<FitParameter> parameter(String name) {
        return parameters.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    /** Exposed communication seconds per step, fitted (the expected value is {@code expected().exposedCommSeconds()}). */
    public double exposedCommSeconds() { return prediction.exposedCommSeconds(); }
}
