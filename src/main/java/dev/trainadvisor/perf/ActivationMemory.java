package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Recompute;

/**
 * Activation bytes one transformer layer keeps for its backward pass, per micro-batch
 * (Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models",
 * section 4 and table 2), generalized to GQA and gated MLPs term by term, in 16-bit activations:
 * <ul>
 * <li>attention: QKV input 2sbh, Q and K for the scores 2sbh + 2sb*kv, V 2sb*kv, softmax output
 *     2as^2b, dropout mask as^2b and output 2as^2b, projection input 2sbh, dropout mask sbh;</li>
 * <li>MLP: first linear's input 2sbh, activation input 2sbf (x2 when gated), activation output 2sbf,
 *     dropout mask sbh;</li>
 * <li>two norms: 2sbh each.</li>
 * </ul>
 * For GPT (kv = h, f = 4h, plain MLP, dropout) this is table 2's sbh(34 + 5as/h). FlashAttention keeps
 * no s x s tensor. Tensor parallelism divides what lies between the TP collectives; sequence
 * parallelism divides the rest too.
 */
public final class ActivationMemory {
    private ActivationMemory() {}

    public static double perLayerBytes(Model m, long seqLen, long microBatch, int tp, boolean sequenceParallel,
                                       Recompute recompute, boolean flashAttention, boolean dropout) {
        return perLayerBytes(m, seqLen, microBatch, tp, sequenceParallel ? tp : 1, recompute, flashAttention, dropout);
    }

    /**
     * As above, with the split and the replicated activations divided by {@code splitOver} and {@code replicatedOver}
     * ranks (MemoryPart.SPLIT_ACTIVATIONS, REPLICATED_ACTIVATIONS).
     */
    static double perLayerBytes(Model m, long seqLen, long microBatch, double splitOver, double replicatedOver,
                                Recompute recompute, boolean flashAttention, boolean dropout) {
        double s = seqLen, b = microBatch, h = m.hidden(), a = m.heads();
        double kv = (double) m.kvHeads() * m.headDim();
        double f = m.mlpWidthPerToken();
        // an MoE layer keeps the permuted copies of its input that the experts' weight gradients need, k of them
        double routedInputs = m.isMoe() ? 2 * s * b * h * m.moe().topK() * m.moe().paddedShare() : 0;
        double sbh = s * b * h;
        if (recompute == Recompute.FULL) {
            // only each layer's input is kept (Korthikanti eq. for full recompute: 2sbh, /t with SP)
            return 2 * sbh / replicatedOver;
        }
        // replicated across TP ranks unless sequence parallel: norm inputs, QKV and MLP inputs, dropout masks
        double replicated = 2 * sbh + 2 * sbh             // two norm inputs
                + 2 * sbh + 2 * sbh                        // QKV input, first MLP linear's input
                + (dropout ? 2 * sbh : 0)                  // attention and MLP output dropout masks
                + routedInputs;
        // split across TP ranks: scores inputs, V, projection input, MLP activations
        double sbq = s * b * m.attentionWidth();
        double split = 2 * sbq + 2 * s * b * kv + 2 * s * b * kv + 2 * sbq
                + (2 * s * b * f) * (m.gatedMlp() ? 2 : 1) + 2 * s * b * f;
        double scores = 0;
        if (!flashAttention && recompute == Recompute.NONE) {
            scores = (dropout ? 5 : 4) * a * s * s * b;    // softmax output (+ dropout mask and output)
        }
        double perRank = split / splitOver + scores / splitOver + replicated / replicatedOver;
        return perRank;
    }
}
