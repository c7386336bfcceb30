package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Parallel;

import java.util.ArrayList;
import java.util.List;

/**
 * Data parallelism with ZeRO: gradients reduced over the replicas (all-reduced, or reduce-scattered to the ranks that
 * own their shard and all-reduced across shard groups), updated parameters gathered after the optimizer step (ZeRO
 * 1-2), or every layer's parameters gathered before its forward and its backward (ZeRO-3 / FSDP). A reduction
 * overlapped with the backward lands in it; one that is not runs after the last backward, beside the optimizer step,
 * as does ZeRO's parameter gather.
 */
final class DataParallel implements ParallelDimension {

    /**
     * ZeRO's model states over the ZeRO group (Rajbhandari et al. 2019, section 3.1, figure 1): stage 1 shards the
     * optimizer's, stage 2 the gradients too, stage 3 the weights as well.
     */
    @Override
    public double shards(MemoryPart part, Parallel p) { return stateShards(part, p.zeroStage(), p.zeroGroupSize()); }

    static double stateShards(MemoryPart part, int zeroStage, int zeroGroup) {
        return switch (part) {
            case OPTIMIZER_STATES -> zeroStage >= 1 ? zeroGroup : 1;
            case GRADIENT_STATES -> zeroStage >= 2 ? zeroGroup : 1;
            case WEIGHT_STATES -> zeroStage >= 3 ? zeroGroup : 1;
            default -> 1;
        };
    }


    @Override
    public List<CollectivePlan> collectives(StepContext s) {
        Parallel p = s.parallel();
        List<CollectivePlan> out = new ArrayList<>();
        if (p.dp() <= 1) return out;
        Topology topo = s.topology();
        int mb = s.training().microBatches();
        double psi = s.shard().paramsPerGpu();
        double grads = psi * s.training().gradReducePrecision().bytes;
        LinkChoice dpLink = topo.place(p.dp(), topo.dpStride());
        OverlapWindow gradWindow = p.overlapGradReduce() ? OverlapWindow.LAST_BACKWARD : OverlapWindow.NONE;
        if (p.zeroStage() == 0) {
            out.add(CollectivePlan.gradientReduction(CollectiveOp.DP_GRAD_ALL_REDUCE, p.dp(), grads, buckets(grads, p), 1,
                    dpLink, gradWindow));
            return out;
        }
        int z = p.zeroGroupSize();
        LinkChoice zLink = topo.place(z, topo.dpStride());
        int perMb = p.zeroStage() == 1 ? 1 : mb;   // ZeRO-2/3 reduce-scatter every micro-batch
        OverlapWindow window = p.zeroStage() == 1 ? gradWindow
                : (p.overlapGradReduce() ? OverlapWindow.BACKWARD : OverlapWindow.NONE);
        if (z > 1) out.add(CollectivePlan.gradientReduction(CollectiveOp.ZERO_GRAD_REDUCE_SCATTER, z, grads,
                buckets(grads, p) * perMb, perMb, zLink, window));
        int replicas = p.dp() / z;
        if (replicas > 1) {
            LinkChoice rLink = topo.place(replicas, topo.dpStride() * z);
            out.add(CollectivePlan.gradientReduction(CollectiveOp.ZERO_REPLICA_GRAD_ALL_REDUCE, replicas, grads / z,
                    buckets(grads / z, p) * perMb, perMb, rLink, window));
        }
        double params = psi * s.elementBytes();
        if (z > 1 && p.zeroStage() < 3) {
            OverlapWindow gather = p.overlapParamGather() ? OverlapWindow.FIRST_FORWARD : OverlapWindow.NONE;
            out.add(new CollectivePlan(CollectiveOp.ZERO_PARAM_ALL_GATHER, z, params, 1, buckets(params, p), zLink,
                    gather, 1.0, gather == OverlapWindow.NONE));
        } else if (z > 1) {
            // FSDP / ZeRO-3: gather every layer before its forward and again before its backward, prefetching the
            // next layer's gather behind the current layer's compute
            long calls = (long) s.model().layers() * mb;
            out.add(new CollectivePlan(CollectiveOp.FSDP_FORWARD_ALL_GATHER, z, params, mb, calls, zLink,
                    OverlapWindow.FORWARD, 1.0, false));
            out.add(new CollectivePlan(CollectiveOp.FSDP_BACKWARD_ALL_GATHER, z, params, mb, calls, zLink,
                    OverlapWindow.BACKWARD, 0.0, false));
        }
        return out;
    }

    /** Calls of a bucketed reduction or gather: the run's bucket size (parallel.bucket_mb); larger ones cut the alpha term. */
    private static long buckets(double bytes, Parallel p) { return Math.max(1, (long) Math.ceil(bytes / (p.bucketMb() * 1e6))); }
}
