package dev.trainadvisor.perf;

/** Time a training step spends beside the kernels the step model counts. */
public final class Overheads {
    private Overheads() {}

    /**
     * Per-step framework time around the optimizer step that the model's HBM roofline of Adam does not count (zeroing
     * gradients, copying them into the fp32 master copy, the gradient norm for clipping, the copy back to bf16, Python
     * between launches), in seconds: 0.018. Measured on one H200 (bench/h200_step_overheads.py,
     * knowledge-base/measurements/h200-step-overheads.json): a GPT-3 1.3B-shaped model in plain PyTorch with fused
     * fp32 AdamW and clipping spent 26.8 ms after the backward (median of 8 steady steps) where 28 bytes per parameter at
     * 85% of the H200's 4.8 TB/s give 9.0 ms. The step model adds it to every step as the phase "framework" (one
     * measurement: how it scales with the model and the framework is not known yet), and {@link Fit} takes it as the
     * absolute uncertainty of a measured time.
     */
    public static final double STEP_OVERHEAD_S = 0.018;
}
