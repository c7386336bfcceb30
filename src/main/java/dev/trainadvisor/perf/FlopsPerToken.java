package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.Training;

/**
 * FLOPs per token of one training step (forward + backward = 3 x forward; Narayanan et al. 2021).
 *
 * @param model         house model FLOPs: every GEMM, full s^2 attention, no recomputation (MFU, PaLM appendix B)
 * @param hardware      model FLOPs plus what recomputation adds (HFU)
 * @param linearExecuted GEMM FLOPs linear in tokens that the GPU runs, recomputation included
 * @param attentionExecuted attention-core FLOPs the GPU runs: half the full count with causal flash attention
 * @param logits        forward + backward FLOPs of the output layer (included in the others)
 */
public record FlopsPerToken(double model, double hardware, double linearExecuted, double attentionExecuted,
                            double logits) {

    public static FlopsPerToken of(Model m, Training t) {
        double layersLinear = 0, layersCore = 0;
        int moe = m.moeLayers(), dense = m.layers() - moe;
        if (moe > 0) {
            LayerFlops f = LayerFlops.of(m, m.firstMoeLayer(), t.seqLen());
            layersLinear += moe * f.linear();
            layersCore += moe * f.attentionCore();
        }
        if (dense > 0) {
            LayerFlops f = LayerFlops.of(m, m.firstDenseLayer(), t.seqLen());
            layersLinear += dense * f.linear();
            layersCore += dense * f.attentionCore();
        }
        double logitsFwd = 2.0 * m.hidden() * m.vocab();
        double model = 3 * (layersLinear + layersCore + logitsFwd);
        double share = t.fullRecomputeShare();
        double recomputeLinear = share * layersLinear;
        double recomputeCore = t.recompute() == Recompute.SELECTIVE ? layersCore : share * layersCore;
        double hardware = model + recomputeLinear + recomputeCore;
        // FlashAttention skips the blocks above the causal diagonal: about half of s^2 (Dao 2023, section 3.1).
        double causal = t.flashAttention() ? 0.5 : 1.0;
        double linearExecuted = 3 * (layersLinear + logitsFwd) + recomputeLinear;
        double attentionExecuted = causal * (3 * layersCore + recomputeCore);
        return new FlopsPerToken(model, hardware, linearExecuted, attentionExecuted, 3 * logitsFwd);
    }

    public double executed() { return linearExecuted + attentionExecuted; }
}
