package dev.trainadvisor.spec;

import java.util.Arrays;
import java.util.List;

/**
 * How a framework counts the TFLOPS it prints (docs/logs.md). The house
 * convention is Megatron-LM's up to core_r0.11: every GEMM (GQA-aware), full s^2 attention,
 * forward + backward = 3x forward, no recomputation.
 */
public enum FlopsConvention {
    /** train-advisor's own: the house model FLOPs of the step model. */
    HOUSE("house"),
    /** InternLM / InternEvo get_megatron_flops: no GQA, mlp_ratio from config, x4 with checkpointing. */
    INTERNEVO("internevo"),
    /** Megatron-LM up to core_r0.11: full s^2 attention, no recompute. */
    MEGATRON_LEGACY("megatron-legacy"),
    /** Megatron-LM from core_v0.12.0: causal attention counted at half. */
    MEGATRON("megatron"),
    /** torchtitan up to 2025-10-28: 6 (N - N_embedding) + 12 L H d s, full attention, no recompute. */
    TORCHTITAN("torchtitan"),
    /** Composer / llm-foundry MPT: 6 N + 12 L d s with N including embeddings. */
    COMPOSER("composer"),
    /**
     * Narayanan et al. 2021, eq. 3: 96 B s l h^2 (1 + s/6h + V/16lh), every layer counted four times
     * (forward, recomputed forward, backward) whether or not the run recomputed: Megatron-LM's 2021 tables.
     */
    MEGATRON_2021("megatron-2021"),
    /**
     * Megatron-DeepSpeed before PR #371 (2024-08-19), as BigScience's BLOOM logs print it:
     * 24 f B s L h^2 (1 + s/6h + V/16Lh) with f = 4 under activation checkpointing, else 3.
     */
    MEGATRON_DEEPSPEED("megatron-deepspeed"),
    /**
     * torchtitan from 5a090f2 (2025-10-29, '[FLOPs] Fix attention FLOPs estimate'): 6 (N - N_embedding) + 6 L H d s,
     * causal attention counted at half, no recompute.
     */
    TORCHTITAN_2025_10("torchtitan-2025-10");

    public final String key;

    FlopsConvention(String key) { this.key = key; }

    public static FlopsConvention parse(String s) {
        if (s == null) return null;
        for (FlopsConvention c : values()) if (c.key.equalsIgnoreCase(s.trim())) return c;
        return null;
    }

    public static List<String> keys() { return Arrays.stream(values()).map(c -> c.key).toList(); }
}
