package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Framework;
import dev.trainadvisor.spec.Parallel;

import java.util.ArrayList;
import java.util.List;

/**
 * Data parallelism with ZeRO, as the run's framework issues it (spec.Framework, knowledge-base/frameworks/): the
 * gradients all-reduced over the replicas, reduce-scattered to the ranks that own their shard (and all-reduced across
 * shard groups), or reduced to each owner in turn; once a step or after every micro-batch; hidden behind the last
 * backward, every backward or nothing. The updated parameters gathered after the optimizer step (ZeRO 1-2), by an
 * all-gather or by one broadcast from each owning rank, or every layer's parameters gathered before its forward and
 * its backward (ZeRO-3 / FSDP). A reduction overlapped with the backward lands in it; one that is not runs after the
 * last backward, beside the optimizer step, as does ZeRO's parameter gather.
 */
final class DataParallel implements ParallelDimension {

    /**
     * ZeRO's model states over the ZeRO group (Rajbhandari et al. 2019, section 3.1, figure 1): stage 1 shards the
     * optimizer's, stage 2 the gradients too, stage 3 the weights as well.
     */
    @Override
    public double shards(MemoryPart part, Parallel p) {
        return switch (part) {
            case EXPERT_WEIGHT_STATES -> stateShards(MemoryPart.WEIGHT_STATES, p.zeroStage(), expertShardGroup(p));
            case EXPERT_GRADIENT_STATES -> stateShards(MemoryPart.GRADIENT_STATES, p.zeroStage(), expertShardGroup(p));
            case EXPERT_OPTIMIZER_STATES -> stateShards(MemoryPart.OPTIMIZER_STATES, p.zeroStage(), expertShardGroup(p));
            default -> stateShards(part, p.zeroStage(), shardGroup(p));
        };
    }

    /**
     * The ranks that shard ZeRO's states of the experts: an expert's weights are not copied on every data-parallel
     * rank but on the expert-data-parallel ones, tp x cp x dp / (ep x etp) of them (MoE parallel folding: the experts
     * fold etp, ep and expert data parallelism over the same ranks), so ZeRO shards them over as many, a ZeRO group of
     * zero_group_size data-parallel ranks holding zero_group_size x tp x cp / (ep x etp). Megatron-Core's expert
     * gradient buffers and distributed optimizer use that group (intra_expt_dp_group:
     * megatron/core/distributed/distributed_data_parallel.py:286 and megatron/core/optimizer/__init__.py:1243 at
     * NVIDIA/Megatron-LM d98e8a6), as torchtitan's FSDP of the experts does (efsdp = dp_shard x cp x tp / ep,
     * torchtitan/distributed/parallel_dims.py:282 at b5bcd76). At least one: a group smaller than ep x etp keeps
     * each expert whole.
     */
    static int expertShardGroup(Parallel p) {
        long ranks = (long) p.zeroGroupSize() * p.cp() * p.tp(), experts = (long) p.ep() * p.etp();
        return (int) Math.max(1, ranks / experts);
    }

