package dev.trainadvisor.perf;

/**
 * One parameter of the step model that {@link Fit} estimates from a run's measurements.
 *
 * @param name           "compute-scale", "intra-node-busbw", "inter-node-gbps" or "overlap-fraction"
 * @param unit           unit of {@code expected} and {@code fitted}
 * @param expected       the prior: the catalogue value, the run file's measurement or the model default
 * @param fitted         the maximum a posteriori value given the measurements
 * @param relativeChange {@code fitted / expected - 1}
 * @param priorSigma     the prior's standard deviation in the fit's coordinate (natural log of the value;
 *                       log-odds for the overlap fraction)
 * @param posteriorSigma the standard deviation after the fit in the same coordinate, from the Gauss-Newton
 *                       covariance {@code (J^T J)^-1} of the whitened residuals at the optimum
 * @param constrained    whether the measurements, not the prior, fixed the value: posterior sigma below
 *                       {@link Fit#CONSTRAINED_RATIO} of the prior sigma
 * @param priorSource    where the prior came from, for explanations (e.g. "catalogue PCIe4")
 */
public record FitParameter(String name, String unit, double expected, double fitted, double relativeChange,
                           double priorSigma, double posteriorSigma, boolean constrained, String priorSource) {

    /** How many prior standard deviations the fit moved the parameter, signed. */
    public double shiftInPriorSigmas() {
        return Fit.coordinateShift(name, expected, fitted) / priorSigma;
    }
}
