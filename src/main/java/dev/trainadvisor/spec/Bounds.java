package dev.trainadvisor.spec;

/**
 * The largest sizes a run file may give, checked by {@link SpecReader} before anything loops over them or multiplies
 * them (an inline model with {@code layers: 2147483647} once hung in a per-layer loop of the fit).
 *
 * <p>Each bound is far above every model and cluster built so far (noted beside it), so no real run is refused, and
 * low enough that a loop over layers, pipeline stages or sizes ends at once and that the products the step model
 * forms (tokens x hidden x layers, experts x hidden x ffn_hidden, ...) stay far inside a long and a double's exact
 * integers. Products are still formed in long or double, never int.
 */
public final class Bounds {
    private Bounds() {}

    /** Transformer layers. The deepest LLMs trained have about 100 to 200 (Llama 3.1 405B: 126; PaLM 540B: 118). */
    public static final int LAYERS = 10_000;

    /** Hidden size, 2^20. The widest trained: 16,384 (Llama 3.1 405B) to 20,480 (MT-NLG 530B) and 25,600. */
    public static final int HIDDEN = 1 << 20;

    /** MLP width (dense or per expert), 2^22 (four times {@link #HIDDEN}). The widest: 53,248 (Llama 405B), 73,728 (PaLM). */
    public static final int FFN_HIDDEN = 1 << 22;

    /** Attention heads, KV heads and the head dimension, 2^16. Real models: at most 128 to 160 heads of 64 to 256. */
    public static final int HEADS = 1 << 16;

    /** Vocabulary, 2^24. The largest: 256,000 (Gemma) to 262,144. */
    public static final int VOCAB = 1 << 24;

    /**
     * Routed experts, 2^20: fine-grained mixture-of-experts research has used 1,048,576 tiny experts (PEER, 1024^2);
     * production models use 8 to 384 (DeepSeek-V3: 256). Also the bound on top_k and on shared experts.
     */
    public static final int EXPERTS = 1 << 20;

    /** Sequence length in tokens, 2^24 (16,777,216). The longest contexts trained: 1 to 10 million tokens. */
    public static final int SEQ_LEN = 1 << 24;

    /** Sequences per micro-batch, 2^16. LLM micro-batches hold 1 to a few hundred sequences. */
    public static final int MICRO_BATCH_SIZE = 1 << 16;

    /** Micro-batches a step (gradient accumulation), 2^16. Real runs use 1 to a few thousand. */
    public static final int MICRO_BATCHES = 1 << 16;

    /**
     * GPUs of a run (nodes x gpus_per_node), and the bound on every parallel degree (tp, pp, dp, cp, ep, etp), which
     * divide them: 2^20. The largest training jobs so far: about 100,000 GPUs.
     */
    public static final int GPUS = 1 << 20;

    /** GPUs a node, 2^10. Servers hold 1 to 16; a GB200 NVL72 rack joins 72 by NVLink (nvlink_domain, up to GPUS). */
    public static final int GPUS_PER_NODE = 1 << 10;

    /** Network interfaces a node, and streaming multiprocessors a GPU (H100: 132; B200: 148), 2^16. */
    public static final int SMALL_COUNT = 1 << 16;

    /** Interleaved pipeline stages a rank (virtual_stages): pp x virtual_stages is at most the layers. */
    public static final int VIRTUAL_STAGES = LAYERS;

    /** "a positive integer (1 to MAX)": the allowed range, as a message names it. */
    static String range(int max) {
        return "a positive integer (1 to " + max + ")";
    }

    /** A node's host cores. The largest two-socket servers have 256 to 384 (2 x AMD EPYC 9965: 384). */
    public static final int HOST_CORES = 1 << 16;

    /** A node's host memory, GB. The largest servers hold 6 to 12 TB. */
    public static final double HOST_MEMORY_GB = 1 << 20;

    /**
     * Any positive quantity of a run file: 1e-9 to 1e12 in its unit. The smallest written so far is a fraction of a
     * percent (recompute_fraction, 0.001); the largest a token rate of 10^6 per GPU or a host's memory in GB, 10^4.
     * 1e308 and 1e-308 are accepted by JSON and YAML and are no run's.
     */
    public static final double ANY_MIN = 1e-9;
    public static final double ANY_MAX = 1e12;

    /**
     * A measured time (step, forward-backward, forward, backward, optimizer): from a microsecond, below any kernel
     * launch (5-20 us, bench/h200_launch_overhead.py), to 10^7 s (116 days), above any step.
     */
    public static final double TIME_MIN_S = 1e-6;
    public static final double TIME_MAX_S = 1e7;

    /** How a bound reads in a message: "1e-06", "1800", "1e+12". */
    static String show(double v) {
        if (v >= 1e-3 && v < 1e7) return new java.math.BigDecimal(v).round(new java.math.MathContext(6)).stripTrailingZeros().toPlainString();
        return String.format(java.util.Locale.ROOT, "%.0e", v);
    }

    /** A node's host memory bandwidth, GB/s. Two-socket servers reach 0.3 to 1.2 TB/s; a Grace-Hopper node 0.5 a chip. */
    public static final double HOST_MEMORY_GBPS = 1 << 16;
}
