package dev.trainadvisor.perf;

import java.util.List;

/**
 * The step model's answer for one configuration.
 *
 * @param tflopsPerGpu house model TFLOPS per GPU (FlopsPerToken#model)
 * @param mfu          model FLOPs utilization against the GPU's dense bf16 peak (PaLM, appendix B)
 * @param hfu          hardware FLOPs (with recomputation) utilization
 * @param phases       the breakdown; exposed seconds sum to {@code stepTimeS}
 * @param notes        what this version of the model leaves out for this configuration
 */
public record StepPrediction(double stepTimeS, double tokensPerGpuPerS, double tflopsPerGpu, double mfu, double hfu,
                             FlopsPerToken flopsPerToken, ComputeTime compute, List<Phase> phases,
                             List<Collective> collectives, MemoryEstimate memory, Efficiency efficiency,
                             double optimizerSeconds, double bubbleSeconds, List<String> notes) {

    public double computeSeconds() {
        return phases.stream().filter(p -> p.link() == null).mapToDouble(Phase::exposedSeconds).sum();
    }

    public double exposedCommSeconds() {
        return collectives.stream().mapToDouble(Collective::exposedSeconds).sum();
    }

    /**
     * What a framework's forward-backward timer sees (InternEvo fwd_bwd_time, Megatron forward-backward):
     * the step less the optimizer and the data-parallel collectives that run after backward unoverlapped
     * (ZeRO's parameter all-gather, a gradient reduction that does not overlap).
     */
    public double fwdBwdSeconds() {
        double after = optimizerSeconds;
        for (Collective c : collectives) {
            boolean dataParallel = c.group().equals("dp") || c.group().startsWith("zero");
            if (dataParallel && c.overlapsWith().equals("none")) after += c.exposedSeconds();
        }
        return stepTimeS - after;
    }
}
