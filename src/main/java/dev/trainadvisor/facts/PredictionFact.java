package dev.trainadvisor.facts;

/** The step model's totals for the run as configured. */
public record PredictionFact(double stepTimeS, double tokensPerGpuPerS, double tflopsPerGpu, double mfu,
                             double computeS, double exposedCommS, double optimizerS, double bubbleS,
                             double modelFlopsPerToken) {}
