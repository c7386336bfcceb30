package dev.trainadvisor.facts;

import dev.trainadvisor.spec.FlopsConvention;
import dev.trainadvisor.spec.Metric;

/**
 * What the run measured, normalized. NaN where not measured.
 *
 * @param tokensPerGpuPerS        measured, or derived from step time or from printed TFLOPS and its convention
 * @param tokensSource            the metric the throughput came from
 * @param tflopsPrinted           the framework's own figure
 * @param convention              how the framework counts FLOPs (null if no TFLOPS printed)
 * @param conventionFlopsPerToken FLOPs per token in that convention
 * @param houseFlopsPerToken      house model FLOPs per token
 * @param tflopsHouse             observed tokens/s times house FLOPs per token
 * @param mfuHouse                {@code tflopsHouse} over the GPU's dense bf16 peak
 */
public record ObservationFact(double tokensPerGpuPerS, Metric tokensSource, double stepTimeS, double fwdBwdTimeS,
                              double tflopsPrinted, FlopsConvention convention, double conventionFlopsPerToken,
                              double houseFlopsPerToken, double tflopsHouse, double mfuHouse, double peakTflops) {}
