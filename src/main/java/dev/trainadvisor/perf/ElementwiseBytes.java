package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Norm;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.PositionEmbedding;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Training;

import java.util.ArrayList;
import java.util.List;

/**
 * The minimal HBM bytes of a layer's memory-bound work per token, forward: each tensor read and written once per
 * operation (the framework's extra traffic is {@link Efficiency#elementwiseTraffic()}), or what PyTorch eager
 * composites move instead.
 */
final class ElementwiseBytes {
    private ElementwiseBytes() {}

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

    /**
     * HBM bytes per score of PyTorch's math attention, forward and backward together: its element-wise kernels (fp32
     * scale, mask, softmax and their gradients, the casts) took what 82 bytes a score take at 85% of an H200's 4.8 TB/s,
     * median of seven shapes (79-98; bench/h200_attention_math.py, knowledge-base/measurements/h200-attention-math.json).
     * The roofline multiplies counted bytes by Efficiency.ELEMENTWISE_TRAFFIC and a backward moves twice its forward's,
     * so the forward counts 82 / 3 / that factor.
     */
    static final double MATH_BYTES_PER_SCORE = 82;

    /**
     * HBM bytes per score of the Hugging Face eager attention's element-wise kernels, forward and backward together (the
     * scaling, the mask added, the fp32 softmax and its cast back, their gradients): the 261.3 ms a step they added to a
     * TinyLlama-shaped Trainer step (micro-batch 4, seq 2048, 32 heads, 22 layers: 11.81 G scores) over the same run with
     * SDPA, at 85% of the H200's 4.8 TB/s (bench/h200_hf_step_kernels.py,
     * knowledge-base/measurements/h200-hf-step-kernels.json). Counted as {@link #MATH_BYTES_PER_SCORE} is.
     */
    static final double EAGER_BYTES_PER_SCORE = 90;

    /**
     * One memory-bound operation of a layer: the bytes it moves per token, forward, and the kernels it launches per
     * layer forward and backward (PyTorch: a native LayerNorm is one kernel forward and two backward, the input's and
     * the weight's gradients; an eager composite one kernel per ATen op it calls, its backward one or two per op).
     */
    record Kernel(String name, double bytesPerToken, int forwardLaunches, int backwardLaunches, boolean attentionCore) {
        /** A kernel of the layer outside the attention core. */
        Kernel(String name, double bytesPerToken, int forwardLaunches, int backwardLaunches) {
            this(name, bytesPerToken, forwardLaunches, backwardLaunches, false);
        }
    }

