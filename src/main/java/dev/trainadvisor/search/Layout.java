package dev.trainadvisor.search;

import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.Training;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One way to lay a run out on its GPUs: the knobs {@link LayoutSearch} varies, everything else as the run has it.
 *
 * @param microBatchSize    sequences per micro-batch; {@code microBatches} of them make a data-parallel replica's
 *                          share of the global batch
 * @param recomputeFraction with full recomputation, the share of layers that recompute (1 otherwise)
 * @param precision         the GEMMs' precision: the run's, or fp8 where the search varies it on a GPU that has it
 */
public record Layout(int tp, int pp, int virtualStages, int cp, int dp, int ep, int etp, boolean sequenceParallel,
                     int zeroStage, int microBatchSize, int microBatches, Recompute recompute, double recomputeFraction,
                     Precision precision) {

    /** The layout a run has. */
    public static Layout of(RunMetrics run) {
        Parallel p = run.parallel();
        Training t = run.training();
        return new Layout(p.tp(), p.pp(), p.virtualStages(), p.cp(), p.dp(), p.ep(), p.etp(), p.sequenceParallel(),
                p.zeroStage(), t.microBatchSize(), t.microBatches(), t.recompute(),
                t.recompute() == Recompute.FULL ? t.recomputeFraction() : 1.0, t.precision());
    }

    /** The same layout with another recomputation: full at this layout's fraction when it had full, else in full. */
    public Layout withRecompute(Recompute r) {
        double fraction = r == Recompute.FULL && recompute == Recompute.FULL ? recomputeFraction : 1.0;
        return new Layout(tp, pp, virtualStages, cp, dp, ep, etp, sequenceParallel, zeroStage, microBatchSize,
                microBatches, r, fraction, precision);
    }

    /** The run laid out this way: ZeRO over all data-parallel ranks, both data-parallel overlaps on. */
    public RunMetrics apply(RunMetrics run) {
        Parallel b = run.parallel();
        Parallel p = new Parallel(tp, pp, dp, cp, ep, sequenceParallel, zeroStage, dp, virtualStages, true, true,
                b.overlapTpComm(), etp, b.bucketMb());
        Training t = run.training();
        Training nt = new Training(t.seqLen(), microBatchSize, microBatches, recompute, precision,
                t.gradReducePrecision(), t.flashAttention(), recompute == Recompute.FULL ? recomputeFraction : 1.0,
                t.attentionKernel(), t.elementwiseKernels(), t.cudaGraphs(), t.fp8Recipe());
        return new RunMetrics(run.name(), run.model(), p, nt, run.measured());
    }

    /**
     * The run-file keys this layout sets, in run-file order (ZeRO over every data-parallel rank, both overlaps on; a
     * null removes the field, as recompute_fraction without full recomputation).
     */
    public Map<String, Object> keys() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("parallel.tp", tp);
        m.put("parallel.pp", pp);
        m.put("parallel.virtual_stages", virtualStages);
        m.put("parallel.cp", cp);
        m.put("parallel.dp", dp);
        m.put("parallel.ep", ep);
        m.put("parallel.etp", etp);
        m.put("parallel.sequence_parallel", sequenceParallel);
        m.put("parallel.zero_stage", zeroStage);
        m.put("parallel.zero_group_size", dp);
        m.put("parallel.overlap_grad_reduce", true);
        m.put("parallel.overlap_param_gather", true);
        m.put("training.micro_batch_size", microBatchSize);
        m.put("training.micro_batches", microBatches);
        m.put("training.recompute", recompute.name().toLowerCase(Locale.ROOT));
        m.put("training.recompute_fraction", recompute == Recompute.FULL && recomputeFraction != 1.0 ? recomputeFraction : null);
        m.put("training.precision", precision.name().toLowerCase(Locale.ROOT));
        return m;
    }

    /** The keys whose values differ from {@code from}'s. */
    public Map<String, Object> changesFrom(Layout from) {
        Map<String, Object> out = new LinkedHashMap<>(), base = from.keys();
        keys().forEach((k, v) -> { if (!java.util.Objects.equals(v, base.get(k))) out.put(k, v); });
        // expert-TP means nothing without experts: a dense run's etp follows tp and is not a change of its own
        if (ep == 1 && from.ep == 1) out.remove("parallel.etp");
        return out;
    }

    /** "tp 2, pp 4 x 2, cp 1, dp 8, ZeRO 1, mbs 2 x 8, recompute none": a line for people and a total order for ties. */
    public String describe() {
        StringBuilder s = new StringBuilder().append("tp ").append(tp).append(sequenceParallel && tp > 1 ? "+sp" : "")
                .append(", pp ").append(pp);
        if (virtualStages > 1) s.append(" x ").append(virtualStages);
        if (cp > 1) s.append(", cp ").append(cp);
        s.append(", dp ").append(dp);
        if (ep > 1) s.append(", ep ").append(ep).append(etp != tp ? " (etp " + etp + ")" : "");
        return s.append(", ZeRO ").append(zeroStage).append(", micro-batch ").append(microBatchSize).append(" x ")
                .append(microBatches).append(", recompute ").append(recompute.name().toLowerCase(Locale.ROOT))
                .append(recompute == Recompute.FULL && recomputeFraction != 1.0 ? " " + recomputeFraction : "")
                .append(precision == Precision.FP8 ? ", fp8" : "").toString();
    }
}
