package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Training;

import java.util.ArrayList;
import java.util.List;

/**
 * The operations of one micro-batch on one GPU of the slowest pipeline stage: each layer's GEMMs (QKV, output
 * projection, MLP or the experts a token is routed to, the router), its attention core and memory-bound kernels, then
 * the output head (logits GEMM, cross-entropy). The stage holds {@code layers / pp} layers (the average layer of the
 * model: dense and MoE layers in the model's proportion) and, as the slowest, the head. Tensor parallelism splits every
 * GEMM's output columns and the attention heads; context parallelism the tokens; expert parallelism the experts.
 */
public final class StepOperations {
    private StepOperations() {}

    public static List<Operation> of(Model m, Parallel p, Training t) {
        int tp = p.tp();
        double tokens = tokensPerMicroBatch(p, t);
        double h = m.hidden();
        double kv = (double) m.kvHeads() * m.headDim();
        double stageShare = 1.0 / p.pp();          // of the model's layers, this stage's
        double causal = t.flashAttention() ? 0.5 : 1.0;   // a flash kernel skips the blocks above the diagonal

        // the stage's share of the model's layers, dense and MoE alike: each operation's FLOPs over all of them,
        // with the shape of one layer's
        int moeLayers = m.moeLayers(), denseLayers = m.layers() - moeLayers;
        double share = tokens * stageShare / tp;   // FLOPs per token of the whole model's layers -> this GPU's share
        LayerFlops dense = denseLayers > 0 ? LayerFlops.of(m, m.firstDenseLayer(), t.seqLen()) : null;
        LayerFlops moe = moeLayers > 0 ? LayerFlops.of(m, m.firstMoeLayer(), t.seqLen()) : null;
        double qkv = 0, core = 0, outProj = 0;
        for (LayerFlops f : new LayerFlops[]{dense, moe}) {
            if (f == null) continue;
            double count = f == dense ? denseLayers : moeLayers;
            qkv += count * f.qkv();
            core += count * f.attentionCore();
            outProj += count * f.outProjection();
        }
        double layersPerStage = (double) m.layers() / p.pp();
        double moePerStage = (double) moeLayers / p.pp(), densePerStage = (double) denseLayers / p.pp();
        List<Operation> out = new ArrayList<>();
        out.add(Operation.gemm("qkv", true, qkv * share, tokens, (m.attentionWidth() + 2 * kv) / tp, layersPerStage));
        boolean math = !t.flashAttention() && t.attentionKernel() == dev.trainadvisor.spec.AttentionKernel.MATH;
        boolean eager = !t.flashAttention() && t.attentionKernel() == dev.trainadvisor.spec.AttentionKernel.EAGER;
        // HBM traffic of the core, for the roofline: queries, keys, values and output once (a flash kernel's lower
        // bound, Dao et al. 2022 section 3.2), and without one the scores and probabilities written and read in bf16
        double heads = (double) m.attentionWidth() / m.headDim();
        double attentionBytes = layersPerStage * tokens * 2 * (2 * m.attentionWidth() + 2 * kv) / tp
                + (t.flashAttention() ? 0 : layersPerStage * tokens * t.seqLen() * heads / tp * 2 * 2);
        out.add(Operation.attention("attention-core", core * causal * share, attentionBytes,
                layersPerStage * (t.flashAttention() ? KernelLaunches.FLASH_FORWARD : math ? KernelLaunches.MATH_FORWARD
                        : eager ? KernelLaunches.EAGER_FORWARD : KernelLaunches.UNFUSED_FORWARD),
                layersPerStage * (t.flashAttention() ? KernelLaunches.FLASH_BACKWARD : math ? KernelLaunches.MATH_BACKWARD
                        : eager ? KernelLaunches.EAGER_BACKWARD : KernelLaunches.UNFUSED_BACKWARD)));
        out.add(Operation.gemm("attention-out", true, outProj * share, tokens, h, layersPerStage));
        if (moe != null) out.addAll(experts(m, p, tokens, share, moe, moePerStage));
        if (dense != null) {
            double ffn = m.ffnHidden(), gate = m.gatedMlp() ? 2 : 1;
            out.add(Operation.gemm("mlp-up", true, denseLayers * gate * 2 * h * ffn * share, tokens, ffn * gate / tp,
                    densePerStage));
            out.add(Operation.gemm("mlp-down", true, denseLayers * 2 * h * ffn * share, tokens, h, densePerStage));
        }
        for (ElementwiseBytes.Kernel k : ElementwiseBytes.perLayer(m, p, t))
            out.add(k.attentionCore()
                    ? Operation.attentionCoreMemory(k.name(), tokens * layersPerStage * k.bytesPerToken(),
                            layersPerStage * k.forwardLaunches(), layersPerStage * k.backwardLaunches())
                    : Operation.memory(k.name(), true, tokens * layersPerStage * k.bytesPerToken(),
                            layersPerStage * k.forwardLaunches(), layersPerStage * k.backwardLaunches()));
        // the head: embedding lookup and final norm (their bytes are not counted, only their launches), logits, loss
        boolean learned = m.positionEmbedding() == dev.trainadvisor.spec.PositionEmbedding.LEARNED;
        out.add(Operation.memory("embedding", false, 0,
                KernelLaunches.EMBEDDING_FORWARD + (learned ? KernelLaunches.POSITIONS_FORWARD : 0),
                KernelLaunches.EMBEDDING_BACKWARD + (learned ? KernelLaunches.POSITIONS_BACKWARD : 0)));
        out.add(Operation.memory("final-norm", false, 0, KernelLaunches.FINAL_NORM_FORWARD, KernelLaunches.FINAL_NORM_BACKWARD));
        Operation logits = Operation.gemm("logits", false, tokens * 2 * h * m.vocab() / tp, tokens, (double) m.vocab() / tp, 1);
        // tied embeddings: the output head's weight gradient is added to the embedding's
        out.add(m.tiedEmbeddings() ? new Operation(logits.name(), logits.kind(), false, false, logits.flops(), 0, logits.m(),
                logits.n(), 1, 0, 1, 3) : logits);
        // logits read in bf16, upcast to fp32, softmax and its gradient: a third of the bytes forward, two in backward
        out.add(Operation.memory("cross-entropy", false, tokens * ElementwiseBytes.crossEntropyPerToken(m, p, t) / 3,
                KernelLaunches.CROSS_ENTROPY_FORWARD, KernelLaunches.CROSS_ENTROPY_BACKWARD));
        return java.util.Collections.unmodifiableList(out);
    }

