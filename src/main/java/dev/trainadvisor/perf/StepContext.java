package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.RankOrder;
import dev.trainadvisor.spec.Training;

/**
 * What a {@link ParallelDimension} sees of the step: the run, the cluster's topology, how the dimensions divide each
 * GPU's memory, this GPU's shard of the model and the tokens of one micro-batch on it. Built once per prediction.
 */
public record StepContext(Cluster cluster, Model model, Parallel parallel, Training training, Topology topology,
                          Sharding sharding, Shard shard, double tokensPerMicroBatch) {

    static StepContext of(Cluster c, Model m, Parallel p, Training t) {
        Sharding sharding = Sharding.of(p);
        return of(c, m, p, t, sharding, Shard.of(m, p, sharding));
    }

    /** With the sharding and shard of the layout already worked out (StepModel.Pieces). */
    static StepContext of(Cluster c, Model m, Parallel p, Training t, Sharding sharding, Shard shard) {
        return of(c, m, p, t, sharding, shard, false);
    }

    /**
     * As {@link #of(Cluster, Model, Parallel, Training, Sharding, Shard)}; {@code recording}: on a topology that
     * remembers how it placed each group ({@link Topology#recording}), to plan a CommModel.Template on.
     */
    static StepContext of(Cluster c, Model m, Parallel p, Training t, Sharding sharding, Shard shard, boolean recording) {
        RankOrder order = p.ranks(t.framework());
        Topology topology = recording ? Topology.recording(c, p, order) : new Topology(c, p, order);
        return new StepContext(c, m, p, t, topology, sharding, shard, StepOperations.tokensPerMicroBatch(p, t));
    }

    /** Bytes of one 16-bit (or fp32) activation or weight element. */
    double elementBytes() { return training.precision() == dev.trainadvisor.spec.Precision.FP32 ? 4 : 2; }
}
