package dev.trainadvisor.facts;

import dev.trainadvisor.perf.Baseline;
import dev.trainadvisor.perf.Collective;
import dev.trainadvisor.perf.ConventionFlops;
import dev.trainadvisor.perf.Fit;
import dev.trainadvisor.perf.FitObservation;
import dev.trainadvisor.perf.FitParam;
import dev.trainadvisor.perf.FitParameter;
import dev.trainadvisor.perf.FitResult;
import dev.trainadvisor.perf.HypothesisFit;
import dev.trainadvisor.perf.ObservedThroughput;
import dev.trainadvisor.perf.Phase;
import dev.trainadvisor.perf.Scenario;
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
import dev.trainadvisor.spec.RunChange;
import dev.trainadvisor.spec.RunField;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.Training;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a run's baseline (perf.Baseline: the catalogue prediction, the fit to its times, the one pricing path) and its
 * measurements into the facts the rules match. It computes; it decides nothing: no threshold is applied here.
 */
public final class FactBuilder {
    private FactBuilder() {}

    /** Every fact of a run, with the shipped {@link Materiality}. */
    public static List<Object> facts(Baseline b) {
        List<Object> facts = new ArrayList<>();
        facts.add(Materiality.shipped());
        Cluster cluster = b.catalogue().cluster();
        RunMetrics run = b.catalogue().run();
        StepPrediction p = b.prediction();
        // the run as the rules match it: its typed records, as the user's file gives them (spec.RunFile), and what the
        // model makes of its links
        facts.add(cluster);
        facts.add(run.model());
        facts.add(run.parallel());
        facts.add(run.training());
        facts.addAll(linkFacts(b));
        NvlinkNodeFact nvlink = nvlinkNode(cluster);
        if (nvlink != null) facts.add(nvlink);
        facts.add(new Pricer(b));
        facts.add(FrameworkFact.of(run.training(), run.parallel()));
        OffloadFact offload = offloadFact(cluster, run, p);
        if (offload != null) facts.add(offload);
        facts.add(stepFact(p, b.fit() != null));
        facts.add(launchFact(p, b.catalogue().run().training()));
        for (Collective col : p.collectives())
            facts.add(collectiveFact(col, p.stepTimeS(), cluster.nvlinkDomain() > cluster.gpusPerNode()));
        var m = p.memory();
        facts.add(new MemoryFact(m.totalGb(), m.capacityGb(), m.weightsGb(), m.gradientsGb(), m.optimizerGb(),
                m.activationsGb(), m.logitsGb(), m.buffersGb()));
        Measurements m0 = run.measured();
        if (!Double.isNaN(m0.steps()) && !Double.isNaN(m0.skippedSteps()))
            facts.add(new StepHealthFact(m0.steps(), m0.skippedSteps(), m0.lossScale(), run.training().precision()));
        facts.addAll(history(m0.history()));
        double peak = Double.isNaN(m0.peakMemoryGb()) ? dev.trainadvisor.history.HistoryAnalysis.peakMemoryGb(m0.history())
                : m0.peakMemoryGb();
        if (peak > 0) facts.add(new MeasuredMemoryFact(peak, cluster.gpu().hbmGb()));
        ObservationFact observed = observe(cluster, run, b.expected());
        if (observed != null) {
            facts.add(observed);
            if (!Double.isNaN(observed.tokensPerGpuPerS())) facts.add(gap(observed, b.expected(), p));
        }
        facts.addAll(b.implausible());
        FitResult fit = b.fit();
        if (fit != null) {
            fitFacts(b, fit, p, facts);
            facts.add(saving(Saving.Kind.CATALOGUE, p, b.expected()));
        }
        if (p.memory().hostGb() > 0 && cluster.host().memoryKnown())
            facts.add(new HostMemoryFact(p.memory().hostGb(), cluster.gpusPerNode(), cluster.host().memoryGb(),
                    cluster.host().label()));
        if (!run.measured().isEmpty()) facts.add(coverage(run));
        PartialOffloadFact partial = partialOffload(b);
        if (partial != null) facts.add(partial);
        return facts;
    }

