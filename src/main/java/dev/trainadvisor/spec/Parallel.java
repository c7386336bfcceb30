package dev.trainadvisor.spec;

/**
 * How the run is split. Ranks are laid out TP innermost, then CP, then DP and PP in the order the framework numbers them
 * ({@link RankOrder}).
 *
 * @param zeroStage     0 (plain DP), 1 (optimizer states), 2 (+gradients), 3 (+parameters, FSDP full shard)
 * @param zeroGroupSize ranks that shard the optimizer state; divides dp (InternEvo zero1=8 shards inside a node)
 * @param overlapTpComm tensor-parallel collectives pipelined with the GEMMs they feed (Megatron --tp-comm-overlap,
 *                      Transformer Engine userbuffers), instead of exposed
 * @param etp           expert tensor parallelism: the ranks that split each expert's FFN. Megatron-Core folds the expert
 *                      layers' ranks, ETP innermost, then EP, then expert data parallelism, over the same TP x CP x DP
 *                      ranks the attention uses (MoE parallel folding, Liu et al. 2025, arXiv 2504.14960), so
 *                      {@code ep x etp} divides {@code tp x cp x dp}; equal to tp unless set
 * @param bucketMb      megabytes of gradients per data-parallel bucket, each one call of its reduction (PyTorch DDP's
 *                      bucket_cap_mb, 25 by default; Megatron-Core buckets max(40M, 1M x dp) parameters,
 *                      megatron/core/distributed/distributed_data_parallel.py)
 * @param gradReduceEveryMicroBatch whether the gradients are reduced after every micro-batch (PyTorch DDP without
 *                      no_sync, DeepSpeed ZeRO-2) or once, in the last micro-batch's backward; null: as the framework
 *                      does at the run's ZeRO stage (its profile's every_micro_batch)
 * @param moeDispatcher how the expert layers move tokens to their experts' ranks ({@code parallel.moe_dispatcher})
 * @param moeA2aOverlap whether one micro-batch's expert all-to-alls run behind another's compute (Megatron-Core's
 *                      --overlap-moe-expert-parallel-comm, which pairs a micro-batch's forward with another's backward;
 *                      DeepSeek-V3's DualPipe), instead of exposed
 * @param rankOrder     whether the pipeline stages or the data-parallel replicas are outermost ({@code parallel.rank_order},
 *                      Megatron-LM's --use-tp-pp-dp-mapping); null: as the framework numbers its ranks (its profile's
 *                      rank_order)
 */
