package dev.trainadvisor.perf;

import dev.trainadvisor.spec.AttentionKernel;
import dev.trainadvisor.spec.Catalog;
import dev.trainadvisor.spec.KernelCurve;
import dev.trainadvisor.spec.Gpu;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Training;

/**
 * The forward time of one {@link Operation} on one GPU: a GEMM at the peak of its precision x the GEMM efficiency x
 * its wave quantization; the attention core at the fused kernel's rate (FlashAttention-2's measured fraction of the
 * bf16 peak x the kernel's speed over it), or without a fused kernel at the GEMM rate; a memory-bound kernel at the
 * achieved HBM bandwidth over the framework's extra traffic.
 */
public final class Roofline {
    /** cuBLAS tiles of 128 x 128 outputs, one per SM per wave (NVIDIA, "Matrix Multiplication Background User's Guide"). */
    public static final int TILE = 128;

    /** SMs of an A100, for a GPU whose count the catalogue does not give. */
    static final int DEFAULT_SMS = 108;

    /**
     * A grouped GEMM runs at the smooth maximum (p-norm) of its compute time and the time to read its weights and
     * tokens: measured on an H200 over 30 grouped GEMMs (torch._grouped_mm; 8-128 experts, 64-8192 tokens each,
     * hidden 2048-4096, expert width 768-14336; bench/h200_moe_kernels.py,
     * knowledge-base/measurements/h200-moe-kernels.json), p = 1.5 gives a mean absolute log error of 0.127 and no bias
     * (p = 1, the sum: 0.22; p = 3: 0.16, 16% too fast); the compute at the bf16 MAMF with its waves and 128-row tiles,
     * the bytes at the HBM fraction below.
     */
    public static final double GROUPED_GEMM_POWER = 1.5;

    private final double gemmRate, attentionRate, hbmRate, streamRate, gradBytes;
    private final boolean scoresThroughMemory;
    private final KernelCurve byInnerDimension;
    private final int sms;

    public Roofline(Gpu gpu, Training t, Efficiency eff) {
        this(gpu, t, eff, Catalog.builtIn().gemmCurve(gpu.architecture()));
    }

    /** With the GPU's GEMM curve by inner dimension given (a layout's pieces hold it: ComputeTime.Operations). */
    Roofline(Gpu gpu, Training t, Efficiency eff, KernelCurve byInnerDimension) {
        Precision gemmPrecision = t.precision() == Precision.FP8 ? Precision.FP8 : t.precision();
        double peakBf16 = gpu.peakTflops(Precision.BF16) * 1e12;
        gemmRate = gpu.peakTflops(gemmPrecision) * 1e12 * eff.gemmFractionOfPeak();
        // without flash, the score GEMMs run as batched GEMMs: in bf16 on tensor cores, or (PyTorch's math backend)
        // upcast to fp32 on CUDA cores; the compute scale a fit finds applies to them as to every kernel
        // under torch.compile a framework's modelling code may hand the fused kernel an explicit mask (its profile's
        // compiled_attention_slowdown, measured): every tile computed, no native GQA
        if (t.flashAttention())
            attentionRate = peakBf16 * eff.attentionFractionOfPeak()
                    / (t.elementwiseKernels() == dev.trainadvisor.spec.ElementwiseKernels.COMPILED
                    ? t.framework().compiledAttentionFactor() : 1);
        else if (t.attentionKernel() == AttentionKernel.MATH)
            attentionRate = gpu.peakTflops(Precision.FP32) * 1e12 * Efficiency.MATH_ATTENTION_FP32_FRACTION
                    * eff.gemmFractionOfPeak() / Efficiency.gemmFraction(gpu);
        else
            attentionRate = peakBf16 * eff.gemmFractionOfPeak();
        hbmRate = gpu.hbmGbps() * 1e9 * eff.hbmFraction() / eff.elementwiseTraffic();
        // a grouped GEMM's weights, and a row gather, stream at the achieved HBM bandwidth with no extra traffic:
        // index_select of routed token copies moved 3.7-4.1 TB/s on an H200, 78-86% of its 4.8 TB/s
        // (bench/h200_moe_kernels.py, permutation rows), about the HBM fraction
        streamRate = gpu.hbmGbps() * 1e9 * eff.hbmFraction();
        gradBytes = t.gradReducePrecision().bytes;
        scoresThroughMemory = !t.flashAttention() && t.attentionKernel() == AttentionKernel.EAGER;
        this.byInnerDimension = byInnerDimension;
        sms = sms(gpu);
    }

    static int sms(Gpu gpu) { return gpu.sms() > 0 ? gpu.sms() : DEFAULT_SMS; }

    public double forwardSeconds(Operation o) { return forwardSeconds(o, waveEfficiency(o), innerFraction(o)); }

    /**
     * As {@link #forwardSeconds(Operation)}, with the operation's {@link #waveEfficiency} and {@link #innerFraction} on
     * this GPU given: they depend on the layout and the GPU alone, and a prediction's layout pieces hold them.
     */
    double forwardSeconds(Operation o, double wave, double inner) {
        return switch (o.kind()) {
            case GEMM -> gemmSeconds(o, wave, inner);
            // the Hugging Face eager attention's batched GEMMs have the head dimension inside (64-128): they write and
            // read the score matrix at HBM speed more than they compute (bench/h200_hf_step_kernels.py: 37.6 ms of
            // them a step where 12 bytes a score take 34.7 ms and their FLOPs at the GEMM rate 13.4). Not for
            // Megatron's unfused core: bound the same way, its published runs come out slower than measured
            // (validate: Narayanan et al. 2021 from 3.7% to 6.0%, Korthikanti et al. 2022 from 7.6% to 7.9%)
            case ATTENTION -> scoresThroughMemory ? bound(o.flops() / attentionRate, o.bytes()) : o.flops() / attentionRate;
            case MEMORY -> o.bytes() / hbmRate;
            case COPY -> o.bytes() / streamRate;
        };
    }