    /**
     * What the fit found, as facts: each fitted quantity with its mixture over the hypotheses, each hypothesis, and what
     * repairing each quantity saves. Apart from {@link #facts} so that each is compiled on its own (the whole was one of
     * a cold batch's costliest compilations: 0.8 s of C2, twice).
     */
    private static void fitFacts(Baseline b, FitResult fit, StepPrediction p, List<Object> facts) {
        fittedParameterFacts(b, fit, p, facts);
        hypothesisFacts(b, fit, facts);
        repairFacts(b, fit, facts);
    }

    /** Each fitted quantity, with its mixture over the hypotheses that free it. */
    private static void fittedParameterFacts(Baseline b, FitResult fit, StepPrediction p, List<Object> facts) {
        for (FitParameter fp : fit.parameters()) {
            List<FittedParameterFact.Component> mixture = new ArrayList<>();
            // the hypotheses that let the quantity move beyond its ordinary spread: under the others it is as the
            // catalogue says, give or take the model's error
            for (HypothesisFit h : fit.hypotheses())
                if (h.hypothesis().frees(fp.param()))
                    h.parameter(fp.param()).ifPresent(q -> mixture.add(new FittedParameterFact.Component(h.posterior(),
                            FittedParameterFact.coordinate(q.param(), q.fitted()), q.posteriorSigma())));
            facts.add(new FittedParameterFact(fp.param(), fp.expected(), fp.fitted(), fp.low(), fp.high(),
                    fp.constrained(), fp.shiftInNominalSigmas(), fp.priorSource(),
                    saved(p, b.restored(fp.param())), mixture));
        }
    }

    /** Each hypothesis, with what its freed quantity would need to explain the step where the healthy one is ruled out. */
    private static void hypothesisFacts(Baseline b, FitResult fit, List<Object> facts) {
        List<HypothesisFit> rivals = fit.alternatives();
        // the step the model is fitted to (the observed one, less a wait for data the log measured)
        double observedStep = fit.observations().stream().filter(o -> o.metric() == dev.trainadvisor.spec.Metric.STEP_TIME_S)
                .mapToDouble(FitObservation::measured).findFirst().orElse(Double.NaN);
        for (HypothesisFit h : fit.hypotheses()) {
            FitParam q = h.hypothesis().param();
            double needed = q == null || !fit.nominalRuledOut() ? Double.NaN : Fit.needed(b.catalogue(), q, observedStep);
            facts.add(new HypothesisFact(h.hypothesis(), h.posterior(), h == fit.chosen(), rivals.contains(h),
                    q == null ? Double.NaN : h.fitted(q),
                    q == null ? Double.NaN : h.parameter(q).map(FitParameter::expected).orElse(Double.NaN), h.dataCost(),
                    h.departs(), needed));
        }
    }

    /**
     * What repairing each quantity saves, priced where the quantity is taken as faulty: under the hypothesis that frees
     * it (a fault the rules find is that hypothesis' explanation of the times), else the baseline.
     */
    private static void repairFacts(Baseline b, FitResult fit, List<Object> facts) {
        for (FitParam q : FitParam.values()) {
            if (fit.parameter(q).isEmpty()) continue;
            HypothesisFit own = fit.hypotheses().stream().filter(h -> h.hypothesis().param() == q).findFirst().orElse(null);
            Scenario at = own == null ? b.scenario() : own.scenario();
            StepPrediction before = at.predict();
            facts.add(saving(Saving.Kind.restoring(q), before, at.with(q, b.catalogue().value(q)).predict()));
        }
    }

