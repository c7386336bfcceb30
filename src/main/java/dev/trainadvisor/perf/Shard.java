package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;

/**
 * What one GPU holds of the model: the layers of its pipeline stage, split by tensor (and, for
 * experts, expert) parallelism; the first stage also holds the input embedding and the last the
 * output head. The most loaded stage sets memory and, through its GEMMs, the pipeline's pace.
 */
public record Shard(double layersPerStage, double paramsPerGpu, boolean holdsLogits) {

    public static Shard of(Model m, Parallel p) {
        Params.LayerSums sums = Params.layerSums(m);
        double dense = sums.dense(), experts = sums.experts();
        double perStageLayers = (double) m.layers() / p.pp();
        double layerParams = (dense / p.pp()) / p.tp() + (experts / p.pp()) / (p.tp() * p.ep());
        double emb = Params.embedding(m) / p.tp();
        double first = layerParams + emb;
        // the last stage holds the output head, and with tied embeddings Megatron keeps a copy there too
        double last = layerParams + emb + m.hidden();
        double params = p.pp() == 1 ? layerParams + emb * (m.tiedEmbeddings() ? 1 : 2) + m.hidden()
                : Math.max(first, last);
        return new Shard(perStageLayers, params, true);
    }
}
