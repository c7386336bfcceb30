package dev.trainadvisor.spec;

/**
 * What one optimizer step processes and in which formats.
 *
 * @param microBatches      gradient-accumulation steps per optimizer step (InternEvo micro_num)
 * @param recomputeFraction with full recompute, the share of layers that recompute (InternEvo checkpoint=0.5,
 *                          torchtitan's "selective layer" checkpointing of every other layer); 1 otherwise
 * @param attentionKernel   the fused attention kernel when {@code flashAttention} is on (FlashAttention-2 by default)
 * @param elementwiseKernels fused (the default) or PyTorch eager composites for norms, rotary and the activation
 * @param cudaGraphs        whether the forward and backward are replayed from CUDA graphs (torch.compile's
 *                          reduce-overhead mode, Megatron's --enable-cuda-graph), so the host launches no kernel
 * @param fp8Recipe         how an fp8 run scales its tensors (delayed, Transformer Engine's default, unless set)
 * @param implementation    the framework that runs it ({@code training.framework}), which decides the data-parallel
 *                          collectives a ZeRO stage issues
 * @param offload           what it keeps off the GPU ({@code training.offload})
 * @param optimizerKernel   how the GPU runs the optimizer's update ({@code training.optimizer_kernel}: fused unless set)
 */
public record Training(int seqLen, int microBatchSize, int microBatches, Recompute recompute,
                       Precision precision, Precision gradReducePrecision, boolean flashAttention,
                       double recomputeFraction, AttentionKernel attentionKernel, ElementwiseKernels elementwiseKernels,
                       boolean cudaGraphs, Fp8Recipe fp8Recipe, Implementation implementation, Offload offload,
                       OptimizerKernel optimizerKernel) {

    /** With the fused optimizer kernel. */
    public Training(int seqLen, int microBatchSize, int microBatches, Recompute recompute, Precision precision,
                    Precision gradReducePrecision, boolean flashAttention, double recomputeFraction,
                    AttentionKernel attentionKernel, ElementwiseKernels elementwiseKernels, boolean cudaGraphs,
                    Fp8Recipe fp8Recipe, Implementation implementation, Offload offload) {
        this(seqLen, microBatchSize, microBatches, recompute, precision, gradReducePrecision, flashAttention,
                recomputeFraction, attentionKernel, elementwiseKernels, cudaGraphs, fp8Recipe, implementation, offload,
                OptimizerKernel.FUSED);
    }

    /** Offloading nothing. */
    public Training(int seqLen, int microBatchSize, int microBatches, Recompute recompute, Precision precision,
                    Precision gradReducePrecision, boolean flashAttention, double recomputeFraction,
                    AttentionKernel attentionKernel, ElementwiseKernels elementwiseKernels, boolean cudaGraphs,
                    Fp8Recipe fp8Recipe, Implementation implementation) {
        this(seqLen, microBatchSize, microBatches, recompute, precision, gradReducePrecision, flashAttention,
                recomputeFraction, attentionKernel, elementwiseKernels, cudaGraphs, fp8Recipe, implementation, Offload.NONE);
    }

    /** Run by the default framework (no framework named). */
    public Training(int seqLen, int microBatchSize, int microBatches, Recompute recompute, Precision precision,
                    Precision gradReducePrecision, boolean flashAttention, double recomputeFraction,
                    AttentionKernel attentionKernel, ElementwiseKernels elementwiseKernels, boolean cudaGraphs,
                    Fp8Recipe fp8Recipe) {
        this(seqLen, microBatchSize, microBatches, recompute, precision, gradReducePrecision, flashAttention,
                recomputeFraction, attentionKernel, elementwiseKernels, cudaGraphs, fp8Recipe, Implementation.byDefault());
    }

    /** The framework that runs the step, at its version. */
    public Framework framework() { return implementation.framework(); }

    public Training(int seqLen, int microBatchSize, int microBatches, Recompute recompute, Precision precision,
                    Precision gradReducePrecision, boolean flashAttention, double recomputeFraction,
                    AttentionKernel attentionKernel, ElementwiseKernels elementwiseKernels, boolean cudaGraphs) {
        this(seqLen, microBatchSize, microBatches, recompute, precision, gradReducePrecision, flashAttention,
                recomputeFraction, attentionKernel, elementwiseKernels, cudaGraphs, Fp8Recipe.DELAYED);
    }

    public Training(int seqLen, int microBatchSize, int microBatches, Recompute recompute, Precision precision,
                    Precision gradReducePrecision, boolean flashAttention, double recomputeFraction,
                    AttentionKernel attentionKernel, ElementwiseKernels elementwiseKernels) {
        this(seqLen, microBatchSize, microBatches, recompute, precision, gradReducePrecision, flashAttention,
                recomputeFraction, attentionKernel, elementwiseKernels, false);
    }

    /** Every layer recomputes under full recompute. */
    public Training(int seqLen, int microBatchSize, int microBatches, Recompute recompute, Precision precision,
                    Precision gradReducePrecision, boolean flashAttention) {
        this(seqLen, microBatchSize, microBatches, recompute, precision, gradReducePrecision, flashAttention, 1.0);
    }

    /** FlashAttention-2 when flash attention is on. */
    public Training(int seqLen, int microBatchSize, int microBatches, Recompute recompute, Precision precision,
                    Precision gradReducePrecision, boolean flashAttention, double recomputeFraction) {
        this(seqLen, microBatchSize, microBatches, recompute, precision, gradReducePrecision, flashAttention,
                recomputeFraction, AttentionKernel.FA2, ElementwiseKernels.FUSED);
    }

    /** Tokens one data-parallel replica consumes per optimizer step. */
    public long tokensPerReplica() { return (long) seqLen * microBatchSize * microBatches; }

    /** The share of layers that recompute their whole forward: 0 without full recompute. */
    public double fullRecomputeShare() { return recompute == Recompute.FULL ? recomputeFraction : 0; }

    /** The same step with flash attention on or off and the given kernel. */
    public Training withAttention(boolean flash, AttentionKernel kernel) {
        return new Training(seqLen, microBatchSize, microBatches, recompute, precision, gradReducePrecision, flash,
                recomputeFraction, kernel, elementwiseKernels, cudaGraphs, fp8Recipe, implementation, offload, optimizerKernel);
    }

    /** The same step over sequences of {@code tokens}. */
    public Training withSeqLen(int tokens) {
        return new Training(tokens, microBatchSize, microBatches, recompute, precision, gradReducePrecision, flashAttention,
                recomputeFraction, attentionKernel, elementwiseKernels, cudaGraphs, fp8Recipe, implementation, offload, optimizerKernel);
    }

    /** The same step with the element-wise work run by the given kernels. */
    public Training withElementwise(ElementwiseKernels kernels) {
        return new Training(seqLen, microBatchSize, microBatches, recompute, precision, gradReducePrecision, flashAttention,
                recomputeFraction, attentionKernel, kernels, cudaGraphs, fp8Recipe, implementation, offload, optimizerKernel);
    }

    /** The same step with its kernels launched from CUDA graphs or not. */
    public Training withCudaGraphs(boolean graphs) {
        return new Training(seqLen, microBatchSize, microBatches, recompute, precision, gradReducePrecision, flashAttention,
                recomputeFraction, attentionKernel, elementwiseKernels, graphs, fp8Recipe, implementation, offload, optimizerKernel);
    }

    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Training t && seqLen == t.seqLen && microBatchSize == t.microBatchSize
                && microBatches == t.microBatches && flashAttention == t.flashAttention
                && Double.compare(recomputeFraction, t.recomputeFraction) == 0 && cudaGraphs == t.cudaGraphs
                && java.util.Objects.equals(recompute, t.recompute)
                && java.util.Objects.equals(precision, t.precision)
                && java.util.Objects.equals(gradReducePrecision, t.gradReducePrecision)
                && java.util.Objects.equals(attentionKernel, t.attentionKernel)
                && java.util.Objects.equals(elementwiseKernels, t.elementwiseKernels)
                && java.util.Objects.equals(fp8Recipe, t.fp8Recipe)
                && java.util.Objects.equals(implementation, t.implementation)
                && java.util.Objects.equals(offload, t.offload)
                && java.util.Objects.equals(optimizerKernel, t.optimizerKernel);
    }

    @Override
    public int hashCode() {
        int h = seqLen;
        h = 31 * h + microBatchSize;
        h = 31 * h + microBatches;
        h = 31 * h + java.util.Objects.hashCode(recompute);
        h = 31 * h + java.util.Objects.hashCode(precision);
        h = 31 * h + java.util.Objects.hashCode(gradReducePrecision);
        h = 31 * h + Boolean.hashCode(flashAttention);
        h = 31 * h + Double.hashCode(recomputeFraction);
        h = 31 * h + java.util.Objects.hashCode(attentionKernel);
        h = 31 * h + java.util.Objects.hashCode(elementwiseKernels);
        h = 31 * h + Boolean.hashCode(cudaGraphs);
        h = 31 * h + java.util.Objects.hashCode(fp8Recipe);
        h = 31 * h + java.util.Objects.hashCode(implementation);
        h = 31 * h + java.util.Objects.hashCode(offload);
        return 31 * h + java.util.Objects.hashCode(optimizerKernel);
    }
}