    /**
     * For a run that offloads its optimizer with a framework that can keep a share of it on the GPU at this ZeRO stage
     * (DeepSpeed's offload_optimizer.ratio at stage 3, Megatron-Core's optimizer_offload_fraction): the smallest share
     * on the host, in steps of {@link PartialOffloadFact#STEP}, at which the run still fits; null where none below the
     * run's own fits, or where the run fits with nothing offloaded (drop-offload says that).
     */
    private static PartialOffloadFact partialOffload(Baseline b) {
        RunMetrics run = b.catalogue().run();
        dev.trainadvisor.spec.Offload o = run.training().offload();
        dev.trainadvisor.spec.Framework.Offloads fw = run.training().framework().offloads();
        if (o.optimizer() == dev.trainadvisor.spec.Offload.Tier.NONE || fw == null || !fw.ratioAt(run.parallel().zeroStage()))
            return null;
        int hi = (int) Math.round(o.ratio() / PartialOffloadFact.STEP);   // fits (the run's own)
        if (!fits(b, o.withRatio(0.0)) && hi > 1) {
            int lo = 0;                                                   // does not fit
            while (hi - lo > 1) {
                int mid = (lo + hi) / 2;
                if (fits(b, o.withRatio(mid * PartialOffloadFact.STEP))) hi = mid;
                else lo = mid;
            }
            double r = hi * PartialOffloadFact.STEP;
            return r < o.ratio() ? new PartialOffloadFact(r, o.withRatio(r), fw.ratioFlag()) : null;
        }
        return null;
    }

    private static boolean fits(Baseline b, dev.trainadvisor.spec.Offload o) {
        Baseline.Priced q = b.price(RunChange.of(RunField.OFFLOAD, o));
        return q != null && q.step().memory().headroomGb() >= 0;
    }

    /** What the run's measurements time beyond the whole step. */
    static LogCoverageFact coverage(RunMetrics run) {
        dev.trainadvisor.spec.Measurements m = run.measured();
        boolean data = m.history().timer(dev.trainadvisor.history.StepHistory.BATCH_GENERATOR) != null
                || m.history().meanTimer(dev.trainadvisor.history.StepHistory.BATCH_GENERATOR) != null;
        return new LogCoverageFact(data, Double.isFinite(m.fwdBwdTimeS()), Double.isFinite(m.optimizerTimeS()),
                run.training().framework().key());
    }

    /** DeepSpeed ZeRO-Offload's: Adam's states, the master weights and the gradients on the host. */
    public static final dev.trainadvisor.spec.Offload OPTIMIZER_OFFLOAD = new dev.trainadvisor.spec.Offload(
            dev.trainadvisor.spec.Offload.Tier.CPU, dev.trainadvisor.spec.Offload.Tier.CPU, dev.trainadvisor.spec.Offload.Tier.CPU,
            dev.trainadvisor.spec.Offload.Tier.NONE, dev.trainadvisor.spec.Offload.Tier.NONE, 1.0, null);

    /**
     * The seconds per phase that {@code after} saves against {@code before}. A difference within StepModel#ROUNDING of
     * the step is none: two predictions of the same seconds summed in another order differ by a rounding error, which
     * an explanation would otherwise print as a saving ("the step would be 0.0000000000000000555 s shorter").
     */
    static Saving saving(Saving.Kind kind, StepPrediction before, StepPrediction after) {
        double noise = dev.trainadvisor.perf.StepModel.ROUNDING * before.stepTimeS();
        Map<String, Double> then = new LinkedHashMap<>();
        for (Phase ph : after.phases()) then.merge(ph.name(), ph.exposedSeconds(), Double::sum);
        List<Claim> by = new ArrayList<>();
        for (Phase ph : before.phases()) {
            double d = ph.exposedSeconds() - then.getOrDefault(ph.name(), 0.0);
            if (d > noise) by.add(new Claim(ph.name(), d));
        }
        return new Saving(kind, saved(before, after), by, after.memory().headroomGb() >= 0);
    }

