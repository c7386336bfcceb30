package dev.trainadvisor.spec;

/**
 * How the run is split. Ranks are laid out TP innermost, then CP, PP, DP (Megatron's order).
 *
 * @param zeroStage     0 (plain DP), 1 (optimizer states), 2 (+gradients), 3 (+parameters, FSDP full shard)
 * @param zeroGroupSize ranks that shard the optimizer state; divides dp (InternEvo zero1=8 shards inside a node)
 * @param overlapTpComm tensor-parallel collectives pipelined with the GEMMs they feed (Megatron --tp-comm-overlap,
 *                      Transformer Engine userbuffers), instead of exposed
 */
public record Parallel(int tp, int pp, int dp, int cp, int ep, boolean sequenceParallel, int zeroStage,
                       int zeroGroupSize, int virtualStages, boolean overlapGradReduce,
                       boolean overlapParamGather, boolean overlapTpComm) {

    /** Without tensor-parallel communication overlap (Megatron's --tp-comm-overlap off, the default). */
    public Parallel(int tp, int pp, int dp, int cp, int ep, boolean sequenceParallel, int zeroStage, int zeroGroupSize,
                    int virtualStages, boolean overlapGradReduce, boolean overlapParamGather) {
        this(tp, pp, dp, cp, ep, sequenceParallel, zeroStage, zeroGroupSize, virtualStages, overlapGradReduce,
                overlapParamGather, false);
    }

    public int modelParallel() { return tp * pp * cp; }
}
