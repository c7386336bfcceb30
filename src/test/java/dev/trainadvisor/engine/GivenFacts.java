package dev.trainadvisor.engine;

import dev.trainadvisor.facts.CollectiveFact;
import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.FactBuilder;
import dev.trainadvisor.facts.GapFact;
import dev.trainadvisor.facts.MemoryFact;
import dev.trainadvisor.facts.PhaseFact;
import dev.trainadvisor.facts.ObservationFact;
import dev.trainadvisor.facts.PredictionFact;
import dev.trainadvisor.facts.RunFact;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Facts for rule tests, built by hand: a configuration from an example run file, and predicted or
 * observed numbers chosen for the case, so each rule is judged on given facts, not on the step model.
 */
final class GivenFacts {
    final List<Object> facts = new ArrayList<>();

    /** A run file from examples/, or from src/test/resources/runs/ when the name starts with "runs/". */
    static RunFact run(String example) {
        Path p = example.startsWith("runs/") ? Path.of("src/test/resources", example) : Path.of("examples", example);
        RunSpec s = new SpecReader().read(p);
        return FactBuilder.runFact(s.cluster(), s.run());
    }

    static GivenFacts of(String example) {
        GivenFacts g = new GivenFacts();
        g.facts.add(run(example));
        return g;
    }

    /** A predicted step of {@code stepS} seconds at {@code tokensPerGpuPerS}. */
    GivenFacts step(double stepS, double tokensPerGpuPerS) {
        facts.add(new PredictionFact(stepS, tokensPerGpuPerS, 150, 0.48, stepS * 0.8, stepS * 0.2, 0.02, 0, 4.46e10, 4.46e10,
                0.95, 4096));
        return this;
    }

    /**
     * A predicted step whose compute (80% of it) ran the given hardware over model FLOPs, GEMM wave efficiency and
     * optimizer seconds.
     */
    GivenFacts step(double stepS, double hardwareOverModel, double wave, double optimizerS, double tokensPerMicroBatch) {
        facts.add(new PredictionFact(stepS, 1000, 150, 0.48, stepS * 0.8, stepS * 0.1, optimizerS, 0, 4.46e10,
                4.46e10 * hardwareOverModel, wave, tokensPerMicroBatch));
        return this;
    }

    /** A collective whose time is all its bytes over busbw and of which {@code exposedS} is not hidden. */
    GivenFacts collective(String name, String scope, String link, double busbwGbps, double bytes, double exposedS, double stepS) {
        double factor = 7.0 / 8;
        double seconds = factor * bytes / (busbwGbps * 1e9);
        facts.add(new CollectiveFact(name, "reduce-scatter", "zero", 8, factor, bytes, link, scope, false, busbwGbps,
                seconds, exposedS, exposedS / stepS, "last-backward"));
        return this;
    }

    GivenFacts memory(double totalGb, double capacityGb) {
        facts.add(new MemoryFact(totalGb, capacityGb, totalGb * 0.2, totalGb * 0.2, totalGb * 0.3, totalGb * 0.27, totalGb * 0.01,
                totalGb * 0.02));
        return this;
    }

    GivenFacts phase(String name, double seconds, double stepS) {
        facts.add(new PhaseFact(name, seconds, seconds, seconds / stepS, null));
        return this;
    }

    /** A TP collective crossing nodes (16 ranks, 8 per node). */
    GivenFacts tpCollective(double exposedS, double stepS) {
        facts.add(new CollectiveFact("tp-all-reduce", "all-reduce", "tp", 16, 2.0 * 15 / 16, 19.3e9, "IB-HDR", "inter-node",
                true, 192, exposedS, exposedS, exposedS / stepS, "none"));
        return this;
    }

    /** A parameter fitted to the run's timings, costing {@code costS} of the step against its expected value. */
    GivenFacts fitted(String name, double expected, double fitted, boolean constrained, double costS) {
        facts.add(new dev.trainadvisor.facts.FittedParameterFact(name, "GB/s", expected, fitted, fitted / expected - 1,
                constrained, "catalogue PCIe4", costS));
        return this;
    }

    /** The run's kernels: attention and element-wise seconds per step and what FA2 and fused kernels would save. */
    GivenFacts kernels(String attentionKernel, String elementwiseKernels, double attentionS, double attentionSavingS,
                       double elementwiseS, double elementwiseSavingS, double stepS) {
        facts.add(new dev.trainadvisor.facts.KernelFact(attentionKernel, elementwiseKernels, attentionS, attentionSavingS,
                elementwiseS, elementwiseSavingS, stepS));
        return this;
    }

    GivenFacts stepHealth(double steps, double skipped, double lossScale, String precision) {
        facts.add(new dev.trainadvisor.facts.StepHealthFact(steps, skipped, lossScale, precision));
        return this;
    }

    /** A data-parallel collective with no compute to hide behind. */
    GivenFacts unoverlapped(String name, String group, double exposedS, double stepS) {
        facts.add(new CollectiveFact(name, "all-gather", group, 8, 7.0 / 8, 14.6e9, "PCIe4", "intra-node", false, 20,
                exposedS, exposedS, exposedS / stepS, "none"));
        return this;
    }

    GivenFacts observed(double tokensPerGpuPerS, double stepS, double tflopsPrinted, String convention,
                        double conventionFlops, double houseFlops) {
        facts.add(new ObservationFact(tokensPerGpuPerS, stepS, Double.NaN, tflopsPrinted, convention, conventionFlops,
                houseFlops, tokensPerGpuPerS * houseFlops / 1e12, tokensPerGpuPerS * houseFlops / 1e12 / 312,
                "tokens_per_gpu_per_s"));
        return this;
    }

    GivenFacts gap(double observedOverPredicted, double observedStepS, double predictedStepS) {
        facts.add(new GapFact(observedOverPredicted, observedStepS, predictedStepS, observedStepS - predictedStepS));
        return this;
    }

    RuleEngine.Result fire() { return RuleEngine.builtIn().run(facts); }

    static Diagnosis only(RuleEngine.Result r, String id) {
        List<Diagnosis> ds = r.diagnoses().stream().filter(d -> d.id().equals(id)).toList();
        if (ds.size() != 1) throw new AssertionError("expected one " + id + " diagnosis, got " + r.diagnoses());
        return ds.get(0);
    }

    static boolean fired(RuleEngine.Result r, String id) {
        return r.diagnoses().stream().anyMatch(d -> d.id().equals(id));
    }
}