    /**
     * The ranks that shard ZeRO's states: the ZeRO group's data-parallel ranks with their context-parallel ranks, which
     * hold the same weights and so sum the same gradients. Megatron-Core's gradient buffers and distributed optimizer
     * use the data-and-context-parallel group (megatron/core/distributed/distributed_data_parallel.py:289,
     * intra_dp_cp_group; megatron/core/optimizer/__init__.py:1204, at NVIDIA/Megatron-LM d98e8a6), and torchtitan's
     * FSDP shards over dp_shard x cp ("fsdp: ... includes dp_shard and cp", torchtitan/distributed/parallel_dims.py:225-228
     * and 281 at pytorch/torchtitan b5bcd76): context-parallel ranks see other tokens of the same sequences, so their
     * weight gradients are summed with the data-parallel ones.
     */
    static int shardGroup(Parallel p) { return p.zeroGroupSize() * p.cp(); }

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
        // the replicas of the weights: every data-parallel rank with its context-parallel ranks (shardGroup)
        int cp = p.cp(), replicas = p.dp() * cp;
        if (replicas <= 1) return out;
        Topology topo = s.topology();
        Framework.Stage stage = s.training().framework().stage(p.zeroStage());
        int mb = s.training().microBatches();
        double psi = s.shard().paramsPerGpu();
        double grads = psi * s.training().gradReducePrecision().bytes;
        Framework.Sync g = stage.gradients();
        boolean every = reducesEveryMicroBatch(p, g);
        int perMb = every ? mb : 1;
        OverlapWindow window = window(g.window(p.overlapGradReduce()));
        // a reduction once a step hides behind the last backward only; one after every micro-batch behind each
        if (window == OverlapWindow.BACKWARD && !every) window = OverlapWindow.LAST_BACKWARD;
        if (window == OverlapWindow.LAST_BACKWARD && every) window = OverlapWindow.BACKWARD;
        Framework.Calls gradCalls = g.calls(p.overlapGradReduce());
        int zdp = p.zeroStage() == 0 ? p.dp() : p.zeroGroupSize(), z = zdp * cp;
        LinkChoice zLink = topo.place(cp, topo.cpStride(), zdp, topo.dpStride());
        if (p.zeroStage() == 0 || g.collective().value() == Framework.Kind.ALL_REDUCE) {
            // all gradients over every replica; a ZeRO owner then keeps its shard of the sum
            CollectiveOp op = p.zeroStage() == 0 ? CollectiveOp.DP_GRAD_ALL_REDUCE : CollectiveOp.ZERO_GRAD_ALL_REDUCE;
            out.add(CollectivePlan.gradientReduction(op, replicas, grads, calls(gradCalls, grads, p, s, replicas) * perMb,
                    perMb, topo.place(cp, topo.cpStride(), p.dp(), topo.dpStride()), window));
        } else {
            if (z > 1 && g.collective().value() == Framework.Kind.REDUCE) {
                // one reduce of each owner's shard to its owner: z calls of grads / z
                out.add(CollectivePlan.gradientReduction(CollectiveOp.ZERO_GRAD_REDUCE, z, grads / z,
                        calls(gradCalls, grads, p, s, z) * perMb, (long) perMb * z, zLink, window));
            } else if (z > 1) {
                out.add(CollectivePlan.gradientReduction(CollectiveOp.ZERO_GRAD_REDUCE_SCATTER, z, grads,
                        calls(gradCalls, grads, p, s, z) * perMb, perMb, zLink, window));
            }
            int groups = p.dp() / zdp;
            if (groups > 1) {
                LinkChoice rLink = topo.place(groups, topo.dpStride() * zdp);
                out.add(CollectivePlan.gradientReduction(CollectiveOp.ZERO_REPLICA_GRAD_ALL_REDUCE, groups, grads / z,
                        calls(gradCalls, grads / z, p, s, groups) * perMb, perMb, rLink, window));
            }
        }
        Framework.Sync ps = stage.parameters();
        if (ps == null || z <= 1 || p.zeroStage() == 0) return out;
        double params = psi * ps.dtype().value().of(s.training().precision()).bytes;
        if (!ps.everyMicroBatch().value()) {
            // ZeRO 1-2: the updated parameters, once a step after the optimizer
            OverlapWindow gather = window(ps.window(p.overlapParamGather()));
            Framework.Calls c = ps.calls(p.overlapParamGather());
            if (ps.collective().value() == Framework.Kind.BROADCAST) {
                out.add(new CollectivePlan(CollectiveOp.ZERO_PARAM_BROADCAST, z, params / z, z,
                        Math.max(z, calls(c, params, p, s, z)), zLink, gather, 1.0, gather == OverlapWindow.NONE));
            } else {
                out.add(new CollectivePlan(CollectiveOp.ZERO_PARAM_ALL_GATHER, z, params, 1, calls(c, params, p, s, z), zLink,
                        gather, 1.0, gather == OverlapWindow.NONE));
            }
        } else {
            // FSDP / ZeRO-3: gather every layer before its forward and, unless the framework keeps it, again before its
            // backward, prefetching the next layer's gather behind the current layer's compute
            long calls = calls(ps.calls(true), params, p, s, z) * mb;
            out.add(new CollectivePlan(CollectiveOp.FSDP_FORWARD_ALL_GATHER, z, params, mb, calls, zLink,
                    window(ps.window(true)), 1.0, false));
            if (ps.regathersForBackward())
                out.add(new CollectivePlan(CollectiveOp.FSDP_BACKWARD_ALL_GATHER, z, params, mb, calls, zLink,
                        OverlapWindow.BACKWARD, 0.0, false));
        }
        return out;
    }

    /**
     * FSDP2's copies around its collectives (Framework.Sync copies), timed on one H100 SXM with torch 2.11.0
     * (bench/h100_nvlink_interference.py, knowledge-base/measurements/h100-nvlink-interference.json, part fsdp2: the
     * parameter and gradient sizes of one layer of OLMo 2 13B and of Llama 2 7B, world size 8), bytes read and written
     * over time against the H100 SXM's datasheet 3,350 GB/s (knowledge-base/gpus.json): the all-gather's copy-out
     * (torch.split_with_sizes_copy) 2,731.8 and 2,693.8 GB/s; the reduce-scatter's copy-in (torch._chunk_cat into its
     * input) 2,708.6 and 2,659.2 GB/s in the gradients' own dtype, 1,878.0 and 1,867.5 GB/s cast to fp32 (a
     * device-to-device copy of 1 GiB ran at 2,998.8). Taken as the same share of any GPU's HBM rate. Inside a real
     * step (bench/h100_fsdp2_step_copies.py, knowledge-base/measurements/h100-fsdp2-step-copies.json: four fully_shard
     * blocks of OLMo 2 13B's shape, 4 micro-batches, one H100, world size 1) the copy-in's chunk_cat kernels took 16.6
     * ms a step with an fp32 reduction and 7.3 ms with a bf16 one, against 16.3 and 7.6 ms by these rates; at world
     * size 1 the gather's copy-out runs as device-to-device copies beside the one-rank all-gather's own (27.1 ms
     * together, this copy-out alone 15.0 ms by the rate above).
     */
    static final double COPY_OUT_OF_HBM = (2731.8 + 2693.8) / 2 / 3350;
    static final double COPY_IN_OF_HBM = (2708.6 + 2659.2) / 2 / 3350;
    static final double COPY_IN_CAST_OF_HBM = (1878.0 + 1867.5) / 2 / 3350;

    /**
     * The seconds a step spends on the framework's copies around its ZeRO-3 collectives, on the compute stream (Phase
     * ZERO_COPIES), where its profile says it copies (Framework.Sync#copiesBuffer: FSDP2). Before each gather's unit
     * runs, the gathered parameters are copied out of the all-gather's buffer, read and written: 2 x the unsharded
     * parameters' bytes, at every gather (the forward's and, resharded after it, the backward's) of every micro-batch.
     * Before each reduce-scatter, the unsharded gradients (16-bit, as the parameters compute: fp32 for fp32 ones) are
     * copied into its input in the reduce dtype, read and written: their bytes and the reduce dtype's, at every
     * reduction (every micro-batch, or once a step where the run syncs the last only). Nothing where ZeRO shards over
     * one rank.
     */
    static double copySeconds(StepContext s) {
        Parallel p = s.parallel();
        if (p.zeroStage() != 3 || shardGroup(p) <= 1) return 0;
        Framework.Stage stage = s.training().framework().stage(3);
        int mb = s.training().microBatches();
        double psi = s.shard().paramsPerGpu();
        double hbm = s.cluster().gpu().hbmGbps() * 1e9;
        double seconds = 0;
        Framework.Sync ps = stage.parameters();
        double paramBytes = ps == null ? s.training().precision().bytes
                : ps.dtype().value().of(s.training().precision()).bytes;
        if (ps != null && ps.copiesBuffer() && ps.everyMicroBatch().value()) {
            int passes = ps.regathersForBackward() ? 2 : 1;
            seconds += (double) mb * passes * 2 * psi * paramBytes / (hbm * COPY_OUT_OF_HBM);
        }
        Framework.Sync g = stage.gradients();
        if (g.copiesBuffer() && g.collective().value() == Framework.Kind.REDUCE_SCATTER) {
            boolean every = reducesEveryMicroBatch(p, g);
            double gradBytes = Math.max(2, paramBytes), reduceBytes = s.training().gradReducePrecision().bytes;
            double rate = hbm * (reduceBytes > gradBytes ? COPY_IN_CAST_OF_HBM : COPY_IN_OF_HBM);
            seconds += (every ? mb : 1) * psi * (gradBytes + reduceBytes) / rate;
        }
        return seconds;
    }

    /** Whether the gradients are reduced after every micro-batch: as the run says, else as its framework does. */
    static boolean reducesEveryMicroBatch(Parallel p, Framework.Sync gradients) {
        return p.gradReduceEveryMicroBatch() != null ? p.gradReduceEveryMicroBatch() : gradients.everyMicroBatch().value();
    }

    /** The step model's window for a framework's overlap. */
    static OverlapWindow window(Framework.Overlap o) {
        return switch (o) {
            case BACKWARD -> OverlapWindow.BACKWARD;
            case LAST_BACKWARD -> OverlapWindow.LAST_BACKWARD;
            case FIRST_FORWARD -> OverlapWindow.FIRST_FORWARD;
            case FORWARD -> OverlapWindow.FORWARD;
            case NONE -> OverlapWindow.NONE;
        };
    }

    /**
     * Calls of one pass over {@code bytes}: per bucket of the run's bucket size (parallel.bucket_mb; larger ones cut
     * the alpha term), per wrapped unit (a layer), per owning rank of a group of {@code n}, or one.
     */
    static long calls(Framework.Calls c, double bytes, Parallel p, StepContext s, int n) {
        return switch (c) {
            case BUCKET -> Math.max(1, (long) Math.ceil(bytes / (p.bucketMb() * 1e6)));
            case PER_LAYER -> s.model().layers();
            case PER_RANK -> n;
            case ONE -> 1;
        };
    }
}
