package dev.trainadvisor.facts;

import dev.trainadvisor.spec.Precision;

/**
 * The run's times are those of a lower precision than it says (advice.PrecisionCheck): observed at least
 * {@code MIN_GAP} slower than the model predicts at the configured precision, and within the model's spread of its
 * prediction at the lower one. The advice then prices the run as it ran, at {@code ran}.
 *
 * @param configured  the precision the run says (training.precision)
 * @param ran         the precision its times match
 * @param observedS   the step the run measured
 * @param configuredS the step predicted at the configured precision
 * @param ranS        the step predicted at the lower one
 */
public record PrecisionMismatchFact(Precision configured, Precision ran, double observedS, double configuredS, double ranS) {

    /** Observed over predicted at the configured precision. */
    public double gap() { return observedS / configuredS; }

    /** Observed over predicted at the precision it ran at. */
    public double fit() { return observedS / ranS; }

    /** The precision the run says, as a run file writes it. */
    public String configuredKey() { return configured.key(); }

    public String ranKey() { return ran.key(); }
}
