package dev.trainadvisor.spec;

/**
 * What a run measured; any field may be absent (NaN, or null for the convention).
 *
 * @param tflopsConvention how the framework counted the printed TFLOPS (see FlopsConvention)
 */
public record Measurements(double tflopsPerGpu, String tflopsConvention, double tokensPerGpuPerS,
                           double stepTimeS, double fwdBwdTimeS, double optimizerTimeS, double mfu,
                           double peakMemoryGb, double steps, double skippedSteps, double lossScale) {

    public static final Measurements NONE = new Measurements(Double.NaN, null, Double.NaN, Double.NaN,
            Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    public boolean isEmpty() { return equals(NONE); }
}
