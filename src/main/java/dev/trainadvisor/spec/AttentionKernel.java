package dev.trainadvisor.spec;

/**
 * How a run computes attention. With {@code flash_attention} on, a fused kernel: timed by its measured curve over
 * sequence length where knowledge-base/attention-kernels.json has one for the GPU's architecture, else relative to the
 * catalogue's per-GPU FlashAttention-2 fraction (perf.Efficiency#attentionKernelSpeed). Off, the score matrix goes
 * through memory: {@link #UNFUSED} (the default) or {@link #MATH}.
 */
public enum AttentionKernel {
    /** FlashAttention-2 (flash-attn 2.x), also what PyTorch SDPA's flash backend runs since PyTorch 2.2 (the default). */
    FA2,
    /**
     * FlashAttention (v1, Dao et al. 2022: flash-attn 0.x and 1.x), also what PyTorch SDPA's flash backend ran before
     * PyTorch 2.2 ("scaled_dot_product_attention (SDPA) now supports FlashAttention-2", v2.2.0 release notes).
     */
    FA1,
    /**
     * FlashAttention written in Triton as 2023 training code ran it: MPT / llm-foundry {@code attn_impl: triton}
     * (llmfoundry/models/layers/flash_attn_triton.py, Tri Dao's kernel after Triton's tutorial) on the pre-MLIR Triton
     * compiler llm-foundry pinned up to v0.3.0 (triton-pre-mlir, whose sm_90 fork emits Ampere's mma.sync on Hopper).
     */
    TRITON,
    /**
     * PyTorch's FlexAttention (torch.nn.attention.flex_attention under torch.compile): FlashAttention-2's algorithm as
     * kernels Triton generates for the mask, with Hopper's wgmma where the GPU has it (torchtitan's default attention).
     */
    FLEX,
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
