package dev.trainadvisor.facts;

/**
 * Step times that spike at a fixed period in the run's history (history.HistoryAnalysis#stalls): checkpoint saves,
 * evaluation, garbage collection.
 *
 * @param period    steps between spikes
 * @param spikes    how many spiked
 * @param firstStep the first step that spiked
 * @param medianS   the median step's seconds
 * @param costS     seconds the spikes took beyond the median, in all
 * @param wallS     wall seconds of the steady steps
 * @param basis     "timestamps" or "step time": what the durations were read from
 * @param said       what the log says the run did right before most spikes (a checkpoint save, an evaluation: its
 *                   {@link dev.trainadvisor.history.StepHistory.Event}s at the step before a spike or the spike's
 *                   own), or null where it says nothing of them
 * @param saidSpikes how many of the spikes it says that of
 */
public record StallFact(long period, int spikes, long firstStep, double medianS, double costS, double wallS, String basis,
                        dev.trainadvisor.history.StepHistory.Kind said, int saidSpikes) {
    /** Stalls the log says nothing of. */
    public StallFact(long period, int spikes, long firstStep, double medianS, double costS, double wallS, String basis) {
        this(period, spikes, firstStep, medianS, costS, wallS, basis, null, 0);
    }

    /** The share of the wall time the spikes cost. */
    public double share() { return costS / wallS; }

    public double perSpikeS() { return costS / spikes; }
}
