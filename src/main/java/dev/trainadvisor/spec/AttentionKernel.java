package dev.trainadvisor.spec;

import java.util.Locale;

/**
 * Which fused attention kernel a run uses when {@code flash_attention} is on. The catalogue's
 * per-GPU attention fraction is FlashAttention-2's; the others are timed relative to it
 * (perf.Efficiency#attentionKernelSpeed).
 */
public enum AttentionKernel {
    /** FlashAttention-2, also what PyTorch SDPA's flash backend runs (the default). */
    FA2("fa2"),
    /** FlashAttention (v1, Dao et al. 2022). */
    FA1("fa1"),
    /** FlashAttention written in Triton (MPT / llm-foundry {@code attn_impl: triton}). */
    TRITON("triton"),
    /** FlashAttention-3, Hopper only. */
    FA3("fa3");

    private final String key;

    AttentionKernel(String key) { this.key = key; }

    public String key() { return key; }

    public static AttentionKernel parse(String s) {
        for (AttentionKernel k : values()) if (k.key.equals(s.trim().toLowerCase(Locale.ROOT))) return k;
        return null;
    }
}
