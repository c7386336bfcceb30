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

    /** What fixed a fitted value, in the words the reports use. */
    public enum SetBy {
        MEASUREMENTS("the measurements"),
        MEASUREMENTS_AND_PRIOR("the measurements, bounded by the prior"),
        PRIOR("the prior");

        public final String words;

        SetBy(String words) { this.words = words; }
    }

    /**
     * A value the measurements did not pin down but moved by this share of its prior's standard deviation or more was
     * set by them together with the prior: the prior alone leaves a quantity at its expected value, so a move of half
     * a prior sigma (compute 1 -> 1.05 under the 9.7% prior) is the run's times speaking, however loosely.
     */
    public static final double MOVED = 0.5;

    /** What fixed the value: the measurements ({@code constrained}), both (moved by MOVED prior sigmas), or the prior. */
    public SetBy setBy() {
        if (constrained) return SetBy.MEASUREMENTS;
        return Math.abs(Fit.coordinateShift(param, expected, fitted)) >= MOVED * priorSigma ? SetBy.MEASUREMENTS_AND_PRIOR
                : SetBy.PRIOR;
    }

    /** How many of its ordinary standard deviations the fit moved the quantity, signed. */
    public double shiftInNominalSigmas() {
        return Fit.coordinateShift(param, expected, fitted) / nominalSigma;
    }
}
