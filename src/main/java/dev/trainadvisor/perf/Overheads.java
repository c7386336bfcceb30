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

    /**
     * Host time per kernel launched in eager PyTorch, forward and backward (Python and the dispatcher forward, the
     * autograd engine backward), in seconds: 15 us. Fitted with {@link #HOST_OVERLAP_POWER} on the tune rows of
     * knowledge-base/measurements/h200-small-kernels.json and h200-compiled-small.json (GPT-3 125M and 1.3B, eager, at
     * micro-batches 1-8: 12 rows), minimizing the squared log error of the measured forward-backward time against
     * {@link #withHost} of the GPU's measured busy time and the profiler's kernel count (root mean square 8.5%; GPT-3
     * 350M, held out: 20%, its micro-batch 1 at -37%: the host's pace varies from run to run, the same 1.3B micro-batch
     * took 52.6 ms in one script and 44.0 in the other over the same 42-44 ms of kernels). For scale: one x.add_(1) costs
     * 8.0 us from Python, a native linear 18 us (h200-launch-overhead.json).
     */
    public static final double HOST_SECONDS_PER_LAUNCH = 15e-6;

    /** Host time per kernel replayed from a CUDA graph: 0.86 us (2000 one-element adds, h200-launch-overhead.json). */
    public static final double GRAPH_SECONDS_PER_LAUNCH = 0.86e-6;

    /**
     * The host runs ahead of the GPU, so a micro-batch takes the longer of the GPU's work and the host's launches, and
     * more where the two are close (the host falls behind on runs of small kernels and ahead on large ones):
     * {@code (gpu^k + host^k)^(1/k)}, k = 1.5. Fitted with {@link #HOST_SECONDS_PER_LAUNCH}; the CUDA-graph rows of
     * h200-compiled-small.json (not used to fit) then come out within 5% (7.18 against 7.52 ms, 115.1 against 116.1).
     */
    public static final double HOST_OVERLAP_POWER = 1.5;

    /** How long a micro-batch takes when the GPU works {@code gpuS} and the host launches for {@code hostS}. */
    static double withHost(double gpuS, double hostS) {
        return withHost(gpuS, hostS, HOST_OVERLAP_POWER);
    }

    /** As {@link #withHost(double, double)} with the overlap power {@code k} (a framework's own, measured). */
    static double withHost(double gpuS, double hostS, double k) {
        if (hostS <= 0) return gpuS;
        double big = Math.max(gpuS, hostS), small = Math.min(gpuS, hostS);
        return big * Math.pow(1 + Math.pow(small / big, k), 1 / k);
    }
}
