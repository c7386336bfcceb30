package dev.trainadvisor.spec;

/**
 * How a run computes attention. With {@code flash_attention} on, a fused kernel: the catalogue's per-GPU attention
 * fraction is FlashAttention-2's and the others are timed relative to it (perf.Efficiency#attentionKernelSpeed). Off,
 * the score matrix goes through memory: {@link #UNFUSED} (the default) or {@link #MATH}.
 */
public enum AttentionKernel {
    /** FlashAttention-2, also what PyTorch SDPA's flash backend runs (the default). */
    FA2,
    /** FlashAttention (v1, Dao et al. 2022). */
    FA1,
    /** FlashAttention written in Triton (MPT / llm-foundry {@code attn_impl: triton}). */
    TRITON,
    /** FlashAttention-3, Hopper only. */
    FA3,
    /** Without flash: bf16 batched GEMMs on tensor cores and a fused scale-mask-softmax (Megatron's core attention). */
    UNFUSED,
    /**
     * Without flash: PyTorch's scaled_dot_product_attention on its math backend, which upcasts to fp32 and runs the
     * GEMMs on CUDA cores and the softmax as separate fp32 kernels (measured on an H200, bench/h200_attention_math.py).
     */
    MATH;

    /** Whether it is a flash (fused) kernel, run with {@code flash_attention: true}. */
    public boolean flash() { return this != UNFUSED && this != MATH; }
}
