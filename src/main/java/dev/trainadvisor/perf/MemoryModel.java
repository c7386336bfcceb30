package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Training;

import java.util.List;

/**
 * Peak memory per GPU: model states per ZeRO stage (Rajbhandari et al. 2019, section 3.1 and
 * figure 1: 2 bytes of 16-bit weights, the gradient bytes, and K = 12 bytes of fp32 master
 * weights, momentum and variance per parameter; stage 1 shards the 12, stage 2 the gradients too,
 * stage 3 everything over the ZeRO group), activations per layer (Korthikanti et al. 2022) for the
 * micro-batches a pipeline stage keeps in flight, the logits, and fixed buffers.
 */
public final class MemoryModel {
    /** Adam with fp32 master weights, momentum and variance (ZeRO paper's K). */
    public static final double OPTIMIZER_BYTES_PER_PARAM = 12;

    /**
     * CUDA context, cuBLAS workspaces, NCCL buffers and allocator fragmentation. PyTorch's CUDA context
     * alone takes about 0.3-0.5 GB per process (PyTorch "CUDA semantics" notes); we reserve 2 GB in all.
     */
    public static final double BUFFERS_GB = 2.0;

    private MemoryModel() {}

    /** The eager attention's fp32 softmax output kept beside the 4 bytes a score the activation count has. */
    static final double EAGER_EXTRA_BYTES_PER_SCORE = 2;

    public static MemoryEstimate of(Cluster c, Model m, Parallel p, Training t) {
        return of(ParallelDimension.SHIPPED, c, m, p, t);
    }

    /**
     * Memory with {@code dimensions} dividing its parts ({@link ParallelDimension#shards}); which pipeline stage holds
     * the embedding and the head, and how many micro-batches a stage keeps in flight, are the 1F1B schedule's.
     */
    static MemoryEstimate of(List<ParallelDimension> dimensions, Cluster c, Model m, Parallel p, Training t) {
        return of(Sharding.of(dimensions, p), c, m, p, t);
    }

    static MemoryEstimate of(Sharding sh, Cluster c, Model m, Parallel p, Training t) {
        return of(sh, c.gpu().hbmGb(), m, p, t);
    }

    /** As {@link #of(Sharding, Cluster, Model, Parallel, Training)}: of the cluster only its GPU's memory counts. */
    static MemoryEstimate of(Sharding sh, double capacityGb, Model m, Parallel p, Training t) {
        Params.LayerSums sums = Params.layerSums(m);
        double experts = sums.experts() / sh.divisor(MemoryPart.EXPERT_WEIGHTS);
        double layerParams = sums.dense() / sh.divisor(MemoryPart.LAYER_WEIGHTS) + experts;
        double emb = Params.embedding(m) / sh.divisor(MemoryPart.VOCABULARY);
        java.util.List<MemoryEstimate.Stage> stages = new java.util.ArrayList<>();
        for (int s = 0; s < p.pp(); s++) {
            boolean first = s == 0, last = s == p.pp() - 1;
            // the last stage holds the output head; with tied embeddings Megatron keeps a copy of the embedding there
            double psi = layerParams + (first ? emb : 0) + (last && (!first || !m.tiedEmbeddings()) ? emb + m.hidden() : 0);
            // 1F1B: stage s holds pp - s micro-batches in flight (Narayanan et al. 2021, section 2.2.1)
            stages.add(stage(s, psi, experts, Math.min(t.microBatches(), p.pp() - s), last, m, p, t, sh));
        }
        MemoryEstimate.Stage peak = stages.get(0);
        for (MemoryEstimate.Stage st : stages) if (st.totalGb() > peak.totalGb()) peak = st;
        return new MemoryEstimate(peak.weightsGb(), peak.gradientsGb(), peak.optimizerGb(), peak.activationsGb(),
                peak.logitsGb(), peak.buffersGb(), capacityGb, stages, peak.hostGb());
    }

    /** Model states for {@code psi} parameters on this GPU; exposed for the ZeRO paper's worked example. */
    public static double[] modelStatesBytes(double psi, int zeroStage, int zeroGroup, double weightBytes,
                                            double gradBytes) {
        return new double[]{weightBytes * psi / DataParallel.stateShards(MemoryPart.WEIGHT_STATES, zeroStage, zeroGroup),
                gradBytes * psi / DataParallel.stateShards(MemoryPart.GRADIENT_STATES, zeroStage, zeroGroup),
                OPTIMIZER_BYTES_PER_PARAM * psi / DataParallel.stateShards(MemoryPart.OPTIMIZER_STATES, zeroStage, zeroGroup)};
    }

