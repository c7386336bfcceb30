package dev.trainadvisor.advice;

import dev.trainadvisor.facts.FittedParameterFact;
import dev.trainadvisor.perf.Efficiency;
import dev.trainadvisor.perf.Fit;
import dev.trainadvisor.perf.FitObservation;
import dev.trainadvisor.perf.FitParameter;
import dev.trainadvisor.perf.FitResult;
import dev.trainadvisor.perf.ObservedThroughput;
import dev.trainadvisor.perf.StepModel;
import dev.trainadvisor.perf.StepPrediction;
import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Network;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.RunSpec;

import java.util.ArrayList;
import java.util.List;

/**
 * The step the rules and what-ifs start from: fitted to the run's timings when it measured them
 * (perf.Fit), else the catalogue prediction. What-ifs keep the fitted compute scale and overlap, so a
 * remedy's gain is predicted for this framework and these kernels, not for the catalogue's.
 *
 * @param fit null when the run measured no timing
 */
record Basis(Cluster cluster, Efficiency efficiency, StepPrediction prediction, FitResult fit) {

    static Basis of(Cluster cluster, RunMetrics run, StepPrediction expected) {
        if (!ObservedThroughput.of(cluster, run).measured()) return new Basis(cluster, expected.efficiency(), expected, null);
        FitResult f = Fit.fit(cluster, run);
        if (!f.fitted()) return new Basis(cluster, expected.efficiency(), expected, null);
        // pin the fitted intra-node bandwidth as a measurement, so that what-ifs written as run files keep it
        Cluster c = f.cluster();
        if (!Double.isInfinite(c.intraNode().busbwGbps()))
            c = new Cluster(c.name(), c.gpu(), c.nodes(), c.gpusPerNode(), c.intraNode().withMeasuredBusbw(c.intraNode().busbwGbps()),
                    c.interNode());
        return new Basis(c, f.efficiency(), f.prediction(), f);
    }

    /** A fitted parameter's value when the measurements fixed it, else its prior: only what the data says carries over. */
    private double learned(String name, double prior) {
        if (fit == null) return prior;
        return fit.parameter(name).filter(FitParameter::constrained).map(FitParameter::fitted).orElse(prior);
    }

    /**
     * The efficiency what-ifs use: the default of the (changed) run's GPU, times the compute scale and with the
     * overlap the measurements fixed. Parameters the data did not constrain stay at their priors, so a remedy's
     * gain does not rest on a value the fit merely traded against another.
     */
    Efficiency efficiencyFor(RunSpec changed) {
        Efficiency d = Efficiency.defaults(changed.cluster().gpu(), changed.run().training().precision());
        return d.withComputeScale(learned(Fit.COMPUTE, 1.0)).withOverlap(learned(Fit.OVERLAP, d.overlapFraction()));
    }

    /** The unchanged run as the what-ifs see it: the starting point of every recommendation's speedup. */
    StepPrediction whatIfBase(RunMetrics run) {
        Efficiency d = Efficiency.defaults(cluster.gpu(), run.training().precision());
        return StepModel.predict(cluster, run, d.withComputeScale(learned(Fit.COMPUTE, 1.0))
                .withOverlap(learned(Fit.OVERLAP, d.overlapFraction())));
    }

    /** One fact per fitted parameter, with what it costs the step against its expected value. */
    List<FittedParameterFact> parameterFacts(RunMetrics run) {
        List<FittedParameterFact> out = new ArrayList<>();
        if (fit == null) return out;
        for (FitParameter p : fit.parameters()) {
            out.add(new FittedParameterFact(p.name(), p.unit(), p.expected(), p.fitted(), p.relativeChange(),
                    p.constrained(), p.priorSource(), Math.max(0, prediction.stepTimeS() - stepWithExpected(p, run))));
        }
        return out;
    }

    /** The fitted step with one parameter put back to its expected value. */
    private double stepWithExpected(FitParameter p, RunMetrics run) {
        Cluster c = cluster;
        Efficiency e = efficiency;
        switch (p.name()) {
            case Fit.COMPUTE -> {
                double k = p.expected() / p.fitted();
                e = e.withComputeScale(k);
            }
            case Fit.OVERLAP -> e = e.withOverlap(p.expected());
            case Fit.INTRA -> c = new Cluster(c.name(), c.gpu(), c.nodes(), c.gpusPerNode(),
                    c.intraNode().withMeasuredBusbw(p.expected()), c.interNode());
            case Fit.INTER -> {
                Network n = c.interNode();
                c = new Cluster(c.name(), c.gpu(), c.nodes(), c.gpusPerNode(), c.intraNode(),
                        new Network(n.key(), n.lineRateGbitS(), n.efficiency(), n.alphaUs(), n.nicsPerNode(), p.expected(), n.source()));
            }
            default -> { return prediction.stepTimeS(); }
        }
        return StepModel.predict(c, run, e).stepTimeS();
    }

    /** The fit as the advice reports it, or null. */
    Advice.FitView view() {
        if (fit == null) return null;
        List<Advice.FitParameterView> params = new ArrayList<>();
        for (FitParameter p : fit.parameters())
            params.add(new Advice.FitParameterView(p.name(), p.unit(), p.expected(), p.fitted(), p.relativeChange(),
                    p.constrained(), p.priorSource()));
        List<Advice.FitObservationView> obs = new ArrayList<>();
        for (FitObservation o : fit.observations())
            obs.add(new Advice.FitObservationView(o.name(), o.measured(), o.expected(), o.fitted()));
        return new Advice.FitView(params, obs, prediction.stepTimeS(), prediction.tokensPerGpuPerS(),
                prediction.tflopsPerGpu(), prediction.exposedCommSeconds(), fit.converged());
    }
}
