package dev.trainadvisor.spec;

/**
 * What a run measured; any field may be absent (NaN, or null for the convention).
 *
 * @param tflopsConvention how the framework counted the printed TFLOPS (see FlopsConvention)
 * @param fwdBwdTimeS      forward and backward of every micro-batch of a step (InternEvo fwd_bwd_time, Megatron
 *                         forward-backward, DeepSpeed fwd + bwd)
 * @param forwardTimeS     the forward passes of a step alone (DeepSpeed's fwd timer, Megatron's forward-compute)
 * @param backwardTimeS    the backward passes of a step alone, with what the backward waits for
 * @param optimizerTimeS   what runs after the last backward: the optimizer step and the collectives beside it
 */
public record Measurements(double tflopsPerGpu, String tflopsConvention, double tokensPerGpuPerS,
                           double stepTimeS, double fwdBwdTimeS, double forwardTimeS, double backwardTimeS,
                           double optimizerTimeS, double mfu, double peakMemoryGb, double steps, double skippedSteps,
                           double lossScale) {

    public static final Measurements NONE = new Measurements(Double.NaN, null, Double.NaN, Double.NaN,
            Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    public boolean isEmpty() { return equals(NONE); }
}
