package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.Training;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The collectives of one optimizer step, each placed on the topology and timed as
 * {@code calls * alpha + factor * bytes / busbw}, then overlapped with the compute window the
 * framework overlaps it with.
 */
public final class CommModel {
    /** Gradient buckets: PyTorch DDP's default bucket_cap_mb is 25 MB; larger buckets only cut the alpha term. */
    static final double BUCKET_BYTES = 25e6;

    private CommModel() {}

    /** Windows of compute a collective can hide behind, in seconds. */
    record Windows(double forward, double backward, double lastBackward, double firstForward, double attention,
                   double gemms) {
        double of(OverlapWindow w) {
            return switch (w) {
                case FORWARD -> forward;
                case BACKWARD -> backward;
                case LAST_BACKWARD -> lastBackward;
                case FIRST_FORWARD -> firstForward;
                case ATTENTION -> attention;
                case GEMMS -> gemms;
                case NONE -> 0;
            };
        }
    }

    public static List<Collective> of(Cluster c, Model m, Parallel p, Training t, ComputeTime compute,
                                      Efficiency eff) {
        Topology topo = new Topology(c, p);
        Shard shard = Shard.of(m, p);
        double psi = shard.paramsPerGpu();
        int mb = t.microBatches();
        double paramBytes = t.precision() == Precision.FP32 ? 4 : 2;
        double gradBytes = t.gradReducePrecision().bytes;
        List<Pending> out = new ArrayList<>();

        // ---- data parallel: gradients and (ZeRO) parameters. A reduction overlapped with the backward lands in it;
        // one that is not runs after the last backward, beside the optimizer step, as does ZeRO's parameter gather
        if (p.dp() > 1) {
            LinkChoice dpLink = topo.place(p.dp(), topo.dpStride());
            double grads = psi * gradBytes;
            OverlapWindow gradWindow = p.overlapGradReduce() ? OverlapWindow.LAST_BACKWARD : OverlapWindow.NONE;
            switch (p.zeroStage()) {
                case 0 -> out.add(Pending.dataParallel(CollectiveOp.DP_GRAD_ALL_REDUCE, p.dp(), grads, buckets(grads), 1,
                        dpLink, gradWindow));
                case 1, 2, 3 -> {
                    int z = p.zeroGroupSize();
                    LinkChoice zLink = topo.place(z, topo.dpStride());
                    int perMb = p.zeroStage() == 1 ? 1 : mb;   // ZeRO-2/3 reduce-scatter every micro-batch
                    OverlapWindow window = p.zeroStage() == 1 ? gradWindow
                            : (p.overlapGradReduce() ? OverlapWindow.BACKWARD : OverlapWindow.NONE);
                    if (z > 1) out.add(Pending.dataParallel(CollectiveOp.ZERO_GRAD_REDUCE_SCATTER, z, grads,
                            buckets(grads) * perMb, perMb, zLink, window));
                    int replicas = p.dp() / z;
                    if (replicas > 1) {
                        LinkChoice rLink = topo.place(replicas, topo.dpStride() * z);
                        out.add(Pending.dataParallel(CollectiveOp.ZERO_REPLICA_GRAD_ALL_REDUCE, replicas, grads / z,
                                buckets(grads / z) * perMb, perMb, rLink, window));
                    }
                    double params = psi * paramBytes;
                    if (z > 1 && p.zeroStage() < 3) {
                        OverlapWindow gather = p.overlapParamGather() ? OverlapWindow.FIRST_FORWARD : OverlapWindow.NONE;
                        out.add(new Pending(CollectiveOp.ZERO_PARAM_ALL_GATHER, z, params, 1, buckets(params), zLink,
                                gather, 1.0, gather == OverlapWindow.NONE));
                    } else if (z > 1) {
                        // FSDP / ZeRO-3: gather every layer before its forward and again before its backward,
                        // prefetching the next layer's gather behind the current layer's compute
                        out.add(new Pending(CollectiveOp.FSDP_FORWARD_ALL_GATHER, z, params, mb, (long) m.layers() * mb,
                                zLink, OverlapWindow.FORWARD, 1.0, false));
                        out.add(new Pending(CollectiveOp.FSDP_BACKWARD_ALL_GATHER, z, params, mb, (long) m.layers() * mb,
                                zLink, OverlapWindow.BACKWARD, 0.0, false));
                    }
                }
                default -> throw new IllegalStateException("zero stage " + p.zeroStage());
            }
        }

        // ---- tensor parallel: per layer, two collectives in forward and two in backward (Megatron's f and g)
        if (p.tp() > 1) {
            LinkChoice tpLink = topo.place(p.tp(), topo.tpStride());
            double act = compute.tokensPerMicroBatch() * m.hidden() * 2;
            // a recomputed layer runs its forward collectives again, in the backward
            double perLayer = 4 + 2 * t.fullRecomputeShare();
            long calls = Math.round(Math.ceil(shard.layersPerStage()) * perLayer * mb);
            // with --tp-comm-overlap the collectives are split into chunks pipelined with the GEMMs around them
            OverlapWindow window = p.overlapTpComm() ? OverlapWindow.GEMMS : OverlapWindow.NONE;
            double forward = 2 / perLayer;
            if (p.sequenceParallel()) {
                out.add(new Pending(CollectiveOp.TP_ALL_GATHER, p.tp(), act, calls, calls, tpLink, window, forward, false));
                out.add(new Pending(CollectiveOp.TP_REDUCE_SCATTER, p.tp(), act, calls, calls, tpLink, window, forward, false));
            } else {
                out.add(new Pending(CollectiveOp.TP_ALL_REDUCE, p.tp(), act, calls, calls, tpLink, window, forward, false));
            }
        }

        // ---- pipeline: activations forward and gradients backward across each stage boundary
        if (p.pp() > 1) {
            LinkChoice ppLink = topo.place(2, topo.ppStride());
            double act = compute.tokensPerMicroBatch() * m.hidden() * 2 / (p.sequenceParallel() ? p.tp() : 1);
            long calls = 2L * mb * p.virtualStages();
            out.add(new Pending(CollectiveOp.PP_SEND_RECV, 2, act, calls, calls, ppLink, OverlapWindow.NONE, 0.5, false));
        }

        // ---- context parallel: ring attention passes each rank's K and V around the CP group in forward, and
        // K, V and their gradients in backward (Megatron-Core context parallelism), behind the attention kernels
        if (p.cp() > 1) {
            LinkChoice cpLink = topo.place(p.cp(), topo.cpStride());
            double kv = 2.0 * m.kvHeads() * m.headDim() / Math.min(p.tp(), m.kvHeads());
            double fullKv = (double) t.microBatchSize() * t.seqLen() * kv * 2;   // nccl-tests size: the gathered buffer
            long passes = (long) Math.ceil(shard.layersPerStage()) * mb * 3;      // 1 forward + 2 backward
            out.add(new Pending(CollectiveOp.CP_KV_EXCHANGE, p.cp(), fullKv, passes, passes * (p.cp() - 1), cpLink,
                    OverlapWindow.ATTENTION, 1.0 / 3, false));
        }

        // ---- expert parallel: tokens to their top-k experts and back (dispatch and combine), forward and backward
        if (m.isMoe() && p.ep() > 1) {
            LinkChoice epLink = topo.place(p.ep(), topo.dpStride());
            double routed = compute.tokensPerMicroBatch() * m.moe().topK() * m.hidden() * 2;
            double moeLayersPerStage = (double) m.moeLayers() / p.pp();
            long passes = (long) Math.ceil(moeLayersPerStage * mb * 4);
            out.add(new Pending(CollectiveOp.EP_ALL_TO_ALL, p.ep(), routed, passes, passes, epLink, OverlapWindow.NONE,
                    0.5, false));
        }

        Windows w = new Windows(mb * compute.forwardSeconds(), mb * compute.backwardSeconds(),
                compute.backwardSeconds(), compute.forwardSeconds(), mb * compute.attentionSeconds(),
                mb * compute.gemmSeconds());
        return overlap(out, w, eff.overlapFraction());
    }

