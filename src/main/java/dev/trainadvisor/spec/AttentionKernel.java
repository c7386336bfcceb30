package dev.trainadvisor.spec;

/**
 * Which fused attention kernel a run uses when {@code flash_attention} is on. The catalogue's
 * per-GPU attention fraction is FlashAttention-2's; the others are timed relative to it
 * (perf.Efficiency#attentionKernelSpeed).
 */
public enum AttentionKernel {
    /** FlashAttention-2, also what PyTorch SDPA's flash backend runs (the default). */
    FA2,
    /** FlashAttention (v1, Dao et al. 2022). */
    FA1,
    /** FlashAttention written in Triton (MPT / llm-foundry {@code attn_impl: triton}). */
    TRITON,
    /** FlashAttention-3, Hopper only. */
    FA3
}
