package dev.trainadvisor.perf;

/** Time a training step spends beside the kernels the step model counts. */
public final class Overheads {
    private Overheads() {}

    /**
     * Per-step framework time around the optimizer step that the model does not count (zeroing gradients, the
     * gradient norm for clipping, the learning-rate schedule, Python between launches), in seconds: used as the
     * absolute uncertainty of a measured time in {@link Fit}. PROVISIONAL until measured.
     */
    public static final double STEP_OVERHEAD_S = 0.02;
}