    /** A layer's memory-bound kernels, those it runs (no rotary without RoPE, no softmax pass with flash attention). */
    static List<Kernel> perLayer(Model m, Parallel p, Training t) {
        int tp = p.tp();
        double h = m.hidden();
        double kv = (double) m.kvHeads() * m.headDim();
        double ffn = m.mlpWidthPerToken();
        // rotary and the gate's product eager; RMSNorm too, unless its kernel is fused (ElementwiseKernels.EAGER_FUSED_NORM)
        boolean eager = t.elementwiseKernels().eagerComposites();
        List<Kernel> out = new ArrayList<>();

        // elements read + written, 2 bytes each: two norms and two residual adds run on the whole hidden state
        // unless sequence parallelism splits them over the tensor-parallel group
        double replicatedOver = p.sequenceParallel() && tp > 1 ? tp : 1;
        boolean eagerRms = t.elementwiseKernels().eagerNorm() && m.norm() == Norm.RMSNORM;
        // eager RMSNorm: to(fp32), pow, mean, add eps, rsqrt, mul, type_as, mul weight; autograd about 10 back
        out.add(new Kernel("norms", 2 * 4 * h * (eagerRms ? EAGER_RMSNORM : 1) / replicatedOver,
                2 * (eagerRms ? 8 : 1), 2 * (eagerRms ? 10 : 2)));
        // two adds forward; backward, the residual stream's gradient summed where each branch rejoins it
        out.add(new Kernel("residual-adds", 2 * 6 * h / replicatedOver, 2, 2));
        // rotary reads and writes q and k; learned positions are added once at the embedding, ALiBi inside attention
        if (m.positionEmbedding() == PositionEmbedding.ROPE)
            // eager, for q and k each: float(), complex multiply, type_as
            out.add(new Kernel("rotary", 2 * 2 * (m.attentionWidth() + kv) * (eager ? EAGER_ROTARY : 1) / tp, eager ? 6 : 2, eager ? 6 : 2));
        // eager SwiGLU: silu and the product, three kernels back; GELU, or a fused SwiGLU, one each way
        boolean eagerSwiglu = eager && m.gatedMlp();
        out.add(new Kernel("activation", 2 * (m.gatedMlp() ? 3 * (eager ? EAGER_SWIGLU : 1) : 2) * ffn / tp,
                eagerSwiglu ? 2 : 1, eagerSwiglu ? 3 : 1));
        // without flash attention each token's row of heads x seqLen scores goes through HBM (all of it: the causal
        // mask is applied to the full matrix). Megatron's fused scale-mask-softmax reads and writes bf16, 2 + 2 bytes
        // per score; attention dropout adds a 1-byte mask and 2-byte output (Korthikanti et al. 2022, sec. 4.1:
        // 2as^2b, as^2b, 2as^2b) and is off in most LLM recipes. 6 bytes lies between the 4 without it and the 9 with.
        // (its kernels are the attention core's: without flash attention it launches them all). PyTorch's math backend
        // moves the scores in fp32 through separate kernels: MATH_BYTES_PER_SCORE measured, forward and backward.
        // Part of the attention core: selective recomputation runs it again with the core (Megatron-LM at d07d29d,
        // megatron/model/transformer.py:366-380, _checkpointed_attention_forward checkpoints CoreAttention, whose
        // forward is the scores' baddbmm, scale_mask_softmax, the dropout and the bmm with V, lines 169-290;
        // Korthikanti et al. 2022, section 5)
        if (!t.flashAttention()) out.add(new Kernel("softmax", switch (t.attentionKernel()) {
            case MATH -> MATH_BYTES_PER_SCORE / 3 / Efficiency.ELEMENTWISE_TRAFFIC;
            case EAGER -> EAGER_BYTES_PER_SCORE / 3 / Efficiency.ELEMENTWISE_TRAFFIC;
            default -> 6.0;
        } * m.heads() * t.seqLen() / tp, 0, 0, true));
        // fp8 GEMMs take their inputs cast from bf16, row-wise and transposed, as the recipe scales them (Fp8Recipe):
        // the inputs of QKV, projection, MLP up and down per token; backward casts the output gradients likewise
        if (t.precision() == Precision.FP8)
            out.add(new Kernel("fp8-casts", t.fp8Recipe().bytesPerElement * (3 * h + ffn) / tp, 4, 4));
        // the framework's modelling code launches its own beyond these (its profile's layer_launches, measured), or
        // what a plain PyTorch layer does (KernelLaunches); torch.compile fuses them
        dev.trainadvisor.spec.Framework.Fact<dev.trainadvisor.spec.Framework.LayerLaunches> own = t.framework().layerLaunches();
        if (eager && own != null && own.value() != null)
            out.add(new Kernel("framework", 0, own.value().forward(), own.value().backward()));
        else out.add(new Kernel("framework", 0, KernelLaunches.LAYER_FRAMEWORK_FORWARD, KernelLaunches.LAYER_FRAMEWORK_BACKWARD));
        return out;
    }

    /** Logits in bf16 read, upcast to fp32, softmax and its gradient: about 20 bytes per vocabulary entry and token. */
    static final double CROSS_ENTROPY_BYTES_PER_LOGIT = 20.0;

    /**
     * The loss's bytes per token: {@link #CROSS_ENTROPY_BYTES_PER_LOGIT} per vocabulary entry, or the framework's own
     * (its profile's cross_entropy_bytes: a fused classifier).
     */
    static double crossEntropyPerToken(Model m, Parallel p, Training t) {
        Double own = t.framework() == null ? null : t.framework().crossEntropyBytesPerLogit();
        return (own != null ? own : CROSS_ENTROPY_BYTES_PER_LOGIT) * m.vocab() / p.tp();
    }
}
