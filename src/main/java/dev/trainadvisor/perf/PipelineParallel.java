package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Parallel;

import java.util.List;

/**
 * Pipeline parallelism: each micro-batch's activations sent forward and their gradients back across every stage
 * boundary, once per virtual stage; sequence parallelism sends a tensor-parallel rank's share only, and so does a
 * framework that scatters its sends without it ({@code pipeline_scatter_gather}, Megatron-LM before Megatron-Core),
 * whose receiving stage then gathers the whole over its tensor-parallel group ({@link CollectiveOp#PP_RECV_ALL_GATHER}).
 * With tied embeddings the first and last stages all-reduce the shared weight's gradients once a step. Its bubble is
 * part of the step's compute ({@link StepModel}). The sends are waited for before the chunk they feed, unless the
 * framework's interleaved schedule overlaps them ({@code interleaved_p2p_overlap}, Megatron-LM's overlap_p2p_comm):
 * then a chunk's sends and receives run while the chunks around it compute, every micro-batch's compute but the
 * first's forward and the last's backward, which wait on theirs ({@link OverlapWindow#OTHER_MICRO_BATCH}).
 */
final class PipelineParallel implements ParallelDimension {

    /** The layers, by stage (which stage holds the embedding and the head, and how many micro-batches are in flight, is
     *  the schedule's: {@link MemoryModel}). */
    @Override
    public double shards(MemoryPart part, Parallel p) {
        return part == MemoryPart.LAYER_WEIGHTS || part == MemoryPart.EXPERT_WEIGHTS ? p.pp() : 1;
    }

    @Override
    public List<CollectivePlan> collectives(StepContext s) {
        Parallel p = s.parallel();
        if (p.pp() <= 1) return List.of();
        LinkChoice link = s.topology().place(2, s.topology().ppStride());
        double whole = s.tokensPerMicroBatch() * s.model().hidden() * 2;
        // with sequence parallelism each tensor-parallel rank holds (and sends) its slice of the sequence; without it,
        // a framework that scatters its sends has each rank send a 1/tp slice of the whole, which the receiving stage
        // gathers over its tensor-parallel group (Narayanan et al. 2021, section 4.1)
        boolean scattered = !p.sequenceParallel() && p.tp() > 1 && s.training().framework().scattersPipelineSends();
        double act = whole / (p.sequenceParallel() || scattered ? p.tp() : 1);
        long calls = 2L * s.training().microBatches() * p.virtualStages();
        boolean overlapped = p.virtualStages() > 1 && s.training().framework().overlapsInterleavedP2p();
        OverlapWindow window = overlapped ? OverlapWindow.OTHER_MICRO_BATCH : OverlapWindow.NONE;
        CollectivePlan sends = new CollectivePlan(CollectiveOp.PP_SEND_RECV, 2, act, calls, calls, link, window, 0.5, false);
        // the gather follows each receive as the send does (one call per received tensor, in the same window)
        CollectivePlan gather = !scattered ? null : new CollectivePlan(CollectiveOp.PP_RECV_ALL_GATHER, p.tp(), whole,
                calls, calls, s.topology().place(p.tp(), s.topology().tpStride()), window, 0.5, false);
        if (!s.model().tiedEmbeddings()) return gather == null ? List.of(sends) : List.of(sends, gather);
        // tied embeddings: the first stage's embedding and the last stage's head are one weight, split over the
        // vocabulary by tensor parallelism; their gradients are all-reduced between the two stages after the backward, before the
        // optimizer (Megatron-Core's finalize_model_grads._allreduce_word_embedding_grads over the embedding group of
        // the first and last stages, megatron/core/distributed/finalize_model_grads.py:164 at d98e8a6; DeepSpeed's
        // pipeline engine's _exec_reduce_tied_grads), in the gradients' reduction dtype
        double grads = Params.embedding(s.model()) / p.tp() * s.training().gradReducePrecision().bytes;
        LinkChoice ends = s.topology().place(2, s.topology().ppStride() * (p.pp() - 1));
        CollectivePlan tied = CollectivePlan.gradientReduction(CollectiveOp.PP_EMBEDDING_ALL_REDUCE, 2, grads, 1, 1, ends,
                OverlapWindow.NONE);
        return gather == null ? List.of(sends, tied) : List.of(sends, gather, tied);
    }
}
