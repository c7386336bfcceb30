package dev.trainadvisor.facts;

import dev.trainadvisor.perf.Collective;
import dev.trainadvisor.perf.ComputeTime;
import dev.trainadvisor.perf.ConventionFlops;
import dev.trainadvisor.perf.MemoryEstimate;
import dev.trainadvisor.perf.ObservedThroughput;
import dev.trainadvisor.perf.Phase;
import dev.trainadvisor.perf.StepPrediction;
import dev.trainadvisor.spec.AttentionKernel;
import dev.trainadvisor.spec.Catalog;
import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.ElementwiseKernels;
import dev.trainadvisor.spec.FlopsConvention;
import dev.trainadvisor.spec.Gpu;
import dev.trainadvisor.spec.Measurements;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.SpecWriter;
import dev.trainadvisor.spec.Training;

import java.util.ArrayList;
import java.util.List;

/** Turns a run, its prediction and its measurements into the facts the rules match. */
public final class FactBuilder {
    private FactBuilder() {}

    public static List<Object> facts(Cluster c, RunMetrics run, StepPrediction p, ObservationFact observed) {
        return facts(c, run, p, p, observed, false);
    }

    /**
     * @param p        the prediction the rules reason on: with parameters fitted to the run when it measured its
     *                 timings, else from the catalogue
     * @param expected the catalogue prediction: what the run should do, against which the gap is measured
     * @param fitted   whether {@code c} and {@code p} carry fitted values
     */
    public static List<Object> facts(Cluster c, RunMetrics run, StepPrediction p, StepPrediction expected,
                                     ObservationFact observed, boolean fitted) {
        List<Object> facts = new ArrayList<>();
        facts.add(runFact(c, run, fitted));
        facts.add(new PredictionFact(p.stepTimeS(), p.tokensPerGpuPerS(), p.tflopsPerGpu(), p.mfu(), p.computeSeconds(),
                p.exposedCommSeconds(), p.optimizerSeconds(), p.bubbleSeconds(), p.flopsPerToken().model(),
                p.flopsPerToken().hardware(), p.compute().waveEfficiency(), p.compute().tokensPerMicroBatch()));
        for (Phase ph : p.phases())
            facts.add(new PhaseFact(ph.name(), ph.seconds(), ph.exposedSeconds(), ph.exposedSeconds() / p.stepTimeS(), ph.link()));
        for (Collective col : p.collectives()) facts.add(collectiveFact(col, p.stepTimeS()));
        facts.add(kernelFact(c, run, p));
        MemoryEstimate m = p.memory();
        facts.add(new MemoryFact(m.totalGb(), m.capacityGb(), m.weightsGb(), m.gradientsGb(), m.optimizerGb(),
                m.activationsGb(), m.logitsGb(), m.buffersGb()));
        var m0 = run.measured();
        if (!Double.isNaN(m0.steps()) && !Double.isNaN(m0.skippedSteps()))
            facts.add(new StepHealthFact(m0.steps(), m0.skippedSteps(), m0.lossScale(), run.training().precision().key()));
        if (observed != null) {
            facts.add(observed);
            if (!Double.isNaN(observed.tokensPerGpuPerS())) facts.add(gap(observed, expected));
        }
        return facts;
    }

    /** The attention and element-wise kernels' share of the step, and what FlashAttention-2 and fused kernels save. */
    public static KernelFact kernelFact(Cluster c, RunMetrics run, StepPrediction p) {
        Training t = run.training();
        double mb = t.microBatches();
        ComputeTime now = p.compute();
        ComputeTime fa2 = ComputeTime.of(run.model(), run.parallel(), t.withAttention(true, AttentionKernel.FA2), c.gpu(), p.efficiency());
        ComputeTime fused = ComputeTime.of(run.model(), run.parallel(), t.withElementwise(ElementwiseKernels.FUSED), c.gpu(),
                p.efficiency());
        // FA3 is faster than FA2: nothing to save there, as with FA2 itself
        double attentionSaving = Math.max(0, now.microBatchSeconds() - fa2.microBatchSeconds()) * mb;
        double elementwiseSaving = Math.max(0, now.microBatchSeconds() - fused.microBatchSeconds()) * mb;
        return new KernelFact(t.flashAttention() ? SpecWriter.key(t.attentionKernel()) : "none",
                SpecWriter.key(t.elementwiseKernels()), now.attentionSeconds() * mb, attentionSaving,
                now.memorySeconds() * mb, elementwiseSaving, p.stepTimeS());
    }