    /**
     * The seconds of the step {@code after} saves against {@code before}: 0 where it saves none, or no more than
     * StepModel#ROUNDING of the step (a lever's saving, a fitted quantity's restoring, alike).
     */
    static double saved(StepPrediction before, StepPrediction after) {
        double saved = before.stepTimeS() - after.stepTimeS();
        return saved > dev.trainadvisor.perf.StepModel.ROUNDING * before.stepTimeS() ? saved : 0;
    }

    public static LaunchFact launchFact(StepPrediction p, Training t) {
        var c = p.compute();
        return new LaunchFact(c.launches(), c.hostSeconds() / c.launches(), c.hostSeconds(),
                c.microBatchSeconds() - c.hostBoundSeconds(), c.microBatchSeconds(), t.microBatches(), t.cudaGraphs());
    }

    public static StepFact stepFact(StepPrediction p, boolean fitted) {
        double recompute = (p.flopsPerToken().hardware() - p.flopsPerToken().model()) / p.flopsPerToken().hardware()
                * p.computeSeconds();
        Map<String, Double> phases = new LinkedHashMap<>();
        for (Phase ph : p.phases()) phases.merge(ph.name(), ph.exposedSeconds(), Double::sum);
        return new StepFact(fitted, p.stepTimeS(), p.tokensPerGpuPerS(), p.tflopsPerGpu(), p.mfu(), p.computeSeconds(),
                p.exposedCommSeconds(), p.optimizerSeconds(), p.bubbleSeconds(), p.flopsPerToken().model(),
                p.flopsPerToken().hardware(), p.compute().waveEfficiency(), p.compute().tokensPerMicroBatch(), recompute,
                phases);
    }

    public static CollectiveFact collectiveFact(Collective col, double stepTimeS, boolean rackScale) {
        return new CollectiveFact(col.op(), col.kind(), col.group(), col.groupSize(), col.factor(), col.bytesPerStep(),
                col.calls(), col.alphaUs(), col.link().linkKey(), col.link().scope(), col.link().crossesNodes(),
                col.busbwGbps(), col.seconds(), col.exposedSeconds(), col.exposedSeconds() / stepTimeS,
                col.overlapsWith(), col.link().nodesSpanned(), col.link().membersPerNode(), rackScale);
    }

    public static GapFact gap(ObservationFact o, StepPrediction expected, StepPrediction fitted) {
        return new GapFact(o.tokensPerGpuPerS() / expected.tokensPerGpuPerS(), o.tokensPerGpuPerS() / fitted.tokensPerGpuPerS(),
                o.stepTimeS(), expected.stepTimeS(), fitted.stepTimeS());
    }

    /**
     * The cluster's links as the baseline step runs on them: the intra-node link always, the network on several nodes;
     * each with the bandwidth the baseline runs at (measured by the run, fitted to its times, or the catalogue's) and
     * what the catalogue expects of it.
     */
    public static List<LinkFact> linkFacts(Baseline b) {
        Cluster c = b.scenario().cluster(), catalogue = b.catalogue().cluster();
        boolean fitted = b.fit() != null;
        List<LinkFact> out = new ArrayList<>();
        BandwidthSource intraSource = catalogue.intraNode().busbwMeasured() ? BandwidthSource.MEASURED
                : fitted && b.fit().parameter(FitParam.INTRA_NODE_BUSBW).isPresent() ? BandwidthSource.FITTED
                : BandwidthSource.CATALOGUE;
        double intraCatalogue = c.intraNode().expectedBusbwGbps();
        if (Double.isNaN(intraCatalogue)) intraCatalogue = Catalog.builtIn().links().containsKey(c.intraNode().key())
                ? Catalog.builtIn().links().get(c.intraNode().key()).value().busbwGbps() : c.intraNode().busbwGbps();
        out.add(new LinkFact(dev.trainadvisor.perf.LinkScope.INTRA_NODE, c.intraNode().key(), c.intraNode().busbwGbps(),
                intraSource, intraCatalogue, Catalog.builtIn().transports().shmBusbw(hostPcieGen(c)),
                Catalog.builtIn().transports().socketBusbw()));
        if (c.interNode() != null && c.nodes() > 1) {
            BandwidthSource interSource = !Double.isNaN(catalogue.interNode().busbwGbps()) ? BandwidthSource.MEASURED
                    : fitted && b.fit().parameter(FitParam.INTER_NODE_GBPS).isPresent() ? BandwidthSource.FITTED
                    : BandwidthSource.CATALOGUE;
            double interCatalogue = new dev.trainadvisor.spec.Network(c.interNode().key(), c.interNode().lineRateGbitS(),
                    c.interNode().efficiency(), c.interNode().alphaUs(), c.interNode().nicsPerNode(), Double.NaN,
                    c.interNode().source()).nodeGbps();
            out.add(new LinkFact(dev.trainadvisor.perf.LinkScope.INTER_NODE, c.interNode().key(), c.interNode().nodeGbps(),
                    interSource, interCatalogue, Double.NaN, Double.NaN));
        }
        return out;
    }

