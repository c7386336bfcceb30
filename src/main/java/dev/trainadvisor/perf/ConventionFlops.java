package dev.trainadvisor.perf;

import dev.trainadvisor.spec.FlopsConvention;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.Training;

/**
 * FLOPs per token as each framework counts them for the TFLOPS it prints
 * (docs/model.md (FLOPs conventions)), so a printed figure can be
 * turned back into tokens/s and compared with the house count.
 */
public final class ConventionFlops {
    private ConventionFlops() {}

    public static double perToken(FlopsConvention c, Model m, Training t) {
        double h = m.hidden(), s = t.seqLen(), v = m.vocab(), l = m.layers();
        double ffn = m.ffnHidden();
        return switch (c) {
            case HOUSE -> FlopsPerToken.of(m, t).model();
            case INTERNEVO -> {
                // get_megatron_flops: ckpt * ((8 + 4r) h^2 + 4 s h) L + 6 h V, r = mlp_ratio * 3/2 with SwiGLU;
                // no GQA, full s^2, and the recomputed forward counted (ckpt = 4) when checkpointing is on.
                double r = m.gatedMlp() ? m.mlpRatio() * 1.5 : m.mlpRatio();
                double ckpt = t.recompute() == Recompute.NONE ? 3 : 4;
                yield ckpt * ((8 + 4 * r) * h * h + 4 * s * h) * l + 6 * h * v;
            }
            case MEGATRON_LEGACY, MEGATRON -> {
                // num_floating_point_operations (core_r0.8 training.py:73); from core_v0.12 the s/h term is halved.
                double q = (double) m.heads() * m.headDim() / h;
                double gl = m.gatedMlp() ? 1.5 : 1;
                double k = m.isMoe() ? m.moe().topK() : 1;
                double f = m.isMoe() ? m.moe().ffnHidden() : ffn;
                double core = c == FlopsConvention.MEGATRON ? s / h / 2 : s / h;
                double perLayer = (1 + (double) m.kvHeads() / m.heads() + core) * q + (f / h) * k * gl;
                yield 12 * h * h * l * perLayer + 6 * h * v;
            }
            case TORCHTITAN -> 6 * nonEmbeddingParams(m) + 12 * l * h * s;
            case TORCHTITAN_2025_10 -> 6 * nonEmbeddingParams(m) + 6 * l * h * s;
            case MEGATRON_2021 -> {
                // eq. 3 per token, generalized through the house layer count (GQA, gated MLP); for GPT shapes it is
                // exactly 96 l h^2 (1 + s/6h + V/16lh)
                double layers = 0;
                for (int i = 0; i < m.layers(); i++) layers += LayerFlops.of(m, i, t.seqLen()).total();
                yield 4 * layers + 6 * h * v;
            }
            case MEGATRON_DEEPSPEED -> {
                double f = t.recompute() == Recompute.NONE ? 3 : 4;
                yield 24 * f * l * h * h * (1 + s / (6 * h) + v / (16 * l * h));
            }
            case COMPOSER -> 6 * (nonEmbeddingParams(m) + (m.tiedEmbeddings() ? 0 : h * v)) + 12 * l * h * s;
        };
    }

    /** Active parameters outside the input embedding: layers, final norm, and the output head (once). */
    static double nonEmbeddingParams(Model m) {
        return Params.activePerLayerSum(m) + m.hidden() + (double) m.hidden() * m.vocab();
    }
}
