package dev.trainadvisor.perf;

/**
 * One quantity {@link Fit} estimated from a run's measurements, under the hypothesis it chose.
 *
 * @param expected       the prior: the catalogue value, the run file's measurement or the model default
 * @param fitted         the maximum a posteriori value given the measurements
 * @param low            the fitted value one posterior standard deviation below (in the fit's coordinate)
 * @param high           and one above
 * @param priorSigma     the prior's standard deviation in the fit's coordinate (natural log of the value; log-odds
 *                       for the overlap fraction), under the chosen hypothesis
 * @param nominalSigma   the ordinary spread of the quantity around its expected value (its prior when healthy)
 * @param posteriorSigma the standard deviation after the fit in the same coordinate, from the Gauss-Newton
 *                       covariance {@code (J^T J)^-1} of the whitened residuals at the optimum
 * @param constrained    whether the measurements, not the prior, fixed the value: posterior sigma below
 *                       {@link Fit#CONSTRAINED_RATIO} of the prior sigma
 * @param priorSource    where the prior came from, for explanations (e.g. "catalogue PCIe4")
 */
public record FitParameter(FitParam param, double expected, double fitted, double low, double high,
                           double priorSigma, double nominalSigma, double posteriorSigma, boolean constrained,
                           String priorSource) {

    public String name() { return param.key(); }

    public String unit() { return param.unit; }

    /** {@code fitted / expected - 1}. */
    public double relativeChange() { return fitted / expected - 1; }

    /** How many of its ordinary standard deviations the fit moved the quantity, signed. */
    public double shiftInNominalSigmas() {
        return Fit.coordinateShift(param, expected, fitted) / nominalSigma;
    }
}
