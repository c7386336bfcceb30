package dev.trainadvisor.facts;

/**
 * What the run's choice of kernels costs per step: the attention core and the element-wise work as configured,
 * and how much of the step FlashAttention-2 and fused element-wise kernels would save (the step model's compute
 * time with the one kernel changed, every micro-batch of the slowest pipeline stage).
 *
 * @param attentionKernel    "fa2", "fa1", "triton" or "fa3" when flash attention is on, "none" when it is off
 * @param elementwiseKernels "fused" or "eager"
 */
public record KernelFact(String attentionKernel, String elementwiseKernels, double attentionS, double attentionSavingS,
                         double elementwiseS, double elementwiseSavingS, double stepTimeS) {}
