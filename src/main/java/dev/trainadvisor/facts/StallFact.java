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
 */
public record StallFact(long period, int spikes, long firstStep, double medianS, double costS, double wallS, String basis) {
    /** The share of the wall time the spikes cost. */
    public double share() { return costS / wallS; }

    public double perSpikeS() { return costS / spikes; }
}
