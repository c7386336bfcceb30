package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Model;

/**
 * Forward FLOPs per token of one decoder layer, by GEMM, counting a multiply-add as 2 FLOPs
 * (Narayanan et al. 2021, section 5.1). The attention core counts the full s x s score matrix;
 * callers halve it where the causal mask lets a kernel skip work.
 */
public record LayerFlops(double qkv, double attentionCore, double outProjection, double mlp, double router) {

    public static LayerFlops of(Model m, int layerIndex, int seqLen) {
        double h = m.hidden();
        double kv = (double) m.kvHeads() * m.headDim();
        double q = m.attentionWidth();
        double qkv = 2 * h * (q + 2 * kv);
        double core = 4.0 * seqLen * q;           // Q K^T and scores x V: 2 s (heads x head_dim) each
        double out = 2 * q * h;
        double mlp;
        double router = 0;
        if (m.isMoeLayer(layerIndex)) {
            double perExpert = (m.gatedMlp() ? 6 : 4) * h * m.moe().ffnHidden();
            mlp = m.moe().topK() * perExpert
                    + m.moe().sharedExperts() * (m.gatedMlp() ? 6 : 4) * h * m.moe().sharedFfnHidden();
            router = 2 * h * m.moe().experts();
        } else {
            mlp = (m.gatedMlp() ? 6 : 4) * h * m.ffnHidden();
        }
        return new LayerFlops(qkv, core, out, mlp, router);
    }

    public double total() { return qkv + attentionCore + outProjection + mlp + router; }

    /** Everything but the attention core: the GEMMs whose cost is linear in tokens. */
    public double linear() { return qkv + outProjection + mlp + router; }
}
