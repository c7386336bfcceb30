package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Training;

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

    public static MemoryEstimate of(Cluster c, Model m, Parallel p, Training t) {
        Params.LayerSums sums = Params.layerSums(m);
        double dense = sums.dense(), experts = sums.experts();
        double layerParams = (dense / p.pp()) / p.tp() + (experts / p.pp()) / (p.tp() * p.ep());
        double emb = Params.embedding(m) / p.tp();
        java.util.List<MemoryEstimate.Stage> stages = new java.util.ArrayList<>();
        for (int s = 0; s < p.pp(); s++) {
            boolean first = s == 0, last = s == p.pp() - 1;
            // the last stage holds the output head; with tied embeddings Megatron keeps a copy of the embedding there
            double psi = layerParams + (first ? emb : 0) + (last && (!first || !m.tiedEmbeddings()) ? emb + m.hidden() : 0);
            // 1F1B: stage s holds pp - s micro-batches in flight (Narayanan et al. 2021, section 2.2.1)
            stages.add(stage(s, psi, Math.min(t.microBatches(), p.pp() - s), last, m, p, t));
        }
        MemoryEstimate.Stage peak = stages.get(0);
        for (MemoryEstimate.Stage st : stages) if (st.totalGb() > peak.totalGb()) peak = st;
        return new MemoryEstimate(peak.weightsGb(), peak.gradientsGb(), peak.optimizerGb(), peak.activationsGb(),
                peak.logitsGb(), peak.buffersGb(), c.gpu().hbmGb(), stages);
    }

    /** Model states for {@code psi} parameters on this GPU; exposed for the ZeRO paper's worked example. */
    public static double[] modelStatesBytes(double psi, int zeroStage, int zeroGroup, double weightBytes,
                                            double gradBytes) {
        double z = zeroGroup;
        double w = weightBytes * psi, g = gradBytes * psi, o = OPTIMIZER_BYTES_PER_PARAM * psi;
        return switch (zeroStage) {
            case 0 -> new double[]{w, g, o};
            case 1 -> new double[]{w, g, o / z};
            case 2 -> new double[]{w, g / z, o / z};
            default -> new double[]{w / z, g / z, o / z};
        };
    }

    static MemoryEstimate.Stage stage(int index, double psi, int inFlight, boolean last, Model m, Parallel p, Training t) {
        double weightBytes = t.precision() == Precision.FP32 ? 4 : 2;
        double gradBytes = t.gradReducePrecision().bytes;
        double[] states = modelStatesBytes(psi, p.zeroStage(), p.zeroGroupSize(), weightBytes, gradBytes);
        // ZeRO-3 gathers a layer's full weights before using it and prefetches the next: two layers' worth
        double gatherBuffer = p.zeroStage() == 3 && p.zeroGroupSize() > 1 ? 2 * Params.layer(m, 0) / p.tp() * weightBytes : 0;

        // with a share of the layers recomputing, those keep only their input and the others everything
        double share = t.fullRecomputeShare();
        double perLayer = share * ActivationMemory.perLayerBytes(m, t.seqLen() / p.cp(), t.microBatchSize(), p.tp(),
                p.sequenceParallel(), dev.trainadvisor.spec.Recompute.FULL, t.flashAttention(), false)
                + (1 - share) * ActivationMemory.perLayerBytes(m, t.seqLen() / p.cp(), t.microBatchSize(), p.tp(),
                p.sequenceParallel(), share > 0 ? dev.trainadvisor.spec.Recompute.NONE : t.recompute(), t.flashAttention(), false);
        double layersPerStage = (double) m.layers() / p.pp();
        // interleaving adds (pp - 1) / (pp * v) more in flight (Korthikanti et al. 2022, section 4.2.3)
        double flight = inFlight;
        if (p.virtualStages() > 1) flight *= 1 + (p.pp() - 1.0) / (p.pp() * p.virtualStages());
        double activations = perLayer * layersPerStage * flight;
        // logits in 16 bits plus the fp32 copy the cross-entropy makes, per micro-batch on the last stage
        double tokens = (double) t.microBatchSize() * t.seqLen() / p.cp();
        double logits = last ? tokens * m.vocab() / p.tp() * (2 + 4) : 0;
        return new MemoryEstimate.Stage(index, states[0] / 1e9 + gatherBuffer / 1e9, states[1] / 1e9, states[2] / 1e9,
                activations / 1e9, logits / 1e9, BUFFERS_GB);
    }
}
