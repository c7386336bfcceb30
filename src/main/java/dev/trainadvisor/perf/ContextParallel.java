package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;

import java.util.List;

/**
 * Context parallelism: ring attention passes each rank's K and V around the group in forward, and K, V and their
 * gradients in backward (Megatron-Core context parallelism), behind the attention kernels.
 */
final class ContextParallel implements ParallelDimension {

    /** Each rank holds its part of the sequence. */
    @Override
    public double shards(MemoryPart part, Parallel p) { return part == MemoryPart.SEQUENCE ? p.cp() : 1; }

    @Override
    public List<CollectivePlan> collectives(StepContext s) {
        Parallel p = s.parallel();
        if (p.cp() <= 1) return List.of();
        Model m = s.model();
        LinkChoice link = s.topology().place(p.cp(), s.topology().cpStride());
        double kv = 2.0 * m.kvHeads() * m.headDim() / Math.min(p.tp(), m.kvHeads());
        // nccl-tests size: the gathered buffer
        double fullKv = (double) s.training().microBatchSize() * s.training().seqLen() * kv * 2;
        long passes = (long) Math.ceil(s.shard().layersPerStage()) * s.training().microBatches() * 3;   // 1 fwd + 2 bwd
        return List.of(new CollectivePlan(CollectiveOp.CP_KV_EXCHANGE, p.cp(), fullKv, passes, passes * (p.cp() - 1),
                link, OverlapWindow.ATTENTION, 1.0 / 3, false));
    }
}