public record Parallel(int tp, int pp, int dp, int cp, int ep, boolean sequenceParallel, int zeroStage,
                       int zeroGroupSize, int virtualStages, boolean overlapGradReduce,
                       boolean overlapParamGather, boolean overlapTpComm, int etp, double bucketMb,
                       Boolean gradReduceEveryMicroBatch, MoeDispatcher moeDispatcher, boolean moeA2aOverlap,
                       RankOrder rankOrder) {

    public Parallel {
        if (moeDispatcher == null) moeDispatcher = MoeDispatcher.ALLTOALL;
    }

    /** Tokens dispatched by NCCL all-to-alls, not overlapped with another micro-batch. */
    public Parallel(int tp, int pp, int dp, int cp, int ep, boolean sequenceParallel, int zeroStage, int zeroGroupSize,
                    int virtualStages, boolean overlapGradReduce, boolean overlapParamGather, boolean overlapTpComm,
                    int etp, double bucketMb, Boolean gradReduceEveryMicroBatch) {
        this(tp, pp, dp, cp, ep, sequenceParallel, zeroStage, zeroGroupSize, virtualStages, overlapGradReduce,
                overlapParamGather, overlapTpComm, etp, bucketMb, gradReduceEveryMicroBatch, MoeDispatcher.ALLTOALL, false, null);
    }

    /** Reducing the gradients as the framework does at its ZeRO stage. */
    public Parallel(int tp, int pp, int dp, int cp, int ep, boolean sequenceParallel, int zeroStage, int zeroGroupSize,
                    int virtualStages, boolean overlapGradReduce, boolean overlapParamGather, boolean overlapTpComm,
                    int etp, double bucketMb) {
        this(tp, pp, dp, cp, ep, sequenceParallel, zeroStage, zeroGroupSize, virtualStages, overlapGradReduce,
                overlapParamGather, overlapTpComm, etp, bucketMb, null);
    }

    /** PyTorch DDP's default gradient bucket, bucket_cap_mb = 25. */
    public static final double DEFAULT_BUCKET_MB = 25;

    /** Experts split like the dense layers (expert tensor parallelism equal to tp). */
    public Parallel(int tp, int pp, int dp, int cp, int ep, boolean sequenceParallel, int zeroStage, int zeroGroupSize,
                    int virtualStages, boolean overlapGradReduce, boolean overlapParamGather, boolean overlapTpComm) {
        this(tp, pp, dp, cp, ep, sequenceParallel, zeroStage, zeroGroupSize, virtualStages, overlapGradReduce,
                overlapParamGather, overlapTpComm, tp, DEFAULT_BUCKET_MB);
    }

    /** Without tensor-parallel communication overlap (Megatron's --tp-comm-overlap off, the default). */
    public Parallel(int tp, int pp, int dp, int cp, int ep, boolean sequenceParallel, int zeroStage, int zeroGroupSize,
                    int virtualStages, boolean overlapGradReduce, boolean overlapParamGather) {
        this(tp, pp, dp, cp, ep, sequenceParallel, zeroStage, zeroGroupSize, virtualStages, overlapGradReduce,
                overlapParamGather, false);
    }

    public int modelParallel() { return tp * pp * cp; }

    /** How the ranks are numbered: as the run says, else as {@code framework} numbers them. */
    public RankOrder ranks(Framework framework) {
        return rankOrder != null ? rankOrder : framework.ranks();
    }

    /** Replicas of each expert that split its tokens: the folded group's ranks over {@code ep x etp}. */
    public int expertDataParallel() { return tp * cp * dp / (ep * etp); }

    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Parallel p && tp == p.tp && pp == p.pp && dp == p.dp && cp == p.cp
                && ep == p.ep && sequenceParallel == p.sequenceParallel && zeroStage == p.zeroStage
                && zeroGroupSize == p.zeroGroupSize && virtualStages == p.virtualStages
                && overlapGradReduce == p.overlapGradReduce && overlapParamGather == p.overlapParamGather
                && overlapTpComm == p.overlapTpComm && etp == p.etp && Double.compare(bucketMb, p.bucketMb) == 0
                && moeA2aOverlap == p.moeA2aOverlap
                && java.util.Objects.equals(gradReduceEveryMicroBatch, p.gradReduceEveryMicroBatch)
                && java.util.Objects.equals(moeDispatcher, p.moeDispatcher)
                && java.util.Objects.equals(rankOrder, p.rankOrder);
    }

    @Override
    public int hashCode() {
        int h = tp;
        h = 31 * h + pp;
        h = 31 * h + dp;
        h = 31 * h + cp;
        h = 31 * h + ep;
        h = 31 * h + Boolean.hashCode(sequenceParallel);
        h = 31 * h + zeroStage;
        h = 31 * h + zeroGroupSize;
        h = 31 * h + virtualStages;
        h = 31 * h + Boolean.hashCode(overlapGradReduce);
        h = 31 * h + Boolean.hashCode(overlapParamGather);
        h = 31 * h + Boolean.hashCode(overlapTpComm);
        h = 31 * h + etp;
        h = 31 * h + Double.hashCode(bucketMb);
        h = 31 * h + java.util.Objects.hashCode(gradReduceEveryMicroBatch);
        h = 31 * h + java.util.Objects.hashCode(moeDispatcher);
        h = 31 * h + Boolean.hashCode(moeA2aOverlap);
        return 31 * h + java.util.Objects.hashCode(rankOrder);
    }
}
