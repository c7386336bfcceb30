package dev.trainadvisor.spec;

/**
 * How the GPU runs the optimizer's update ({@code training.optimizer_kernel}). {@code FUSED}, the default: one fused
 * kernel over many tensors at a time (torch.optim.AdamW(fused=True), the Trainer's adamw_torch_fused, its default from
 * torch 2.8; Apex's and Transformer Engine's FusedAdam in Megatron and DeepSpeed), at Adam's HBM traffic.
 * {@code FOREACH}: PyTorch's multi-tensor path, torch.optim.AdamW's default on CUDA without {@code fused=True} (the
 * Trainer's adamw_torch): one _foreach kernel per operation of the update, each a pass over the states (measured on an
 * H200 at 2.67x the fused step: perf.StepModel#FOREACH_OVER_FUSED).
 */
public enum OptimizerKernel {
    FUSED, FOREACH
}