    /** The catalogue's NVLink node of the cluster's GPU generation, or null where it has none. */
    public static NvlinkNodeFact nvlinkNode(Cluster c) {
        Gpu sibling = Catalog.builtIn().nvlinkSibling(c.gpu());
        return sibling == null ? null : new NvlinkNodeFact(sibling.key(), sibling.nvlinkLink());
    }

    /** What offload costs the step, from its phases; null for a run that offloads nothing. */
    static OffloadFact offloadFact(Cluster c, RunMetrics run, StepPrediction p) {
        dev.trainadvisor.spec.Offload o = run.training().offload();
        if (!o.any()) return null;
        double opt = 0, copies = 0, update = 0;
        for (Phase ph : p.phases()) {
            if (ph.name().equals(Phase.HOST_OPTIMIZER)) opt += ph.exposedSeconds();
            if (ph.name().equals(Phase.OFFLOAD_COPIES)) copies += ph.exposedSeconds();
            if (ph.name().equals(Phase.OFFLOAD_UPDATE)) update += ph.exposedSeconds();
        }
        dev.trainadvisor.perf.Offloading.HostRate rate = dev.trainadvisor.perf.Offloading.hostRate(c, run.training());
        java.util.List<String> tiers = new java.util.ArrayList<>();
        if (o.optimizer() != dev.trainadvisor.spec.Offload.Tier.NONE) tiers.add("optimizer: " + o.optimizer().key());
        if (o.masterWeights() != dev.trainadvisor.spec.Offload.Tier.NONE) tiers.add("master_weights: " + o.masterWeights().key());
        if (o.gradients() != dev.trainadvisor.spec.Offload.Tier.NONE) tiers.add("gradients: " + o.gradients().key());
        if (o.parameters() != dev.trainadvisor.spec.Offload.Tier.NONE) tiers.add("parameters: " + o.parameters().key());
        if (o.activations() != dev.trainadvisor.spec.Offload.Tier.NONE) tiers.add("activations: " + o.activations().key());
        return new OffloadFact(String.join(", ", tiers), opt, copies, update, opt * rate.paramsPerS(),
                dev.trainadvisor.perf.Offloading.hostLinkGbps(c.gpu().hostPcieGen()), rate, o);
    }

    /** A PCIe link's generation in its catalogue key (knowledge-base/links.json: "PCIe3", "PCIe4", "PCIe5"). */
    private static final java.util.regex.Pattern PCIE_GEN = java.util.regex.Pattern.compile("PCIe(\\d)");

