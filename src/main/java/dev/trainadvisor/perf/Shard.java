package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;

/**
 * What one GPU holds of the model: the layers of its pipeline stage, split by tensor (and, for
 * experts, expert) parallelism; the first stage also holds the input embedding and the last the
 * output head. The most loaded stage sets memory and, through its GEMMs, the pipeline's pace.
 */
public record Shard(double layersPerStage, double paramsPerGpu, double expertParamsPerGpu, boolean holdsLogits) {

    /**
     * The parameters whose optimizer states this GPU holds and updates: its shard of the model, the dense part divided
     * by ZeRO over the data-parallel ranks, the experts' over the expert-data-parallel ones.
     */
    public double updatedParams(Sharding sh) {
        return sh.stateShare(MemoryPart.OPTIMIZER_STATES, paramsPerGpu, expertParamsPerGpu);
    }

    public static Shard of(Model m, Parallel p) { return of(m, p, Sharding.of(p)); }

    static Shard of(Model m, Parallel p, Sharding sh) {
        Params.LayerSums sums = Params.layerSums(m);
        double perStageLayers = (double) m.layers() / p.pp();
        double experts = sums.experts() / sh.divisor(MemoryPart.EXPERT_WEIGHTS);
        double layerParams = sums.dense() / sh.divisor(MemoryPart.LAYER_WEIGHTS) + experts;
        double emb = Params.embedding(m) / sh.divisor(MemoryPart.VOCABULARY);
        double first = layerParams + emb;
        // the last stage holds the output head, and with tied embeddings Megatron keeps a copy there too
        double last = layerParams + emb + m.hidden();
        double params = p.pp() == 1 ? layerParams + emb * (m.tiedEmbeddings() ? 1 : 2) + m.hidden()
                : Math.max(first, last);
        return new Shard(perStageLayers, params, experts, true);
    }
}
