package dev.trainadvisor.facts;

/**
 * Loss spikes and steps with a NaN or infinite loss (or skipped) over the run's steady steps
 * (history.HistoryAnalysis#loss).
 *
 * @param firstStep the first such step; -1 when none
 * @param worstRatio the worst spike's loss over its trailing median
 */
public record LossEventsFact(int spikes, int nonFinite, long firstStep, double worstRatio, int entries) {}
