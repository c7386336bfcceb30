package dev.trainadvisor.spec;

/**
 * How a framework runs the element-wise work of a layer (norms, rotary, the MLP activation).
 * {@code FUSED}: one kernel per operation or fewer: hand-fused kernels (Megatron, Transformer Engine, Apex,
 * InternEvo), or PyTorch's native single-kernel LayerNorm and GELU. {@code COMPILED}: torch.compile (Inductor), which
 * generates kernels that fuse chains of element-wise operations and their casts into one pass each (traffic factor
 * perf.Efficiency#COMPILED_ELEMENTWISE_TRAFFIC). {@code EAGER}: PyTorch eager composites, as torchtitan runs without
 * torch.compile: RMSNorm as seven kernels through fp32, rotary through complex fp32, SiLU and the gate's product apart.
 * {@code EAGER_FUSED_NORM}: the same eager composites but for RMSNorm, one fused kernel each way: torchtitan's
 * {@code norm_type = "fused_rmsnorm"} (FusedRMSNorm over the Triton kernels _rms_norm_fwd_kernel and
 * _rms_norm_bwd_kernel_sm, torchtitan/models/norms.py:46-66 and 119-305 at 0413364, 2024-04-24), the norm of its
 * Llama 3 8B and Llama 2 13B train configs of that date (train_configs/llama3_8b.toml:21, llama2_13b.toml:21, with
 * compile = false), where rotary and SwiGLU stayed eager.
 */
public enum ElementwiseKernels {
    FUSED, COMPILED, EAGER, EAGER_FUSED_NORM;

    /** Whether rotary and the gated activation run as PyTorch eager composites. */
    public boolean eagerComposites() { return this == EAGER || this == EAGER_FUSED_NORM; }

    /** Whether RMSNorm runs as PyTorch's eager composite (seven kernels through fp32). */
    public boolean eagerNorm() { return this == EAGER; }
}
