package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;

import java.util.List;

/**
 * Expert parallelism: every MoE layer sends each token to its top-k experts and back (dispatch and combine), in the
 * forward and again in the backward, as all-to-alls over the expert-parallel group.
 */
final class ExpertParallel implements ParallelDimension {

    /** Each rank holds its experts. */
    @Override
    public double shards(MemoryPart part, Parallel p) { return part == MemoryPart.EXPERT_WEIGHTS ? p.ep() : 1; }

    @Override
    public List<CollectivePlan> collectives(StepContext s) {
        Model m = s.model();
        Parallel p = s.parallel();
        if (!m.isMoe() || p.ep() <= 1) return List.of();
        LinkChoice link = s.topology().place(p.ep(), s.topology().dpStride());
        double routed = s.tokensPerMicroBatch() * m.moe().topK() * m.hidden() * 2;
        double moeLayersPerStage = (double) m.moeLayers() / p.pp();
        long passes = (long) Math.ceil(moeLayersPerStage * s.training().microBatches() * 4);
        return List.of(new CollectivePlan(CollectiveOp.EP_ALL_TO_ALL, p.ep(), routed, passes, passes, link,
                OverlapWindow.NONE, 0.5, false));
    }
}
