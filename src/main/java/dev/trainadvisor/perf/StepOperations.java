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
        LayerFlops moe = moeLayers > 0 ? LayerFlops.of(m, 0, t.seqLen()) : null;
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
        out.add(Operation.gemm("qkv", true, qkv * share, tokens, (h + 2 * kv) / tp, layersPerStage));
        boolean math = !t.flashAttention() && t.attentionKernel() == dev.trainadvisor.spec.AttentionKernel.MATH;
        out.add(Operation.attention("attention-core", core * causal * share,
                layersPerStage * (t.flashAttention() ? KernelLaunches.FLASH_FORWARD
                        : math ? KernelLaunches.MATH_FORWARD : KernelLaunches.UNFUSED_FORWARD),
                layersPerStage * (t.flashAttention() ? KernelLaunches.FLASH_BACKWARD
                        : math ? KernelLaunches.MATH_BACKWARD : KernelLaunches.UNFUSED_BACKWARD)));
        out.add(Operation.gemm("attention-out", true, outProj * share, tokens, h, layersPerStage));
        if (moe != null) {
            // each of this GPU's experts gets tokens x top-k / experts of them, from every rank of its EP group
            double expertTokens = tokens * m.moe().topK() / m.moe().experts() * p.ep();
            double ffn = m.moe().ffnHidden(), gate = m.gatedMlp() ? 2 : 1;
            // the experts as one grouped GEMM each way
            out.add(Operation.gemm("router", true, moeLayers * moe.router() * share, tokens, m.moe().experts(), moePerStage));
            out.add(Operation.gemm("expert-up", true, moeLayers * gate * 2 * h * ffn * m.moe().topK() * share,
                    expertTokens, ffn * gate / tp, moePerStage));
            out.add(Operation.gemm("expert-down", true, moeLayers * 2 * h * ffn * m.moe().topK() * share, expertTokens, h,
                    moePerStage));
        }
        if (dense != null) {
            double ffn = m.ffnHidden(), gate = m.gatedMlp() ? 2 : 1;
            out.add(Operation.gemm("mlp-up", true, denseLayers * gate * 2 * h * ffn * share, tokens, ffn * gate / tp,
                    densePerStage));
            out.add(Operation.gemm("mlp-down", true, denseLayers * 2 * h * ffn * share, tokens, h, densePerStage));
        }
        for (ElementwiseBytes.Kernel k : ElementwiseBytes.perLayer(m, p, t))
            out.add(Operation.memory(k.name(), true, tokens * layersPerStage * k.bytesPerToken(),
                    layersPerStage * k.forwardLaunches(), layersPerStage * k.backwardLaunches()));
        // the head: embedding lookup and final norm (their bytes are not counted, only their launches), logits, loss
        boolean learned = m.positionEmbedding() == dev.trainadvisor.spec.PositionEmbedding.LEARNED;
        out.add(Operation.memory("embedding", false, 0,
                KernelLaunches.EMBEDDING_FORWARD + (learned ? KernelLaunches.POSITIONS_FORWARD : 0),
                KernelLaunches.EMBEDDING_BACKWARD + (learned ? KernelLaunches.POSITIONS_BACKWARD : 0)));
        out.add(Operation.memory("final-norm", false, 0, KernelLaunches.FINAL_NORM_FORWARD, KernelLaunches.FINAL_NORM_BACKWARD));
        Operation logits = Operation.gemm("logits", false, tokens * 2 * h * m.vocab() / tp, tokens, (double) m.vocab() / tp, 1);
        // tied embeddings: the output head's weight gradient is added to the embedding's
        out.add(m.tiedEmbeddings() ? new Operation(logits.name(), logits.kind(), false, logits.flops(), 0, logits.m(),
                logits.n(), 1, 3) : logits);
        // logits read in bf16, upcast to fp32, softmax and its gradient: a third of the bytes forward, two in backward
        out.add(Operation.memory("cross-entropy", false, tokens * ElementwiseBytes.crossEntropyPerToken(m, p) / 3,
                KernelLaunches.CROSS_ENTROPY_FORWARD, KernelLaunches.CROSS_ENTROPY_BACKWARD));
        return java.util.Collections.unmodifiableList(out);
    }

    /** Tokens of one micro-batch on one GPU: context parallelism splits the sequence. */
    public static double tokensPerMicroBatch(Parallel p, Training t) {
        return (double) t.microBatchSize() * t.seqLen() / p.cp();
    }

}
