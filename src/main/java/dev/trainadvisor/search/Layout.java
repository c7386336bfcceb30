package dev.trainadvisor.search;

import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Offload;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.RankOrder;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.Training;

import dev.trainadvisor.spec.RunChange;
import dev.trainadvisor.spec.RunField;

import java.util.Locale;

/**
 * One way to lay a run out on its GPUs: the knobs {@link LayoutSearch} varies, everything else as the run has it.
 *
 * @param microBatchSize    sequences per micro-batch; {@code microBatches} of them make a data-parallel replica's
 *                          share of the global batch
 * @param recomputeFraction with full recomputation, the share of layers that recompute (1 otherwise)
 * @param precision         the GEMMs' precision: the run's, or fp8 where the search varies it on a GPU that has it
 * @param rankOrder         how the ranks are numbered: the run's ({@code parallel.rank_order}, null for its framework's),
 *                          or the other order where the search varies it for a framework that can switch
 * @param zeroGroup         the ranks ZeRO shards over where they are fewer than the data-parallel ones (HSDP: sharded
 *                          within a node, replicated across): the run's own; 0 for all of them, as every layout the
 *                          search makes
 */
public record Layout(int tp, int pp, int virtualStages, int cp, int dp, int ep, int etp, boolean sequenceParallel,
                     int zeroStage, int microBatchSize, int microBatches, Recompute recompute, double recomputeFraction,
                     Precision precision, Offload offload, RankOrder rankOrder, int zeroGroup) {

    /** A layout whose ZeRO shards over every data-parallel rank. */
    public Layout(int tp, int pp, int virtualStages, int cp, int dp, int ep, int etp, boolean sequenceParallel,
                  int zeroStage, int microBatchSize, int microBatches, Recompute recompute, double recomputeFraction,
                  Precision precision, Offload offload, RankOrder rankOrder) {
        this(tp, pp, virtualStages, cp, dp, ep, etp, sequenceParallel, zeroStage, microBatchSize, microBatches, recompute,
                recomputeFraction, precision, offload, rankOrder, 0);
    }

    /** A layout whose ranks are numbered as its run's framework numbers them. */
    public Layout(int tp, int pp, int virtualStages, int cp, int dp, int ep, int etp, boolean sequenceParallel,
                  int zeroStage, int microBatchSize, int microBatches, Recompute recompute, double recomputeFraction,
                  Precision precision, Offload offload) {
        this(tp, pp, virtualStages, cp, dp, ep, etp, sequenceParallel, zeroStage, microBatchSize, microBatches, recompute,
                recomputeFraction, precision, offload, null);
    }

    /** A layout that keeps everything on the GPU. */
    public Layout(int tp, int pp, int virtualStages, int cp, int dp, int ep, int etp, boolean sequenceParallel,
                  int zeroStage, int microBatchSize, int microBatches, Recompute recompute, double recomputeFraction,
                  Precision precision) {
        this(tp, pp, virtualStages, cp, dp, ep, etp, sequenceParallel, zeroStage, microBatchSize, microBatches, recompute,
                recomputeFraction, precision, Offload.NONE);
    }

    /** The layout a run has. */
    public static Layout of(RunMetrics run) {
        Parallel p = run.parallel();
        Training t = run.training();
        return new Layout(p.tp(), p.pp(), p.virtualStages(), p.cp(), p.dp(), p.ep(), p.etp(), p.sequenceParallel(),
                p.zeroStage(), t.microBatchSize(), t.microBatches(), t.recompute(),
                t.recompute() == Recompute.FULL ? t.recomputeFraction() : 1.0, t.precision(), t.offload(), p.rankOrder(),
                p.zeroStage() > 0 && p.zeroGroupSize() > 0 && p.zeroGroupSize() < p.dp() ? p.zeroGroupSize() : 0);
    }

    /** The same layout with another recomputation: full at this layout's fraction when it had full, else in full. */
    public Layout withRecompute(Recompute r) {
        double fraction = r == Recompute.FULL && recompute == Recompute.FULL ? recomputeFraction : 1.0;
        return new Layout(tp, pp, virtualStages, cp, dp, ep, etp, sequenceParallel, zeroStage, microBatchSize,
                microBatches, r, fraction, precision, offload, rankOrder, zeroGroup);
    }

    /** The same layout with what it keeps on the host. */
    public Layout withOffload(Offload o) {
        return new Layout(tp, pp, virtualStages, cp, dp, ep, etp, sequenceParallel, zeroStage, microBatchSize,
                microBatches, recompute, recomputeFraction, precision, o, rankOrder, zeroGroup);
    }

    /**
     * The run laid out this way: ZeRO over all data-parallel ranks (or the run's own group, {@link #zeroGroup}), both
     * data-parallel overlaps on; how its experts' tokens move (the dispatcher, the all-to-alls' overlap) as the run has
     * it.
     */
    public RunMetrics apply(RunMetrics run) {
        Parallel b = run.parallel();
        Parallel p = new Parallel(tp, pp, dp, cp, ep, sequenceParallel, zeroStage, shardedOver(), virtualStages, true, true,
                b.overlapTpComm(), etp, b.bucketMb(), b.gradReduceEveryMicroBatch(), b.moeDispatcher(), b.moeA2aOverlap(),
                rankOrder);
        Training t = run.training();
        Training nt = new Training(t.seqLen(), microBatchSize, microBatches, recompute, precision,
                t.gradReducePrecision(), t.flashAttention(), recompute == Recompute.FULL ? recomputeFraction : 1.0,
                t.attentionKernel(), t.elementwiseKernels(), t.cudaGraphs(), t.fp8Recipe(), t.implementation(), offload,
                t.optimizerKernel());
        return new RunMetrics(run.name(), run.model(), p, nt, run.measured());
    }

    /**
     * The run-file fields this layout sets, in run-file order (ZeRO over every data-parallel rank or the run's own group,
     * both overlaps on; recompute_fraction cleared without full recomputation).
     */
    public RunChange change() {
        RunChange c = RunChange.of(RunField.TP, tp).and(RunField.PP, pp).and(RunField.VIRTUAL_STAGES, virtualStages)
                .and(RunField.CP, cp).and(RunField.DP, dp).and(RunField.EP, ep).and(RunField.ETP, etp)
                .and(RunField.SEQUENCE_PARALLEL, sequenceParallel).and(RunField.ZERO_STAGE, zeroStage)
                .and(RunField.ZERO_GROUP_SIZE, shardedOver()).and(RunField.OVERLAP_GRAD_REDUCE, true)
                .and(RunField.OVERLAP_PARAM_GATHER, true).and(RunField.MICRO_BATCH_SIZE, microBatchSize)
                .and(RunField.MICRO_BATCHES, microBatches).and(RunField.RECOMPUTE, recompute)
                .and(RunField.RECOMPUTE_FRACTION, recompute == Recompute.FULL && recomputeFraction != 1.0 ? recomputeFraction : null)
                .and(RunField.PRECISION, precision).and(RunField.OFFLOAD, offload.any() ? offload : null);
        // an order only where the layout has one of its own (a layout numbered as its framework does sets none)
        return rankOrder == null ? c : c.and(RunField.RANK_ORDER, rankOrder);
    }

    /** The fields whose values differ from {@code from}'s. */
    public RunChange changesFrom(Layout from) {
        RunChange mine = change(), base = from.change();
        RunChange out = RunChange.NONE;
        for (RunField<?> f : mine.fields()) out = differing(out, f, mine, base);
        // expert-TP means nothing without experts: a dense run's etp follows tp and is not a change of its own
        if (ep == 1 && from.ep == 1) out = out.without(RunField.ETP);
        return out;
    }

    private static <T> RunChange differing(RunChange out, RunField<T> f, RunChange mine, RunChange base) {
        T v = mine.value(f);
        return java.util.Objects.equals(v, base.value(f)) ? out : out.and(f, v);
    }

    /** The ranks ZeRO shards over: the run's own group, else every data-parallel rank. */
    int shardedOver() { return zeroGroup > 0 ? zeroGroup : dp; }

    /** "tp 2, pp 4 x 2, cp 1, dp 8, ZeRO 1, mbs 2 x 8, recompute none": a line for people and a total order for ties. */
    public String describe() {
        StringBuilder s = new StringBuilder().append("tp ").append(tp).append(sequenceParallel && tp > 1 ? "+sp" : "")
                .append(", pp ").append(pp);
        if (virtualStages > 1) s.append(" x ").append(virtualStages);
        if (cp > 1) s.append(", cp ").append(cp);
        s.append(", dp ").append(dp);
        if (rankOrder != null) s.append(" (ranks ").append(rankOrder.key()).append(")");
        if (ep > 1) s.append(", ep ").append(ep).append(etp != tp ? " (etp " + etp + ")" : "");
        return s.append(", ZeRO ").append(zeroStage).append(zeroGroup > 0 ? " over " + zeroGroup : "")
                .append(", micro-batch ").append(microBatchSize).append(" x ").append(microBatches)
                .append(", recompute ").append(recompute.name().toLowerCase(Locale.ROOT))
                .append(recompute == Recompute.FULL && recomputeFraction != 1.0 ? " " + recomputeFraction : "")
                .append(precision == Precision.FP8 ? ", fp8" : "").append(offload.any() ? ", offload " + offloaded() : "")
                .toString();
    }

    /** What the layout keeps on the host, shortly: "optimizer", "optimizer+parameters", "optimizer 40%". */
    private String offloaded() {
        StringBuilder b = new StringBuilder();
        if (offload.optimizer() != Offload.Tier.NONE) b.append("optimizer");
        if (offload.parameters() != Offload.Tier.NONE) b.append(b.length() > 0 ? "+" : "").append("parameters");
        if (offload.activations() != Offload.Tier.NONE) b.append(b.length() > 0 ? "+" : "").append("activations");
        if (offload.optimizer() == Offload.Tier.NVME || offload.parameters() == Offload.Tier.NVME) b.append(" (nvme)");
        if (offload.ratio() != 1.0) b.append(' ').append(Math.round(offload.ratio() * 100)).append('%');
        return b.toString();
    }

    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Layout l && tp == l.tp && pp == l.pp && virtualStages == l.virtualStages
                && cp == l.cp && dp == l.dp && ep == l.ep && etp == l.etp && sequenceParallel == l.sequenceParallel
                && zeroStage == l.zeroStage && microBatchSize == l.microBatchSize && microBatches == l.microBatches
                && Double.compare(recomputeFraction, l.recomputeFraction) == 0
                && java.util.Objects.equals(recompute, l.recompute)
                && java.util.Objects.equals(precision, l.precision) && java.util.Objects.equals(offload, l.offload)
                && java.util.Objects.equals(rankOrder, l.rankOrder) && zeroGroup == l.zeroGroup;
    }

    @Override
    public int hashCode() {
        int h = tp;
        h = 31 * h + pp;
        h = 31 * h + virtualStages;
        h = 31 * h + cp;
        h = 31 * h + dp;
        h = 31 * h + ep;
        h = 31 * h + etp;
        h = 31 * h + Boolean.hashCode(sequenceParallel);
        h = 31 * h + zeroStage;
        h = 31 * h + microBatchSize;
        h = 31 * h + microBatches;
        h = 31 * h + java.util.Objects.hashCode(recompute);
        h = 31 * h + Double.hashCode(recomputeFraction);
        h = 31 * h + java.util.Objects.hashCode(precision);
        h = 31 * h + java.util.Objects.hashCode(offload);
        h = 31 * h + java.util.Objects.hashCode(rankOrder);
        return 31 * h + zeroGroup;
    }
}
