package dev.trainadvisor.facts;

/**
 * What the run measured, normalized. NaN where not measured.
 *
 * @param tokensPerGpuPerS     measured, or derived from step time or from printed TFLOPS and its convention
 * @param tflopsPrinted        the framework's own figure
 * @param convention           how the framework counts FLOPs (null if no TFLOPS printed)
 * @param conventionFlopsPerToken FLOPs per token in that convention
 * @param houseFlopsPerToken   house model FLOPs per token
 * @param tflopsHouse          observed tokens/s times house FLOPs per token
 */
public record ObservationFact(double tokensPerGpuPerS, double stepTimeS, double fwdBwdTimeS, double tflopsPrinted,
                              String convention, double conventionFlopsPerToken, double houseFlopsPerToken,
                              double tflopsHouse, double mfuHouse, String tokensSource) {}