    static MemoryEstimate.Stage stage(int index, double psi, double experts, int inFlight, boolean last, Model m, Parallel p,
                                      Training t, Sharding sh) {
        double weightBytes = t.precision() == Precision.FP32 ? 4 : 2;
        double gradBytes = t.gradReducePrecision().bytes;
        // ZeRO shards the dense parameters' states over the data-parallel ranks, the experts' over their own copies
        double[] states = {weightBytes * sh.stateShare(MemoryPart.WEIGHT_STATES, psi, experts),
                gradBytes * sh.stateShare(MemoryPart.GRADIENT_STATES, psi, experts),
                OPTIMIZER_BYTES_PER_PARAM * sh.stateShare(MemoryPart.OPTIMIZER_STATES, psi, experts)};
        // ZeRO-3 gathers a layer's full weights before using it and prefetches the next: two layers' worth
        double gatherBuffer = p.zeroStage() == 3 && (DataParallel.shardGroup(p) > 1 || t.offload().parameters() != dev.trainadvisor.spec.Offload.Tier.NONE)
                ? 2 * Params.layer(m, 0) / p.tp() * weightBytes : 0;

        // with a share of the layers recomputing, those keep only their input and the others everything
        double share = t.fullRecomputeShare();
        long seq = (long) (t.seqLen() / sh.divisor(MemoryPart.SEQUENCE));
        double split = sh.divisor(MemoryPart.SPLIT_ACTIVATIONS), replicated = sh.divisor(MemoryPart.REPLICATED_ACTIVATIONS);
        double perLayer = share * ActivationMemory.perLayerBytes(m, seq, t.microBatchSize(), split, replicated,
                dev.trainadvisor.spec.Recompute.FULL, t.flashAttention(), false)
                + (1 - share) * ActivationMemory.perLayerBytes(m, seq, t.microBatchSize(), split, replicated,
                share > 0 ? dev.trainadvisor.spec.Recompute.NONE : t.recompute(), t.flashAttention(), false);
        // the Hugging Face eager attention keeps its softmax's fp32 output as well as the bf16 probabilities: 6 bytes a
        // score where the count above has 4. Measured on an H200 (bench/h200_hf_step_kernels.py): its step peaked at
        // 104.3 GiB against 35.4 with SDPA (112.0 and 38.0 GB), 6.3 bytes for each of the 11.81 G scores of a
        // TinyLlama-shaped micro-batch of 4
        if (!t.flashAttention() && t.attentionKernel() == dev.trainadvisor.spec.AttentionKernel.EAGER
                && (share > 0 || t.recompute() == dev.trainadvisor.spec.Recompute.NONE))
            perLayer += (1 - share) * EAGER_EXTRA_BYTES_PER_SCORE * m.heads() * (double) seq * seq * t.microBatchSize() / split;
        double layersPerStage = (double) m.layers() / p.pp();
        // interleaving adds (pp - 1) / (pp * v) more in flight (Korthikanti et al. 2022, section 4.2.3)
        double flight = inFlight;
        if (p.virtualStages() > 1) flight *= 1 + (p.pp() - 1.0) / (p.pp() * p.virtualStages());
        double activations = perLayer * layersPerStage * flight;
        // offload (training.offload): what leaves the GPU goes to host memory; the GPU keeps what it works on now
        dev.trainadvisor.spec.Offload off = t.offload();
        double host = 0;
        if (off.any()) {
            double shardPsi = sh.stateShare(MemoryPart.OPTIMIZER_STATES, psi, experts), r = off.hostOptimizerShare();
            // Adam's momentum and variance (8 of the 12 bytes) with the optimizer, the fp32 master copy (4) with its own
            double leaves = shardPsi * r * (8 + (off.masterWeights() != dev.trainadvisor.spec.Offload.Tier.NONE ? 4 : 0));
            states[2] -= leaves;
            host += leaves;
            if (off.gradients() != dev.trainadvisor.spec.Offload.Tier.NONE) {
                // gradients stream to the host as they are reduced; a bucket of them is staged on the GPU
                double staged = Math.min(states[1], p.bucketMb() * 1e6);
                host += states[1] - staged;
                states[1] = staged;
            }
            if (off.parameters() != dev.trainadvisor.spec.Offload.Tier.NONE) {
                // ZeRO-3's shard lives on the host, copied in before each gather; the gather buffer stays
                host += states[0];
                states[0] = 0;
            }
            if (off.activations() != dev.trainadvisor.spec.Offload.Tier.NONE && layersPerStage > 2) {
                // saved activations go to the host as each layer's forward ends; two layers' worth stay (the one
                // computing, the one copying)
                double kept = perLayer * 2 * flight;
                host += activations - kept;
                activations = kept;
            }
        }
        // logits in 16 bits plus the fp32 copy the cross-entropy makes, per micro-batch on the last stage
        double tokens = (double) t.microBatchSize() * t.seqLen() / sh.divisor(MemoryPart.SEQUENCE);   // in double: 2^16 x 2^24 leaves an int
        double logits = last ? tokens * m.vocab() / sh.divisor(MemoryPart.VOCABULARY) * (2 + 4) : 0;
        return new MemoryEstimate.Stage(index, states[0] / 1e9 + gatherBuffer / 1e9, states[1] / 1e9, states[2] / 1e9,
                activations / 1e9, logits / 1e9, BUFFERS_GB, host / 1e9);
    }
}
