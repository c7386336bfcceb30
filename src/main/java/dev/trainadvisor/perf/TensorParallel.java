package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Parallel;

import java.util.List;

/**
 * Tensor parallelism (Megatron's f and g): per layer two collectives of the layer's activations in forward and two in
 * backward, all-reduces, or with sequence parallelism all-gathers and reduce-scatters of the same bytes; a recomputed
 * layer runs its forward ones again in the backward. With {@code overlap_tp_comm} they are split into chunks pipelined
 * with the GEMMs around them.
 */
final class TensorParallel implements ParallelDimension {

    /**
     * Every dense weight matrix, the vocabulary and the activations between its collectives; with SP the rest too.
     * The experts' weights are split by expert tensor parallelism ({@link ExpertParallel}).
     */
    @Override
    public double shards(MemoryPart part, Parallel p) {
        return switch (part) {
            case LAYER_WEIGHTS, VOCABULARY, SPLIT_ACTIVATIONS -> p.tp();
            case REPLICATED_ACTIVATIONS -> p.sequenceParallel() ? p.tp() : 1;
            default -> 1;
        };
    }

    @Override
    public List<CollectivePlan> collectives(StepContext s) {
        Parallel p = s.parallel();
        if (p.tp() <= 1) return List.of();
        LinkChoice link = s.topology().place(p.tp(), s.topology().tpStride());
        double act = s.tokensPerMicroBatch() * s.model().hidden() * 2;
        double perLayer = 4 + 2 * s.training().fullRecomputeShare();
        long calls = Math.round(Math.ceil(s.shard().layersPerStage()) * perLayer * s.training().microBatches());
        OverlapWindow window = p.overlapTpComm() ? OverlapWindow.GEMMS : OverlapWindow.NONE;
        double forward = 2 / perLayer;
        if (p.sequenceParallel())
            return List.of(new CollectivePlan(CollectiveOp.TP_ALL_GATHER, p.tp(), act, calls, calls, link, window, forward, false),
                    new CollectivePlan(CollectiveOp.TP_REDUCE_SCATTER, p.tp(), act, calls, calls, link, window, forward, false));
        return List.of(new CollectivePlan(CollectiveOp.TP_ALL_REDUCE, p.tp(), act, calls, calls, link, window, forward, false));
    }
}
