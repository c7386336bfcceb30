package dev.trainadvisor.spec;

/**
 * How a framework runs the element-wise work of a layer (norms, rotary, the MLP activation).
 * {@code FUSED}: one kernel per operation or fewer: hand-fused kernels (Megatron, Transformer Engine, Apex,
 * InternEvo), or PyTorch's native single-kernel LayerNorm and GELU. {@code COMPILED}: torch.compile (Inductor), which
 * generates kernels that fuse chains of element-wise operations and their casts into one pass each (traffic factor
 * perf.Efficiency#COMPILED_ELEMENTWISE_TRAFFIC). {@code EAGER}: PyTorch eager composites, as torchtitan runs without
 * torch.compile: RMSNorm as seven kernels through fp32, rotary through complex fp32, SiLU and the gate's product apart.
 */
public enum ElementwiseKernels {
    FUSED, COMPILED, EAGER;
}
