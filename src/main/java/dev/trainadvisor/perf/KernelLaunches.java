package dev.trainadvisor.perf;

/**
 * Kernels the host launches per layer and for the output head, beyond one per GEMM forward and two backward
 * ({@link Operation#gemm}) and the memory-bound kernels' own ({@link ElementwiseBytes.Kernel}). Their total is checked
 * against the CUDA kernels the PyTorch profiler counted in one forward + backward of GPT-3 125M, 350M and 1.3B on an
 * H200 (bench/h200_small_kernels.py, knowledge-base/measurements/h200-small-kernels.json).
 */
final class KernelLaunches {
    private KernelLaunches() {}

    /**
     * FlashAttention-2: one kernel forward; backward the dO.O preprocessing, the main kernel and the conversion of dQ
     * from its fp32 accumulator (flash-attn's flash_bwd_dot_do_o, flash_bwd_dq_dk_dv, flash_bwd_convert_dq).
     */
    static final int FLASH_FORWARD = 1, FLASH_BACKWARD = 3;

    /** Attention without a fused kernel (Megatron's): QK^T, scale-mask-softmax, PV forward; their gradients backward. */
    static final int UNFUSED_FORWARD = 4, UNFUSED_BACKWARD = 6;

    /**
     * PyTorch's math attention backend: 20 kernels forward (casts to fp32, scale, the causal mask built and applied,
     * softmax, the -inf check, the GEMMs, the casts back) and 15 backward, counted by the profiler on an H200
     * (h200-attention-math.json).
     */
    static final int MATH_FORWARD = 20, MATH_BACKWARD = 15;

    /**
     * The Hugging Face eager attention: 11 kernels forward (K and V repeated for GQA, QK^T, the scaling, the mask
     * added, the fp32 softmax, the cast back, PV, the output transposed contiguous) and 13 backward: per layer, what
     * the profiler counted beyond the SDPA run's one kernel forward and three backward (bench/h200_hf_step_kernels.py,
     * TinyLlama shape, micro-batch 4: 1510 kernels forward against 1280, 2773 after against 2553, over 22 layers).
     */
    static final int EAGER_FORWARD = 11, EAGER_BACKWARD = 13;

    /**
     * What a layer launches besides its operations: layout copies (the attention output made contiguous, the Q, K and
     * V gradients assembled into the QKV weight's), bias gradients, gradient accumulation. 15 per layer forward and
     * backward together: what the profiler counted beyond the operations in the micro-batch-1 runs of the tune models,
     * GPT-3 125M (505 kernels, 12 layers: 12.6 per layer) and 1.3B (1129, 24 layers: 18.3), rounded; 350M, held out,
     * gives 12.3. The split between forward and backward is assumed (a third forward).
     */
    static final int LAYER_FRAMEWORK_FORWARD = 5, LAYER_FRAMEWORK_BACKWARD = 10;

    /** The embedding lookup (and the learned positions' add) forward; their gradients backward. */
    static final int EMBEDDING_FORWARD = 1, EMBEDDING_BACKWARD = 2, POSITIONS_FORWARD = 1, POSITIONS_BACKWARD = 1;

    /** The final norm: one forward, two backward. */
    static final int FINAL_NORM_FORWARD = 1, FINAL_NORM_BACKWARD = 2;

    /**
     * An MoE router past its gating GEMM: softmax, top-k, the routing map's scatter, and the load-balancing loss's
     * reductions and product (Megatron-Core, megatron/core/transformer/moe/router.py, TopKRouter.routing on the
     * unfused path; a count of the ATen calls read there, not a profile), about as many back.
     */
    static final int ROUTER_FORWARD = 6, ROUTER_BACKWARD = 6;

    /**
     * Token permutation with Transformer Engine's fused kernels (moe_utils.permute / unpermute with fused=True): one
     * kernel to permute and one to unpermute each way, two more where the tokens an all-to-all brings are sorted by
     * local expert (token_dispatcher.py, sort_chunks_by_idxs).
     */
    static final int PERMUTE_FORWARD = 2, PERMUTE_BACKWARD = 2;

    /** Cross-entropy: the fp32 upcast, log-softmax and the loss; their gradients back. */
    static final int CROSS_ENTROPY_FORWARD = 3, CROSS_ENTROPY_BACKWARD = 3;
}