    /**
     * The backward of one operation: twice its forward (input and weight gradients, Narayanan et al. 2021), except a
     * grouped GEMM's, whose input-gradient GEMM streams the bytes its forward does and whose weight-gradient GEMM reads
     * the tokens and output gradients and reads and writes the weight gradients in their precision (Megatron's
     * gradient-accumulation fusion adds each micro-batch's into the fp32 main gradient): with few tokens an expert's
     * weight gradient is bound by that traffic.
     */
    public double backwardSeconds(Operation o) { return backwardSeconds(o, waveEfficiency(o), innerFraction(o)); }

    double backwardSeconds(Operation o, double wave, double inner) {
        if (backwardIsTwiceForward(o)) return 2 * forwardSeconds(o, wave, inner);
        double compute = o.flops() / (gemmRate * wave);
        double weightGradient = o.bytes() - 2 * o.weights() + 2 * gradBytes * o.weights();
        return bound(compute, o.bytes()) + bound(compute, weightGradient);
    }

    /**
     * Whether {@link #forwardSeconds} bounds the operation's compute by the bytes it streams ({@link #bound}): a grouped
     * GEMM, and the attention's batched GEMMs where they write and read the score matrix (eager attention). Every
     * other GEMM and attention core takes its compute time alone, and a memory-bound kernel its bytes' alone.
     */
    boolean boundByBytes(Operation o) {
        return o.kind() == Operation.Kind.GEMM && o.bytes() > 0 || o.kind() == Operation.Kind.ATTENTION && scoresThroughMemory;
    }

    /** A GEMM's or an attention core's compute time at this roofline's rates, before any bound by bytes. */
    double computeSeconds(Operation o, double wave) {
        return o.kind() == Operation.Kind.GEMM ? o.flops() / (gemmRate * wave) : o.flops() / attentionRate;
    }

    /** The time to stream {@code bytes} at the achieved HBM bandwidth ({@link #bound}'s). */
    double streamSeconds(double bytes) { return bytes / streamRate; }

    /** What a grouped GEMM's weight-gradient GEMM reads and writes ({@link #backwardSeconds}). */
    double weightGradientBytes(Operation o) { return o.bytes() - 2 * o.weights() + 2 * gradBytes * o.weights(); }

    /** The p-norm {@link #bound} takes of a compute time and a time to stream bytes. */
    static double pNorm(double compute, double read) {
        return Math.pow(Math.pow(compute, GROUPED_GEMM_POWER) + Math.pow(read, GROUPED_GEMM_POWER), 1 / GROUPED_GEMM_POWER);
    }

    /** Whether {@link #backwardSeconds} is twice {@link #forwardSeconds}: every operation but a grouped GEMM. */
    static boolean backwardIsTwiceForward(Operation o) {
        return o.kind() != Operation.Kind.GEMM || o.bytes() <= 0;
    }

    /**
     * A GEMM's compute at its waves, a dense one's at the rate its inner dimension allows where the architecture's is
     * measured (knowledge-base/gemm-efficiency.json: GEMMs of K 768 run at 0.80 of large ones on an H200); a grouped
     * GEMM's also bound by reading its weights ({@link #GROUPED_GEMM_POWER}).
     */
    private double gemmSeconds(Operation o, double wave, double inner) {
        double compute = o.flops() / (gemmRate * wave);
        if (o.bytes() > 0) return bound(compute, o.bytes());
        return byInnerDimension == null || o.innerDimension() <= 0 ? compute : compute / inner;
    }

    /**
     * The GPU's GEMM throughput at the operation's inner dimension over its large-GEMM throughput (the architecture's
     * measured curve), for GEMMs that read no streamed weights; NaN where it does not apply.
     */
    double innerFraction(Operation o) { return innerFraction(byInnerDimension, o); }

    static double innerFraction(KernelCurve curve, Operation o) {
        return o.kind() != Operation.Kind.GEMM || curve == null || o.innerDimension() <= 0 ? Double.NaN
                : curve.at(o.innerDimension());
    }

    /** The p-norm of a grouped GEMM's compute time and the time to stream {@code bytes}. */
    private double bound(double compute, double bytes) { return pNorm(compute, bytes / streamRate); }

    /**
     * Of a GEMM's waves over the SMs, the share of SM slots busy, and for a grouped GEMM of few tokens per expert the
     * share of its 128-row tiles' rows that hold a token; 1 for an operation that is not a GEMM.
     */
    public double waveEfficiency(Operation o) { return waveEfficiency(o, sms); }

    static double waveEfficiency(Operation o, int sms) {
        if (o.kind() != Operation.Kind.GEMM) return 1;
        double w = waves(o.m(), o.n(), o.groups(), sms);
        return o.bytes() > 0 ? w * o.m() / (TILE * Math.ceil(o.m() / TILE)) : w;
    }

    /** Fraction of the GPU's SMs busy over the waves of {@code groups} M x N outputs tiled by {@link #TILE}. */
    static double waves(double m, double n, double groups, int sms) {
        double tiles = groups * Math.ceil(m / TILE) * Math.ceil(n / TILE);
        double waves = Math.ceil(tiles / sms);
        return tiles / (waves * sms);
    }
}
