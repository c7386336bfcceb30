package dev.trainadvisor.facts;

/**
 * The step the rules reason on: fitted to the run's times when it measured them, else the catalogue prediction.
 *
 * @param fitted                whether the numbers are fitted to the run's times
 * @param computeS              forward and backward compute of every micro-batch, without exposed communication
 * @param exposedCommS          communication not hidden behind compute
 * @param hardwareFlopsPerToken model FLOPs plus what recomputation adds
 * @param waveEfficiency        FLOP-weighted share of the GPU's SMs the layer GEMMs keep busy (wave quantization)
 * @param tokensPerMicroBatch   tokens one GPU processes per micro-batch (the M of its GEMMs)
 * @param recomputeS            seconds of the compute spent recomputing activations
 * @param phases                exposed seconds of every phase of the step by name (they add up to the step)
 */
public record StepFact(boolean fitted, double stepTimeS, double tokensPerGpuPerS, double tflopsPerGpu, double mfu,
                       double computeS, double exposedCommS, double optimizerS, double bubbleS,
                       double modelFlopsPerToken, double hardwareFlopsPerToken, double waveEfficiency,
                       double tokensPerMicroBatch, double recomputeS,
                       java.util.Map<String, Double> phases) {

    public StepFact {
        phases = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(phases));
    }

    /** The exposed seconds of a phase, 0 when the step has none of that name. */
    public double phase(String name) { return phases.getOrDefault(name, 0.0); }
}
