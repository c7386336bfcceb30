package dev.trainadvisor.facts;

/**
 * Observed against predicted. {@code observedOverPredicted} compares throughput (tokens per GPU
 * per second): below 1 the run is slower than the model says it should be.
 */
public record GapFact(double observedOverPredicted, double observedStepS, double predictedStepS,
                      double unexplainedS) {}
