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

    /**
     * The collective exposed longest; of several exposed alike but for a rounding error ({@link StepModel#ROUNDING} of
     * the step: FSDP's forward all-gather and its gradients' reduce-scatter move the same bytes), the first, so that
     * rounding does not choose among them. Null without collectives.
     */
    public Collective longestExposed() {
        Collective worst = null;
        double noise = StepModel.ROUNDING * stepTimeS;
        for (Collective c : collectives) if (worst == null || c.exposedSeconds() > worst.exposedSeconds() + noise) worst = c;
        return worst;
    }

    public double computeSeconds() {
        return phases.stream().filter(p -> p.link() == null).mapToDouble(Phase::exposedSeconds).sum();
    }

    public double exposedCommSeconds() {
        return collectives.stream().mapToDouble(Collective::exposedSeconds).sum();
    }

    /** The compute of every micro-batch's forward plus the exposed collectives that land in it. */
    public double forwardSeconds() {
        double s = phase(Phase.FORWARD);
        for (Collective c : collectives) s += c.exposedForward();
        return s;
    }

    /** The compute of every micro-batch's backward plus the exposed collectives that land in it. */
    public double backwardSeconds() {
        double s = phase(Phase.BACKWARD);
        for (Collective c : collectives) s += c.exposedBackward();
        return s;
    }

    /**
     * What runs after the last backward: the optimizer update, the framework's time around it, and the data-parallel
     * collectives that do not overlap (ZeRO's parameter all-gather, a gradient reduction that is not overlapped).
     */
    public double afterBackwardSeconds() {
        double after = optimizerSeconds + phase(Phase.FRAMEWORK) + phase(Phase.HOST_OPTIMIZER) + phase(Phase.OFFLOAD_UPDATE);
        for (Collective c : collectives) after += c.exposedAfterBackward();
        return after;
    }

    /**
     * What a framework's forward-backward timer sees (InternEvo fwd_bwd_time, Megatron forward-backward): the step
     * less {@link #afterBackwardSeconds()}; forward, backward and the pipeline bubble.
     */
    public double fwdBwdSeconds() { return stepTimeS - afterBackwardSeconds(); }

    /** The times a fit compares with measured ones (StepModel#times gives the same of a point it asks for once). */
    StepModel.Times times() {
        return new StepModel.Times(stepTimeS, forwardSeconds(), backwardSeconds(), afterBackwardSeconds());
    }

    private double phase(String name) {
        for (Phase p : phases) if (p.name().equals(name)) return p.exposedSeconds();
        return 0;
    }
}
