package dev.trainadvisor.perf;

import java.util.Locale;

/**
 * Every collective the step model knows, with its NCCL kind and process group. Java, the rules and the
 * reports name collectives through this one enum; {@link #key()} is how they are printed.
 */
public enum CollectiveOp {
    /** DDP (ZeRO 0): all gradients all-reduced once per step. */
    DP_GRAD_ALL_REDUCE(CollectiveKind.ALL_REDUCE, ProcessGroup.DP),
    /** ZeRO 1-3: gradients reduce-scattered to the ranks that own their shard. */
    ZERO_GRAD_REDUCE_SCATTER(CollectiveKind.REDUCE_SCATTER, ProcessGroup.ZERO),
    /** ZeRO 1-2 as InternEvo and DeepSpeed issue it: all gradients all-reduced, each owner keeping its shard of the sum. */
    ZERO_GRAD_ALL_REDUCE(CollectiveKind.ALL_REDUCE, ProcessGroup.DP),
    /** ZeRO 1-2 as DeepSpeed issued it before November 2023: each owner's shard reduced to it, one call per owner. */
    ZERO_GRAD_REDUCE(CollectiveKind.REDUCE, ProcessGroup.ZERO),
    /** Hierarchical ZeRO: the owned shard all-reduced across the replicas of the shard group. */
    ZERO_REPLICA_GRAD_ALL_REDUCE(CollectiveKind.ALL_REDUCE, ProcessGroup.ZERO_REPLICA),
    /** ZeRO 1-2: the updated parameters gathered after the optimizer step. */
    ZERO_PARAM_ALL_GATHER(CollectiveKind.ALL_GATHER, ProcessGroup.ZERO),
    /**
     * ZeRO 1-2 as InternEvo and PyTorch's ZeroRedundancyOptimizer issue it: each owning rank broadcasts its updated
     * shard, one call per rank.
     */
    ZERO_PARAM_BROADCAST(CollectiveKind.BROADCAST, ProcessGroup.ZERO),
    /** FSDP / ZeRO-3: each layer's parameters gathered before its forward... */
    FSDP_FORWARD_ALL_GATHER(CollectiveKind.ALL_GATHER, ProcessGroup.ZERO),
    /** ... and again before its backward. */
    FSDP_BACKWARD_ALL_GATHER(CollectiveKind.ALL_GATHER, ProcessGroup.ZERO),
    /** Tensor parallelism without sequence parallelism: Megatron's f and g, two per layer each way. */
    TP_ALL_REDUCE(CollectiveKind.ALL_REDUCE, ProcessGroup.TP),
    /** Tensor parallelism with sequence parallelism: the all-reduce split into all-gather ... */
    TP_ALL_GATHER(CollectiveKind.ALL_GATHER, ProcessGroup.TP),
    /** ... and reduce-scatter. */
    TP_REDUCE_SCATTER(CollectiveKind.REDUCE_SCATTER, ProcessGroup.TP),
    /**
     * Tensor parallelism where the framework runs a column-parallel linear's backward collectives beside its GEMMs
     * (Framework#overlapsTpBackward): without sequence parallelism the input gradient's all-reduce, during the
     * weight-gradient GEMM ...
     */
    TP_GRAD_ALL_REDUCE(CollectiveKind.ALL_REDUCE, ProcessGroup.TP),
    /** ... with it, the input gradient's reduce-scatter, during the weight-gradient GEMM ... */
    TP_GRAD_REDUCE_SCATTER(CollectiveKind.REDUCE_SCATTER, ProcessGroup.TP),
    /** ... and the input, kept as its 1/tp slice, gathered again for the weight gradient during the input-gradient GEMM. */
    TP_INPUT_REGATHER(CollectiveKind.ALL_GATHER, ProcessGroup.TP),
    /** Pipeline parallelism: activations forward and their gradients backward across a stage boundary. */
    PP_SEND_RECV(CollectiveKind.SEND_RECV, ProcessGroup.PP),
    /**
     * Pipeline parallelism with scattered sends (Framework#scattersPipelineSends): each tensor-parallel rank sent its
     * 1/tp slice, and the receiving stage gathers the whole activation or gradient over its tensor-parallel group.
     */
    PP_RECV_ALL_GATHER(CollectiveKind.ALL_GATHER, ProcessGroup.TP),
    /**
     * Pipeline parallelism with tied embeddings: the first stage's embedding and the last stage's output head are one
     * weight, their gradients all-reduced between the two stages once a step.
     */
    PP_EMBEDDING_ALL_REDUCE(CollectiveKind.ALL_REDUCE, ProcessGroup.PP),
    /** Context parallelism: ring attention passes K and V (and their gradients) around the group. */
    CP_KV_EXCHANGE(CollectiveKind.ALL_GATHER, ProcessGroup.CP),
    /** Expert parallelism: tokens to their experts and back. */
    EP_ALL_TO_ALL(CollectiveKind.ALL_TO_ALL, ProcessGroup.EP),
    /** Expert tensor parallelism: the routed tokens an EP rank receives gathered over the ranks that split the experts ... */
    ETP_ALL_GATHER(CollectiveKind.ALL_GATHER, ProcessGroup.ETP),
    /** ... and the experts' outputs reduce-scattered back. */
    ETP_REDUCE_SCATTER(CollectiveKind.REDUCE_SCATTER, ProcessGroup.ETP);

    private final CollectiveKind kind;
    private final ProcessGroup group;

    CollectiveOp(CollectiveKind kind, ProcessGroup group) {
        this.kind = kind;
        this.group = group;
    }

    public CollectiveKind kind() { return kind; }

    public ProcessGroup group() { return group; }

    /** The printed name: "zero-param-all-gather". */
    private final String key = name().toLowerCase(Locale.ROOT).replace('_', '-');
    public String key() { return key; }

    /** Whether it reduces gradients over data-parallel ranks (the gradient half of data parallelism). */
    public boolean reducesGradients() {
        return this == DP_GRAD_ALL_REDUCE || this == ZERO_GRAD_REDUCE_SCATTER || this == ZERO_REPLICA_GRAD_ALL_REDUCE
                || this == ZERO_GRAD_ALL_REDUCE || this == ZERO_GRAD_REDUCE;
    }
}
