package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.Training;

import java.util.ArrayList;
import java.util.LinkedHashMap;
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

    static final String FORWARD = "forward";
    static final String BACKWARD = "backward";
    static final String LAST_BACKWARD = "last-backward";
    static final String FIRST_FORWARD = "first-forward";
    static final String ATTENTION = "attention";
    static final String GEMMS = "gemms";
    static final String NONE = "none";

    private CommModel() {}

    /** Windows of compute a collective can hide behind, in seconds. */
    record Windows(double forward, double backward, double lastBackward, double firstForward, double attention,
                   double gemms) {
        double of(String name) {
            return switch (name) {
                case FORWARD -> forward;
                case BACKWARD -> backward;
                case LAST_BACKWARD -> lastBackward;
                case FIRST_FORWARD -> firstForward;
                case ATTENTION -> attention;
                case GEMMS -> gemms;
                default -> 0;
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

        // ---- data parallel: gradients and (ZeRO) parameters
        if (p.dp() > 1) {
            LinkChoice dpLink = topo.place(p.dp(), topo.dpStride());
            double grads = psi * gradBytes;
            String gradWindow = p.overlapGradReduce() ? LAST_BACKWARD : NONE;
            switch (p.zeroStage()) {
                case 0 -> out.add(new Pending("dp-grad-all-reduce", CollectiveKind.ALL_REDUCE, "dp", p.dp(),
                        grads, buckets(grads), dpLink, gradWindow));
                case 1, 2, 3 -> {
                    int z = p.zeroGroupSize();
                    LinkChoice zLink = topo.place(z, topo.dpStride());
                    int perMb = p.zeroStage() == 1 ? 1 : mb;   // ZeRO-2/3 reduce-scatter every micro-batch
                    String window = p.zeroStage() == 1 ? gradWindow : (p.overlapGradReduce() ? BACKWARD : NONE);
                    if (z > 1) out.add(new Pending("zero-grad-reduce-scatter", CollectiveKind.REDUCE_SCATTER, "zero", z,
                            grads, buckets(grads) * perMb, zLink, window, perMb));
                    int replicas = p.dp() / z;
                    if (replicas > 1) {
                        LinkChoice rLink = topo.place(replicas, topo.dpStride() * z);
                        out.add(new Pending("zero-replica-grad-all-reduce", CollectiveKind.ALL_REDUCE, "zero-replica",
                                replicas, grads / z, buckets(grads / z) * perMb, rLink, window, perMb));
                    }
                    double params = psi * paramBytes;
                    if (z > 1 && p.zeroStage() < 3) {
                        out.add(new Pending("zero-param-all-gather", CollectiveKind.ALL_GATHER, "zero", z, params,
                                buckets(params), zLink, p.overlapParamGather() ? FIRST_FORWARD : NONE));
                    } else if (z > 1) {
                        // FSDP / ZeRO-3: gather every layer before its forward and again before its backward,
                        // prefetching the next layer's gather behind the current layer's compute
                        out.add(new Pending("fsdp-forward-all-gather", CollectiveKind.ALL_GATHER, "zero", z, params,
                                (long) m.layers() * mb, zLink, FORWARD, mb));
                        out.add(new Pending("fsdp-backward-all-gather", CollectiveKind.ALL_GATHER, "zero", z, params,
                                (long) m.layers() * mb, zLink, BACKWARD, mb));
                    }
                }
                default -> throw new IllegalStateException("zero stage " + p.zeroStage());
            }
        }

        // ---- tensor parallel: per layer, two collectives in forward and two in backward (Megatron's f and g)
        if (p.tp() > 1) {
            LinkChoice tpLink = topo.place(p.tp(), topo.tpStride());
            double act = compute.tokensPerMicroBatch() * m.hidden() * 2;
            // a recomputed layer runs its forward collectives again
            long calls = Math.round(Math.ceil(shard.layersPerStage()) * (4 + 2 * t.fullRecomputeShare()) * mb);
            // with --tp-comm-overlap the collectives are split into chunks pipelined with the GEMMs around them
            String window = p.overlapTpComm() ? GEMMS : NONE;
            if (p.sequenceParallel()) {
                out.add(new Pending("tp-all-gather", CollectiveKind.ALL_GATHER, "tp", p.tp(), act, calls, tpLink, window, calls));
                out.add(new Pending("tp-reduce-scatter", CollectiveKind.REDUCE_SCATTER, "tp", p.tp(), act, calls, tpLink,
                        window, calls));
            } else {
                out.add(new Pending("tp-all-reduce", CollectiveKind.ALL_REDUCE, "tp", p.tp(), act, calls, tpLink, window, calls));
            }
        }

        // ---- pipeline: activations forward and gradients backward across each stage boundary
        if (p.pp() > 1) {
            LinkChoice ppLink = topo.place(2, topo.ppStride());
            double act = compute.tokensPerMicroBatch() * m.hidden() * 2 / (p.sequenceParallel() ? p.tp() : 1);
            long calls = 2L * mb * p.virtualStages();
            out.add(new Pending("pp-send-recv", CollectiveKind.SEND_RECV, "pp", 2, act, calls, ppLink, NONE, calls));
        }

        // ---- context parallel: ring attention passes each rank's K and V around the CP group in forward, and
        // K, V and their gradients in backward (Megatron-Core context parallelism), behind the attention kernels
        if (p.cp() > 1) {
            LinkChoice cpLink = topo.place(p.cp(), topo.cpStride());
            double kv = 2.0 * m.kvHeads() * m.headDim() / Math.min(p.tp(), m.kvHeads());
            double fullKv = (double) t.microBatchSize() * t.seqLen() * kv * 2;   // nccl-tests size: the gathered buffer
            long passes = (long) Math.ceil(shard.layersPerStage()) * mb * 3;      // 1 forward + 2 backward
            out.add(new Pending("cp-kv-exchange", CollectiveKind.ALL_GATHER, "cp", p.cp(), fullKv,
                    passes * (p.cp() - 1), cpLink, ATTENTION, passes));
        }

        // ---- expert parallel: tokens to their top-k experts and back (dispatch and combine), forward and backward
        if (m.isMoe() && p.ep() > 1) {
            LinkChoice epLink = topo.place(p.ep(), topo.dpStride());
            double routed = compute.tokensPerMicroBatch() * m.moe().topK() * m.hidden() * 2;
            double moeLayersPerStage = (double) m.moeLayers() / p.pp();
            long passes = (long) Math.ceil(moeLayersPerStage * mb * 4);
            out.add(new Pending("ep-all-to-all", CollectiveKind.ALL_TO_ALL, "ep", p.ep(), routed, passes, epLink, NONE, passes));
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
     * @param calls        calls that each pay the latency alpha (buckets of a gradient reduction, one per layer for TP)
     * @param multiplicity how many times the full buffer moves per step
     */
    private record Pending(String name, CollectiveKind kind, String group, int n, double bytesPerPass, long calls,
                           LinkChoice link, String window, long multiplicity) {
        Pending(String name, CollectiveKind kind, String group, int n, double bytes, long alphaCalls, LinkChoice link,
                String window) {
            this(name, kind, group, n, bytes, alphaCalls, link, window, 1);
        }

        double seconds() {
            double bw = link.busbwGbps() * 1e9;
            double transfer = Double.isInfinite(bw) ? 0 : kind.factor(n) * bytesPerPass * multiplicity / bw;
            return calls * link.alphaUs() * 1e-6 + transfer;
        }
    }

    private static long buckets(double bytes) { return Math.max(1, (long) Math.ceil(bytes / BUCKET_BYTES)); }

    /**
     * Collectives sharing a window hide together behind {@code overlap * window}; what does not fit is
     * exposed, shared in proportion to each one's time.
     */
    private static List<Collective> overlap(List<Pending> pending, Windows w, double overlapFraction) {
        Map<String, Double> demand = new LinkedHashMap<>();
        for (Pending p : pending) demand.merge(p.window(), p.seconds(), Double::sum);
        List<Collective> out = new ArrayList<>();
        for (Pending p : pending) {
            double s = p.seconds();
            double exposed = s;
            if (!NONE.equals(p.window()) && s > 0) {
                double total = demand.get(p.window());
                double hidden = Math.min(total, overlapFraction * w.of(p.window()));
                exposed = s * (1 - hidden / total);
            }
            out.add(new Collective(p.name(), p.kind(), p.group(), p.n(), p.bytesPerPass(),
                    p.multiplicity(), p.link(), s, exposed, p.window()));
        }
        return out;
    }
}
