package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Gpu;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.Training;

/**
 * Time of one micro-batch's forward and backward on the slowest pipeline stage of one GPU:
 * GEMMs at peak x efficiency x wave quantization, the attention core at its fused kernel's rate,
 * and element-wise work (norms, residuals, rotary, activation, cross-entropy; {@link ElementwiseBytes}) at HBM bandwidth.
 *
 * @param gemmSeconds      forward + backward (+ recompute) GEMM time per micro-batch
 * @param attentionSeconds attention core time per micro-batch
 * @param memorySeconds    memory-bound kernels per micro-batch
 * @param forwardSeconds   the forward share of the three (for overlap windows)
 * @param waveEfficiency   the FLOP-weighted wave-quantization efficiency of the layer GEMMs
 */
public record ComputeTime(double gemmSeconds, double attentionSeconds, double memorySeconds,
                          double forwardSeconds, double backwardSeconds, double waveEfficiency,
                          double tokensPerMicroBatch) {

    /** cuBLAS tiles of 128 x 128 outputs, one per SM per wave (NVIDIA, "Matrix Multiplication Background User's Guide"). */
    public static final int TILE = 128;

    public double microBatchSeconds() { return forwardSeconds + backwardSeconds; }

    public static ComputeTime of(Model m, Parallel p, Training t, Gpu gpu, Efficiency eff) {
        int tp = p.tp();
        double tokens = (double) t.microBatchSize() * t.seqLen() / p.cp();
        double h = m.hidden();
        double kv = (double) m.kvHeads() * m.headDim();
        double layers = (double) m.layers() / p.pp();
        Precision gemmPrecision = t.precision() == Precision.FP8 ? Precision.FP8 : t.precision();
        double peak = gpu.peakTflops(gemmPrecision) * 1e12;
        double peakBf16 = gpu.peakTflops(Precision.BF16) * 1e12;

        // forward FLOPs per token of an average layer, and the wave efficiency of its GEMMs
        double linear = 0, core = 0;
        for (int i = 0; i < m.layers(); i++) {
            LayerFlops f = LayerFlops.of(m, i, t.seqLen());
            linear += f.linear();
            core += f.attentionCore();
        }
        linear /= m.layers();
        core /= m.layers();
        int sms = gpu.sms() > 0 ? gpu.sms() : 108;
        double ffnOut = m.isMoe() ? m.moe().ffnHidden() : m.ffnHidden();
        double expertTokens = m.isMoe() ? tokens * m.moe().topK() / m.moe().experts() * p.ep() : tokens;
        double[][] gemms = {   // {M, N, weight in FLOPs}
                {tokens, (h + 2 * kv) / tp, h * (h + 2 * kv)},
                {tokens, h, h * h},
                {expertTokens, ffnOut * (m.gatedMlp() ? 2 : 1) / tp, h * ffnOut * (m.gatedMlp() ? 2 : 1)},
                {expertTokens, h, h * ffnOut},
        };
        double wSum = 0, effSum = 0;
        for (double[] g : gemms) {
            wSum += g[2];
            effSum += g[2] * waves(g[0], g[1], sms);
        }
        double wave = effSum / wSum;
        double logitsWave = waves(tokens, (double) m.vocab() / tp, sms);

        double gemmRate = peak * eff.gemmFractionOfPeak();
        double layerGemmFwd = tokens * layers * linear / tp / (gemmRate * wave);
        double logitsFwd = tokens * 2 * h * m.vocab() / tp / (gemmRate * logitsWave);
        double causal = t.flashAttention() ? 0.5 : 1.0;
        double attnRate = t.flashAttention()
                ? peakBf16 * eff.attentionFractionOfPeak() * Efficiency.attentionKernelSpeed(t.attentionKernel())
                : peakBf16 * eff.gemmFractionOfPeak();
        double attnFwd = tokens * layers * core * causal / tp / attnRate;

        double layerBytesFwd = tokens * layers * ElementwiseBytes.perTokenPerLayer(m, p, t);
        double ceBytes = tokens * ElementwiseBytes.crossEntropyPerToken(m, p);
        double hbm = gpu.hbmGbps() * 1e9 * eff.hbmFraction() / eff.elementwiseTraffic();
        double memFwd = layerBytesFwd / hbm;

        double recomputeFactor = t.fullRecomputeShare();
        double selective = t.recompute() == Recompute.SELECTIVE ? 1 : 0;
        double fwd = layerGemmFwd + logitsFwd + attnFwd + memFwd + ceBytes / 3 / hbm;
        double bwd = 2 * (layerGemmFwd + logitsFwd + attnFwd + memFwd) + 2 * ceBytes / 3 / hbm
                + recomputeFactor * (layerGemmFwd + attnFwd + memFwd) + selective * attnFwd;
        double gemmTotal = (3 + recomputeFactor) * layerGemmFwd + 3 * logitsFwd;
        double attnTotal = (3 + recomputeFactor + selective) * attnFwd;
        double memTotal = (3 + recomputeFactor) * memFwd + ceBytes / hbm;
        return new ComputeTime(gemmTotal, attnTotal, memTotal, fwd, bwd, wave, tokens);
    }

    /** Fraction of the GPU's SMs busy over the waves of an M x N output tiled by {@link #TILE}. */
    static double waves(double m, double n, int sms) {
        double tiles = Math.ceil(m / TILE) * Math.ceil(n / TILE);
        double waves = Math.ceil(tiles / sms);
        return tiles / (waves * sms);
    }
}
