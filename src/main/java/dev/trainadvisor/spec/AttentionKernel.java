package dev.trainadvisor.spec;

/**
 * How a run computes attention. With {@code flash_attention} on, a fused kernel: timed by its measured curve over
 * sequence length where knowledge-base/attention-kernels.json has one for the GPU's architecture, else relative to the
 * catalogue's per-GPU FlashAttention-2 fraction (perf.Efficiency#attentionKernelSpeed). Off, the score matrix goes
 * through memory: {@link #UNFUSED} (the default) or {@link #MATH}.
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
    /**
     * cuDNN's fused attention: Transformer Engine's choice on Hopper and later (Megatron-LM, NeMo), and PyTorch SDPA's
     * SDPBackend.CUDNN_ATTENTION (its default on Hopper only where the bundled cuDNN is newer than 9.15).
     */
    CUDNN,
    /** Without flash: bf16 batched GEMMs on tensor cores and a fused scale-mask-softmax (Megatron's core attention). */
    UNFUSED,
    /**
     * Without flash: PyTorch's scaled_dot_product_attention on its math backend, which upcasts to fp32 and runs the
     * GEMMs on CUDA cores and the softmax as separate fp32 kernels (measured on an H200, bench/h200_attention_math.py).
     */
    MATH,
    /**
     * Without flash: the Hugging Face modelling code's eager attention (attn_implementation="eager",
     * transformers' eager_attention_forward): the K and V heads repeated for GQA, bf16 batched GEMMs, the causal mask
     * added as a tensor, the softmax in fp32 and cast back, each a kernel of its own (measured on an H200,
     * bench/h200_hf_step_kernels.py).
     */
    EAGER;

    /** Whether it is a flash (fused) kernel, run with {@code flash_attention: true}. */
    public boolean flash() { return this != UNFUSED && this != MATH && this != EAGER; }
}