    /** The PCIe generation of the node's host: the link's for a PCIe link, else the GPU's (4 when unknown). */
    static int hostPcieGen(Cluster c) {
        if (c.intraNode().kind() == dev.trainadvisor.spec.LinkKind.PCIE) {
            java.util.regex.Matcher g = PCIE_GEN.matcher(c.intraNode().key());
            if (g.find()) return Integer.parseInt(g.group(1));
        }
        return c.gpu().hostPcieGen() > 0 ? c.gpu().hostPcieGen() : 4;
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
        double tokens = o.tokensPerGpuPerS();
        double tflopsHouse = tokens * house / 1e12;
        double peak = c.gpu().peakTflops(Precision.BF16);
        return new ObservationFact(tokens, o.source(), o.stepTimeS(), m.fwdBwdTimeS(), m.tflopsPerGpu(), conv, convFlops,
                house, tflopsHouse, tflopsHouse / peak, peak);
    }

    /** What the run's history shows (history.HistoryAnalysis), as facts; nothing for a run without one. */
    static List<Object> history(dev.trainadvisor.history.StepHistory h) {
        List<Object> out = new ArrayList<>();
        if (h.isEmpty()) return out;
        var found = dev.trainadvisor.history.HistoryAnalysis.of(h);
        var stalls = found.stalls();
        if (stalls != null) {
            // what the log says was done right before the spiking steps: a save after step N shows in step N + 1's time
            // (the Trainer's bar, Megatron's next iteration line) or in step N's where the log times the save with it
            dev.trainadvisor.history.StepHistory.Kind said = null;
            int saidSpikes = 0;
            for (var kind : dev.trainadvisor.history.StepHistory.Kind.values()) {
                var at = h.stepsOf(kind);
                int n = 0;
                for (long s : stalls.spikeSteps()) if (at.contains(s) || at.contains(s - 1)) n++;
                // as many as a period itself needs: three quarters (HistoryAnalysis.PERIODIC_SHARE)
                if (n > saidSpikes && n >= dev.trainadvisor.history.HistoryAnalysis.PERIODIC_SHARE * stalls.spikeSteps().size()) {
                    said = kind;
                    saidSpikes = n;
                }
            }
            out.add(new StallFact(stalls.period(), stalls.spikeSteps().size(), stalls.spikeSteps().get(0), stalls.medianS(),
                    stalls.costS(), stalls.wallS(), stalls.basis(), said, saidSpikes));
        }
        var pace = found.pace();
        if (pace != null) out.add(new PaceChangeFact(pace.startStep(), pace.beforeS(), pace.afterS(), pace.before(), pace.after(),
                pace.basis()));
        var jitter = found.jitter();
        if (jitter != null) out.add(new JitterFact(jitter.robustCv(), jitter.p90OverMedian(), jitter.entries()));
        // a timer given only as its mean (Lightning's profiler): over the median steady step, no spread between ranks
        for (var t : h.meanTimers()) {
            double step = dev.trainadvisor.history.HistoryAnalysis.steadyMedian(h, h.stepTimeS());
            if (Double.isFinite(step) && step > 0)
                out.add(new RankTimerFact(t.name(), t.meanS(), Double.NaN, Double.NaN, step, (int) Math.min(t.calls(),
                        Integer.MAX_VALUE), t.meanS() / step));
        }
        for (var t : h.timers()) {
            var share = dev.trainadvisor.history.HistoryAnalysis.share(h, t.name());
            if (share == null) continue;
            var spread = dev.trainadvisor.history.HistoryAnalysis.spread(h, t.name());
            out.add(new RankTimerFact(t.name(), share.seconds(), spread == null ? Double.NaN : spread.spreadS(),
                    spread == null ? Double.NaN : spread.maxOverMin(), share.stepS(), share.entries(), share.totalShare()));
        }
        var loss = dev.trainadvisor.history.HistoryAnalysis.loss(h);
        if (loss != null) out.add(new LossEventsFact(loss.spikes(), loss.nonFinite(), loss.firstStep(), loss.worstRatio(),
                loss.entries()));
        return out;
    }
}
