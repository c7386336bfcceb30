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
 * @param history          the per-step series of the log it came from; {@link dev.trainadvisor.history.StepHistory#EMPTY}
 *                         for a run file's metrics
 */
public record Measurements(double tflopsPerGpu, String tflopsConvention, double tokensPerGpuPerS,
                           double stepTimeS, double fwdBwdTimeS, double forwardTimeS, double backwardTimeS,
                           double optimizerTimeS, double mfu, double peakMemoryGb, double steps, double skippedSteps,
                           double lossScale, dev.trainadvisor.history.StepHistory history) {

    public static final Measurements NONE = new Measurements(Double.NaN, null, Double.NaN, Double.NaN,
            Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    public Measurements {
        if (history == null) history = dev.trainadvisor.history.StepHistory.EMPTY;
    }

    /** Without a history: a run file's metrics, or a log that printed no steps. */
    public Measurements(double tflopsPerGpu, String tflopsConvention, double tokensPerGpuPerS, double stepTimeS,
                        double fwdBwdTimeS, double forwardTimeS, double backwardTimeS, double optimizerTimeS, double mfu,
                        double peakMemoryGb, double steps, double skippedSteps, double lossScale) {
        this(tflopsPerGpu, tflopsConvention, tokensPerGpuPerS, stepTimeS, fwdBwdTimeS, forwardTimeS, backwardTimeS,
                optimizerTimeS, mfu, peakMemoryGb, steps, skippedSteps, lossScale, dev.trainadvisor.history.StepHistory.EMPTY);
    }

    /** The same measurements with the log's history. */
    public Measurements withHistory(dev.trainadvisor.history.StepHistory h) {
        return new Measurements(tflopsPerGpu, tflopsConvention, tokensPerGpuPerS, stepTimeS, fwdBwdTimeS, forwardTimeS,
                backwardTimeS, optimizerTimeS, mfu, peakMemoryGb, steps, skippedSteps, lossScale, h);
    }

    public boolean isEmpty() { return equals(NONE); }

    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Measurements m && Double.compare(tflopsPerGpu, m.tflopsPerGpu) == 0
                && Double.compare(tokensPerGpuPerS, m.tokensPerGpuPerS) == 0
                && Double.compare(stepTimeS, m.stepTimeS) == 0 && Double.compare(fwdBwdTimeS, m.fwdBwdTimeS) == 0
                && Double.compare(forwardTimeS, m.forwardTimeS) == 0
                && Double.compare(backwardTimeS, m.backwardTimeS) == 0
                && Double.compare(optimizerTimeS, m.optimizerTimeS) == 0 && Double.compare(mfu, m.mfu) == 0
                && Double.compare(peakMemoryGb, m.peakMemoryGb) == 0 && Double.compare(steps, m.steps) == 0
                && Double.compare(skippedSteps, m.skippedSteps) == 0 && Double.compare(lossScale, m.lossScale) == 0
                && java.util.Objects.equals(tflopsConvention, m.tflopsConvention)
                && java.util.Objects.equals(history, m.history);
    }

    @Override
    public int hashCode() {
        int h = Double.hashCode(tflopsPerGpu);
        h = 31 * h + java.util.Objects.hashCode(tflopsConvention);
        h = 31 * h + Double.hashCode(tokensPerGpuPerS);
        h = 31 * h + Double.hashCode(stepTimeS);
        h = 31 * h + Double.hashCode(fwdBwdTimeS);
        h = 31 * h + Double.hashCode(forwardTimeS);
        h = 31 * h + Double.hashCode(backwardTimeS);
        h = 31 * h + Double.hashCode(optimizerTimeS);
        h = 31 * h + Double.hashCode(mfu);
        h = 31 * h + Double.hashCode(peakMemoryGb);
        h = 31 * h + Double.hashCode(steps);
        h = 31 * h + Double.hashCode(skippedSteps);
        h = 31 * h + Double.hashCode(lossScale);
        return 31 * h + java.util.Objects.hashCode(history);
    }
}
