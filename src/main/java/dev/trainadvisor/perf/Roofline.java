package dev.trainadvisor.perf;

import dev.trainadvisor.spec.AttentionKernel;
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

    private final double gemmRate, attentionRate, hbmRate;
    private final int sms;

    public Roofline(Gpu gpu, Training t, Efficiency eff) {
        Precision gemmPrecision = t.precision() == Precision.FP8 ? Precision.FP8 : t.precision();
        double peakBf16 = gpu.peakTflops(Precision.BF16) * 1e12;
        gemmRate = gpu.peakTflops(gemmPrecision) * 1e12 * eff.gemmFractionOfPeak();
        // without flash, the score GEMMs run as batched GEMMs: in bf16 on tensor cores, or (PyTorch's math backend)
        // upcast to fp32 on CUDA cores; the compute scale a fit finds applies to them as to every kernel
        if (t.flashAttention())
            attentionRate = peakBf16 * eff.attentionFractionOfPeak() * Efficiency.attentionKernelSpeed(t.attentionKernel());
        else if (t.attentionKernel() == AttentionKernel.MATH)
            attentionRate = gpu.peakTflops(Precision.FP32) * 1e12 * Efficiency.MATH_ATTENTION_FP32_FRACTION
                    * eff.gemmFractionOfPeak() / Efficiency.defaults(gpu, t.precision()).gemmFractionOfPeak();
        else
            attentionRate = peakBf16 * eff.gemmFractionOfPeak();
        hbmRate = gpu.hbmGbps() * 1e9 * eff.hbmFraction() / eff.elementwiseTraffic();
        sms = gpu.sms() > 0 ? gpu.sms() : DEFAULT_SMS;
    }

    public double forwardSeconds(Operation o) {
        return switch (o.kind()) {
            case GEMM -> o.flops() / (gemmRate * waveEfficiency(o));
            case ATTENTION -> o.flops() / attentionRate;
            case MEMORY -> o.bytes() / hbmRate;
        };
    }

    /** Of a GEMM's waves over the SMs, the share of SM slots busy; 1 for an operation that is not a GEMM. */
    public double waveEfficiency(Operation o) {
        return o.kind() == Operation.Kind.GEMM ? waves(o.m(), o.n(), sms) : 1;
    }

    /** Fraction of the GPU's SMs busy over the waves of an M x N output tiled by {@link #TILE}. */
    static double waves(double m, double n, int sms) {
        double tiles = Math.ceil(m / TILE) * Math.ceil(n / TILE);
        double waves = Math.ceil(tiles / sms);
        return tiles / (waves * sms);
    }
}
