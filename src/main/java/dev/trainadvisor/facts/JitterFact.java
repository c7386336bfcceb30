package dev.trainadvisor.facts;

/**
 * How much the run's step times scatter once periodic spikes and a change of pace are set aside
 * (history.HistoryAnalysis#jitter): the robust coefficient of variation, 1.4826 MAD / median.
 */
public record JitterFact(double robustCv, double p90OverMedian, int entries) {}
