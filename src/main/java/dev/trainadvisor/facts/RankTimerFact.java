package dev.trainadvisor.facts;

/**
 * A timer every rank reports, over the run's steady steps (history.HistoryAnalysis#spread, #share): the slowest rank's
 * median seconds, the median spread between the slowest and the fastest, and the median step.
 *
 * @param timer      the timer's name as the log prints it (history.StepHistory.FORWARD_BACKWARD, BATCH_GENERATOR, ...)
 * @param maxOverMin the median over steps of the slowest rank's seconds over the fastest's; NaN when only one is printed
 * @param wallShare  the slowest rank's seconds summed over the steps, over the steps' seconds summed: bursts count
 */
public record RankTimerFact(String timer, double maxS, double spreadS, double maxOverMin, double stepS, int entries,
                            double wallShare) {
    /** The slowest rank's seconds over the step. */
    public double share() { return maxS / stepS; }

    /** The spread between ranks over the step: what the others wait for the slowest. */
    public double spreadShare() { return spreadS / stepS; }
}
