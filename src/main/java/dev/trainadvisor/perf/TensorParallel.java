package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Parallel;

import java.util.List;

/**
 * Tensor parallelism (Megatron's f and g): per layer two collectives of the layer's activations in forward and two in
 * backward, all-reduces, or with sequence parallelism all-gathers and reduce-scatters of the same bytes; a recomputed
 * layer runs its forward ones again in the backward. With {@code overlap_tp_comm} they are split into chunks pipelined
 * with the GEMMs around them. Where the framework runs a column-parallel linear's backward collectives beside its
 * GEMMs ({@code tp_backward_overlap}, Megatron-LM from 2022: megatron/mpu/layers.py:239-312 at d07d29d), the two
 * backward collectives a layer issues for its input gradients hide behind the GEMMs: without sequence parallelism the
 * all-reduce (lines 272-276, during the weight-gradient GEMM, 294-300); with it the reduce-scatter (283-290, during the
 * weight-gradient GEMM) and the input re-gathered for that GEMM (243-264: the forward kept its 1/tp slice, gathered
 * again during the input-gradient GEMM), which a framework without the overlap is not charged (it is taken to keep the
 * gathered input).
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
        double layers = Math.ceil(s.shard().layersPerStage()), recomputed = 2 * s.training().fullRecomputeShare();
        int mb = s.training().microBatches();
        // per layer: two forward, two again for a recomputed forward, two backward
        double perLayer = 4 + recomputed;
        long calls = Math.round(layers * perLayer * mb);
        OverlapWindow window = p.overlapTpComm() ? OverlapWindow.GEMMS : OverlapWindow.NONE;
        double forward = 2 / perLayer;
        if (!s.training().framework().overlapsTpBackward()) {
            if (p.sequenceParallel())
                return List.of(new CollectivePlan(CollectiveOp.TP_ALL_GATHER, p.tp(), act, calls, calls, link, window, forward, false),
                        new CollectivePlan(CollectiveOp.TP_REDUCE_SCATTER, p.tp(), act, calls, calls, link, window, forward, false));
            return List.of(new CollectivePlan(CollectiveOp.TP_ALL_REDUCE, p.tp(), act, calls, calls, link, window, forward, false));
        }
        // the forward's two (and a recomputed forward's) and, with SP, the row-parallel outputs' gradients gathered in the
        // backward wait for their results; the column-parallel inputs' gradients (and, with SP, their inputs gathered
        // again) hide behind the GEMMs. Of those that wait, the recomputed forward's run in the backward.
        long waiting = Math.round(layers * (2 + recomputed) * mb), beside = Math.round(layers * 2 * mb);
        double waitingForward = 2 / (2 + recomputed);
        CollectivePlan grads = new CollectivePlan(p.sequenceParallel() ? CollectiveOp.TP_GRAD_REDUCE_SCATTER
                : CollectiveOp.TP_GRAD_ALL_REDUCE, p.tp(), act, beside, beside, link, OverlapWindow.GEMMS, 0, false);
        if (!p.sequenceParallel())
            return List.of(new CollectivePlan(CollectiveOp.TP_ALL_REDUCE, p.tp(), act, waiting, waiting, link, window,
                    waitingForward, false), grads);
        return List.of(new CollectivePlan(CollectiveOp.TP_ALL_GATHER, p.tp(), act, calls, calls, link, window, forward, false),
                new CollectivePlan(CollectiveOp.TP_REDUCE_SCATTER, p.tp(), act, waiting, waiting, link, window, waitingForward,
                        false), grads,
                new CollectivePlan(CollectiveOp.TP_INPUT_REGATHER, p.tp(), act, beside, beside, link, OverlapWindow.GEMMS, 0,
                        false));
    }
}
