package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Parallel;

import java.util.List;

/**
 * Pipeline parallelism: each micro-batch's activations sent forward and their gradients back across every stage
 * boundary, once per virtual stage; sequence parallelism sends a tensor-parallel rank's share only. Its bubble is
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
        double act = s.tokensPerMicroBatch() * s.model().hidden() * 2 / (p.sequenceParallel() ? p.tp() : 1);
        long calls = 2L * s.training().microBatches() * p.virtualStages();
        boolean overlapped = p.virtualStages() > 1 && s.training().framework().overlapsInterleavedP2p();
        return List.of(new CollectivePlan(CollectiveOp.PP_SEND_RECV, 2, act, calls, calls, link,
                overlapped ? OverlapWindow.OTHER_MICRO_BATCH : OverlapWindow.NONE, 0.5, false));
    }
}