    /**
     * One collective before overlap.
     *
     * @param bytesPerPass nccl-tests size of one pass over the buffer (all gradients, one layer's activations)
     * @param multiplicity how many times the full buffer moves per step
     * @param calls        calls that each pay the latency alpha (buckets of a gradient reduction, one per layer for TP)
     */
    private record Pending(CollectiveOp op, int n, double bytesPerPass, long multiplicity, long calls, LinkChoice link,
                           OverlapWindow window, double forwardShare, boolean afterBackward) {

        /** A gradient reduction: in the backward when overlapped with it, after the last backward when not. */
        static Pending dataParallel(CollectiveOp op, int n, double bytes, long calls, long multiplicity, LinkChoice link,
                                    OverlapWindow window) {
            return new Pending(op, n, bytes, multiplicity, calls, link, window, 0.0, window == OverlapWindow.NONE);
        }

        double seconds() {
            double bw = link.busbwGbps() * 1e9;
            double transfer = Double.isInfinite(bw) ? 0 : op.kind().factor(n) * bytesPerPass * multiplicity / bw;
            return calls * link.alphaUs() * 1e-6 + transfer;
        }
    }

    private static long buckets(double bytes) { return Math.max(1, (long) Math.ceil(bytes / BUCKET_BYTES)); }

    /**
     * Collectives sharing a window hide together behind {@code overlap * window}; what does not fit is
     * exposed, shared in proportion to each one's time. A collective whose transport slows the compute beside it
     * (interference i, knowledge-base/transports.json) hides only {@code hidden / (1 + i)}: while it runs, the
     * window's compute advances at 1 / (1 + i) of its pace, so the window lasts {@code hidden x i / (1 + i)} longer.
     */
    private static List<Collective> overlap(List<Pending> pending, Windows w, double overlapFraction) {
        Map<OverlapWindow, Double> demand = new EnumMap<>(OverlapWindow.class);
        for (Pending p : pending) demand.merge(p.window(), p.seconds(), Double::sum);
        List<Collective> out = new ArrayList<>();
        for (Pending p : pending) {
            double s = p.seconds();
            double exposed = s;
            if (p.window() != OverlapWindow.NONE && s > 0) {
                double total = demand.get(p.window());
                double hidden = s * Math.min(total, overlapFraction * w.of(p.window())) / total;
                exposed = s - hidden / (1 + p.link().interference());
            }
            out.add(new Collective(p.op(), p.n(), p.bytesPerPass(), p.multiplicity(), p.calls(), p.link(), s, exposed,
                    p.window(), p.forwardShare(), p.afterBackward()));
        }
        return out;
    }
}
