package dev.trainadvisor.facts;

/**
 * The step model's totals for the run as configured.
 *
 * @param hardwareFlopsPerToken model FLOPs plus what recomputation adds
 * @param waveEfficiency        FLOP-weighted share of the GPU's SMs the layer GEMMs keep busy (wave quantization)
 * @param tokensPerMicroBatch   tokens one GPU processes per micro-batch (the M of its GEMMs)
 */
public record PredictionFact(double stepTimeS, double tokensPerGpuPerS, double tflopsPerGpu, double mfu,
                             double computeS, double exposedCommS, double optimizerS, double bubbleS,
                             double modelFlopsPerToken, double hardwareFlopsPerToken, double waveEfficiency,
                             double tokensPerMicroBatch) {

    /** The share of the step spent recomputing activations (recomputed FLOPs' share of the compute time). */
    public double recomputeFraction() {
        return (hardwareFlopsPerToken - modelFlopsPerToken) / hardwareFlopsPerToken * computeS / stepTimeS;
    }
}