    public static CollectiveFact collectiveFact(Collective col, double stepTimeS) {
        return new CollectiveFact(col.name(), col.kind().key, col.group(), col.groupSize(),
                col.kind().factor(col.groupSize()), col.bytesPerStep(), col.link().linkKey(), col.link().scope(),
                col.link().crossesNodes(), col.link().busbwGbps(), col.seconds(), col.exposedSeconds(),
                col.exposedSeconds() / stepTimeS, col.overlapsWith());
    }

    public static GapFact gap(ObservationFact o, StepPrediction p) {
        double ratio = o.tokensPerGpuPerS() / p.tokensPerGpuPerS();
        return new GapFact(ratio, o.stepTimeS(), p.stepTimeS(), o.stepTimeS() - p.stepTimeS());
    }

    public static RunFact runFact(Cluster c, RunMetrics run) { return runFact(c, run, false); }

    /** @param fitted whether {@code c} carries link bandwidths fitted to the run's timings */
    public static RunFact runFact(Cluster c, RunMetrics run, boolean fitted) {
        Parallel p = run.parallel();
        Training t = run.training();
        Gpu gpu = c.gpu();
        String nvGpu = null, nvLink = null;
        if (!c.intraNode().isNvlink() && c.gpusPerNode() > 1) {
            Gpu sibling = Catalog.builtIn().nvlinkSibling(gpu);
            if (sibling != null) {
                nvGpu = sibling.key();
                nvLink = sibling.nvlinkLink();
            }
        }
        boolean multiNode = c.interNode() != null && c.nodes() > 1;
        return new RunFact(run.name(), gpu.key(), c.gpus(), c.nodes(), c.gpusPerNode(), p.tp(), p.pp(), p.dp(), p.cp(),
                p.ep(), p.virtualStages(), p.zeroStage(), p.zeroGroupSize(), t.microBatchSize(), t.microBatches(), t.seqLen(),
                t.recompute().key(), t.precision().key(), t.gradReducePrecision().key(), c.intraNode().key(),
                c.intraNode().kind(), c.intraNode().busbwGbps(),
                fitted ? "fitted" : c.intraNode().busbwMeasured() ? "measured" : "catalogue",
                c.interNode() == null ? "none" : c.interNode().key(), c.interNode() == null ? 0 : c.interNode().nicsPerNode(),
                multiNode ? c.interNode().nodeGbps() : 0, p.overlapGradReduce(), p.overlapParamGather(),
                t.flashAttention(), gpu.peakTflops(Precision.BF16), gpu.hbmGb(), nvGpu, nvLink);
    }

    /**
     * The run's measurements in house terms, or null when it measured nothing. Throughput comes from
     * tokens/GPU/s if given, else from the step time, else from the printed TFLOPS and its convention.
     */
    public static ObservationFact observe(Cluster c, RunMetrics run, StepPrediction p) {
        Measurements m = run.measured();
        if (m.isEmpty()) return null;
        FlopsConvention conv = FlopsConvention.parse(m.tflopsConvention());
        double house = p.flopsPerToken().model();
        double convFlops = conv == null ? Double.NaN : ConventionFlops.perToken(conv, run.model(), run.training());
        ObservedThroughput o = ObservedThroughput.of(c, run);
        double tokens = o.tokensPerGpuPerS(), step = o.stepTimeS();
        String source = o.source();
        double tflopsHouse = tokens * house / 1e12;
        return new ObservationFact(tokens, step, m.fwdBwdTimeS(), m.tflopsPerGpu(), conv == null ? null : conv.key,
                convFlops, house, tflopsHouse, tflopsHouse / c.gpu().peakTflops(Precision.BF16), source);
    }
}
