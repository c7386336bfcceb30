package dev.trainadvisor.perf;

/** What of a GPU's memory a {@link ParallelDimension} can divide among its ranks ({@link ParallelDimension#shards}). */
public enum MemoryPart {
    /** The parameters of the dense layers. */
    LAYER_WEIGHTS,
    /** The parameters of the experts. */
    EXPERT_WEIGHTS,
    /** The embedding and the output head, by vocabulary (and the logits with them). */
    VOCABULARY,
    /** The 16-bit weights as model state (ZeRO-3 shards them). */
    WEIGHT_STATES,
    /** The gradients (ZeRO-2 and 3). */
    GRADIENT_STATES,
    /** Adam's fp32 master weights, momentum and variance (ZeRO 1-3). */
    OPTIMIZER_STATES,
    /**
     * The experts' share of the three model states above, which ZeRO shards over the expert-data-parallel ranks rather
     * than the data-parallel ones (DataParallel.expertShardGroup).
     */
    EXPERT_WEIGHT_STATES,
    EXPERT_GRADIENT_STATES,
    EXPERT_OPTIMIZER_STATES,
    /** The tokens of a micro-batch: activations and logits. */
    SEQUENCE,
    /** Activations between the tensor-parallel collectives: attention scores, Q, K, V, the MLP's hidden state. */
    SPLIT_ACTIVATIONS,
    /** Activations outside them: norm and residual inputs, which only sequence parallelism splits. */
    REPLICATED_ACTIVATIONS
}