    /**
     * An MoE layer's own operations, the stage's MoE layers together: the router, the permutation of the routed token
     * copies into expert order and back, the routed experts as grouped GEMMs and the shared experts as dense ones.
     * Folded (Megatron-Core's MoE parallel folding), a stage's TP x CP x DP ranks hold the experts as ETP x EP x EDP:
     * an expert's {@code tokens x dp x top-k / experts} routed copies split over its EDP replicas, its width over ETP,
     * so each of a GPU's {@code experts / ep} experts multiplies {@code tokens x top-k x ep x etp / (experts x tp)}
     * tokens, times the capacity factor when padded to capacity.
     */
    private static List<Operation> experts(Model m, Parallel p, double tokens, double share, LayerFlops moe,
                                           double moePerStage) {
        dev.trainadvisor.spec.Moe e = m.moe();
        double h = m.hidden(), ffn = e.ffnHidden(), gate = m.gatedMlp() ? 2 : 1, pad = e.paddedShare();
        int moeLayers = m.moeLayers();
        // with sequence parallelism each TP rank routes its slice of the tokens; the routed copies it permutes
        double local = tokens / (p.sequenceParallel() ? p.tp() : 1);
        double routed = local * e.topK() * pad;
        double perExpert = tokens * e.topK() * pad * p.ep() * p.etp() / ((double) e.experts() * p.tp());
        double localExperts = (double) e.experts() / p.ep();
        List<Operation> out = new ArrayList<>();
        out.add(Operation.gemm("router", true, moeLayers * moe.router() * share, tokens, e.experts(), moePerStage));
        // logits, probabilities and the routing map in fp32, written and read
        out.add(Operation.memory("router-topk", true, local * moePerStage * e.experts() * 4 * 4,
                moePerStage * KernelLaunches.ROUTER_FORWARD, moePerStage * KernelLaunches.ROUTER_BACKWARD));
        // each routed copy read and written by the permutation and by the unpermutation, and by the sort by local
        // expert after an all-to-all
        boolean sorted = p.ep() > 1 && localExperts > 1;
        out.add(Operation.copy("permutation", moePerStage * routed * h * 2 * 2 * 2 * (sorted ? 2 : 1),
                moePerStage * KernelLaunches.PERMUTE_FORWARD * (sorted ? 2 : 1),
                moePerStage * KernelLaunches.PERMUTE_BACKWARD * (sorted ? 2 : 1)));
        out.add(Operation.groupedGemm("expert-up", moeLayers * gate * 2 * h * ffn * e.topK() * pad * share,
                perExpert, ffn * gate / p.etp(), h, localExperts, moePerStage));
        out.add(Operation.groupedGemm("expert-down", moeLayers * 2 * h * ffn * e.topK() * pad * share,
                perExpert, h, ffn / p.etp(), localExperts, moePerStage));
        if (e.sharedExperts() > 0) {
            // every token through the shared experts, split over TP like the dense MLP
            double sf = (double) e.sharedExperts() * e.sharedFfnHidden();
            out.add(Operation.gemm("shared-expert-up", true, moeLayers * gate * 2 * h * sf * share, tokens,
                    sf * gate / p.tp(), moePerStage));
            out.add(Operation.gemm("shared-expert-down", true, moeLayers * 2 * h * sf * share, tokens, h, moePerStage));
        }
        return out;
    }

    /** Tokens of one micro-batch on one GPU: context parallelism splits the sequence. */
    public static double tokensPerMicroBatch(Parallel p, Training t) {
        return (double) t.microBatchSize() * t.seqLen() / p.cp();
    }

}
