package dev.trainadvisor.perf;

import dev.trainadvisor.spec.ElementwiseKernels;
import dev.trainadvisor.spec.Gpu;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Norm;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.PositionEmbedding;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.Training;

/**
 * Time of one micro-batch's forward and backward on the slowest pipeline stage of one GPU:
 * GEMMs at peak x efficiency x wave quantization, the attention core at its fused kernel's rate,
 * and element-wise work (norms, residuals, rotary, activation, cross-entropy) at HBM bandwidth.
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
    static final int TILE = 128;

    /*
     * Bytes per element that PyTorch eager composites move over a fused kernel's read-once, write-once (2 + 2 bytes
     * in bf16), counted kernel by kernel (read + write):
     * RMSNorm (ATen's rms_norm in aten/src/ATen/native/layer_norm.cpp; torchtitan's and Meta's RMSNorm modules alike):
     *   to(fp32) 2+4, pow 4+4, mean 4, x * rsqrt 4+4, type_as 4+2, * weight 2+2 = 36 bytes: 9x.
     * Rotary through complex fp32 (Meta's and torchtitan's apply_rotary_emb): float() 2+4, complex multiply 4+4,
     *   type_as 4+2 = 20 bytes: 5x.
     * SiLU(gate) * up as two kernels: silu 2+2, multiply 4+2 = 10 bytes over the fused 4+2: 10/6.
     * LayerNorm, GELU and the residual adds are single native kernels either way. Backward keeps the ratio.
     */
    static final double EAGER_RMSNORM = 36.0 / 4;
    static final double EAGER_ROTARY = 20.0 / 4;
    static final double EAGER_SWIGLU = 10.0 / 6;

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

        // element-wise bytes per token per layer, forward, 2-byte activations
        boolean sp = p.sequenceParallel() && tp > 1;
        boolean eager = t.elementwiseKernels() == ElementwiseKernels.EAGER;
        double norms = 4 * h * (eager && m.norm() == Norm.RMSNORM ? EAGER_RMSNORM : 1);   // two norms, read + write
        double replicated = (norms + 6 * h) / (sp ? tp : 1);                                // and two residual adds
        // rotary reads and writes q and k; learned positions are added once at the embedding, ALiBi inside attention
        double rotary = m.positionEmbedding() == PositionEmbedding.ROPE ? 2 * (h + kv) * (eager ? EAGER_ROTARY : 1) : 0;
        double activation = (m.gatedMlp() ? 3 * (eager ? EAGER_SWIGLU : 1) : 2) * ffnOut * (m.isMoe() ? m.moe().topK() : 1);
        double split = (rotary + activation) / tp;
        // without flash attention each token's row of heads x seqLen scores goes through HBM (all of it: the causal
        // mask is applied to the full matrix). Megatron's fused scale-mask-softmax reads and writes bf16, 2 + 2 bytes
        // per score; attention dropout adds a 1-byte mask and 2-byte output (Korthikanti et al. 2022, sec. 4.1:
        // 2as^2b, as^2b, 2as^2b) and is off in most LLM recipes. 6 bytes lies between the 4 without it and the 9 with.
        double softmax = t.flashAttention() ? 0 : 6.0 * m.heads() * t.seqLen() / tp;
        // fp8 GEMMs take their inputs cast from bf16 (read 2 bytes, write 1) after an amax reduction (read 2 more):
        // the inputs of QKV, projection, MLP up and down per token; backward casts the output gradients likewise
        double fp8Casts = t.precision() == Precision.FP8
                ? 5.0 * (3 * h + ffnOut * (m.isMoe() ? m.moe().topK() : 1)) / tp : 0;
        double layerBytesFwd = tokens * layers * (2 * (replicated + split) + softmax + fp8Casts);
        // logits in bf16 read, upcast to fp32, softmax and its gradient: about 20 bytes per vocabulary entry
        double ceBytes = tokens * 20.0 * m.vocab() / tp;
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
