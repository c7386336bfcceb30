package dev.trainadvisor.facts;

/**
 * A parameter the fit to the run's timings estimated (perf.Fit), against what the model expected.
 *
 * @param name          "compute-scale", "intra-node-busbw", "inter-node-gbps" or "overlap-fraction"
 * @param constrained   whether the measurements, not the prior, fixed the value
 * @param priorSource   where the expected value comes from (e.g. "catalogue PCIe4")
 * @param costSeconds   how much longer the fitted step is than it would be with this one parameter at its
 *                      expected value (0 for parameters that do not slow the step)
 */
public record FittedParameterFact(String name, String unit, double expected, double fitted, double relativeChange,
                                  boolean constrained, String priorSource, double costSeconds) {}
