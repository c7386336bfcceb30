package dev.trainadvisor.engine;

import dev.trainadvisor.facts.BandwidthSource;
import dev.trainadvisor.facts.Claim;
import dev.trainadvisor.facts.CollectiveFact;
import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.Evidence;
import dev.trainadvisor.facts.FactBuilder;
import dev.trainadvisor.facts.Fault;
import dev.trainadvisor.facts.FittedParameterFact;
import dev.trainadvisor.facts.Fmt;
import dev.trainadvisor.facts.GapFact;
import dev.trainadvisor.facts.HypothesisFact;
import dev.trainadvisor.facts.LaunchFact;
import dev.trainadvisor.facts.Materiality;
import dev.trainadvisor.facts.MemoryFact;
import dev.trainadvisor.facts.ObservationFact;
import dev.trainadvisor.facts.RemedyProposal;
import dev.trainadvisor.facts.Saving;
import dev.trainadvisor.facts.Severity;
import dev.trainadvisor.facts.StepFact;
import dev.trainadvisor.facts.StepHealthFact;
import dev.trainadvisor.perf.Baseline;
import dev.trainadvisor.perf.CollectiveOp;
import dev.trainadvisor.perf.FitHypothesis;
import dev.trainadvisor.perf.FitParam;
import dev.trainadvisor.perf.LinkScope;
import dev.trainadvisor.perf.MeasurementCheck;
import dev.trainadvisor.perf.OverlapWindow;
import dev.trainadvisor.perf.Phase;
import dev.trainadvisor.spec.FlopsConvention;
import dev.trainadvisor.spec.Measurements;
import dev.trainadvisor.spec.Metric;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.ReferenceRun;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;

import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.DoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Facts for rule tests, written by hand: the configuration of an example run file, and every number of the step
 * (phases, collectives, savings, the fit) chosen in the test, so that each rule is judged on given facts and not on
 * the step model. The step's time is the sum of its phases; a collective adds its exposed seconds as the phase of
 * its name, and its seconds are computed here as {@code calls x alpha + factor x bytes / busbw}.
 *
 * <pre>{@code
 * RuleEngine.Result r = GivenFacts.of(PCIE).phase(Phase.FORWARD, 2).phase(Phase.BACKWARD, 4)
 *         .intra(CollectiveOp.ZERO_GRAD_REDUCE_SCATTER, 8, 32e9, 10, 2).fire();
 * }</pre>
 */
final class GivenFacts {
    static final String PCIE = "internlm-7b-pcie-1node.yaml";
    static final String NVLINK = "internlm-7b-nvlink-1node.yaml";
    static final String PCIE_2NODES = "internlm-7b-pcie-2nodes.yaml";
    static final String GPT3_TP16 = "runs/gpt3-tp16.yaml";
    static final String LLAMA_ZERO0 = "runs/llama-2-7b-a100-40gb-zero0.yaml";

    /** Model FLOPs per token of the step (InternLM-7B's order of magnitude); hardware FLOPs add recomputation. */
    static final double MODEL_FLOPS_PER_TOKEN = 4.5e10;

    private Materiality materiality = Materiality.shipped();
    private final GivenRun run;
    private final Map<String, Double> phases = new LinkedHashMap<>();
    private double waveEfficiency = 1.0, tokensPerMicroBatch = 4096, recomputeS = 0;
    private boolean fitted = false;
    private final List<DoubleFunction<CollectiveFact>> collectives = new ArrayList<>();
    private final List<Object> others = new ArrayList<>();

    private GivenFacts(GivenRun run) { this.run = run; }

    /**
     * The configuration of a run file from examples/, or from src/test/resources/ for a name starting "runs/", as
     * the catalogue describes it (its measurements left out: the link bandwidths are the catalogue's).
     */
    static GivenRun run(String file) { return GivenRun.of(file); }

    /** The run with fields changed by name (GivenRun#with). */
    static GivenRun with(GivenRun run, Object... nameValuePairs) { return run.with(nameValuePairs); }

    /** A copy of a record with fields changed: name, value, name, value, ... */
    @SuppressWarnings("unchecked")
    static <R extends Record> R with(R record, Object... nameValuePairs) {
        RecordComponent[] cs = record.getClass().getRecordComponents();
        Object[] args = new Object[cs.length];
        try {
            for (int i = 0; i < cs.length; i++) args[i] = cs[i].getAccessor().invoke(record);
            for (int k = 0; k < nameValuePairs.length; k += 2) {
                String name = (String) nameValuePairs[k];
                int i = Arrays.stream(cs).map(RecordComponent::getName).toList().indexOf(name);
                if (i < 0) throw new IllegalArgumentException(record.getClass().getSimpleName() + " has no field " + name);
                args[i] = nameValuePairs[k + 1];
            }
            Class<?>[] types = Arrays.stream(cs).map(RecordComponent::getType).toArray(Class<?>[]::new);
            return (R) record.getClass().getDeclaredConstructor(types).newInstance(args);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Every run file of examples/ and src/test/resources/runs/, then every published reference run. */
    static List<RunSpec> everyRun() throws IOException {
        List<RunSpec> runs = new ArrayList<>();
        for (Path dir : List.of(Path.of("examples"), Path.of("src/test/resources/runs"))) {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(dev.trainadvisor.docs.ExampleFiles::isRunFile).sorted().toList()) runs.add(new SpecReader().read(f));
            }
        }
        for (ReferenceRun r : ReferenceRun.builtIn()) runs.add(r.spec());
        return runs;
    }

    /** A run whose file gave the intra-node link's bus bandwidth, measured at {@code gbps}. */
    static GivenRun measuredIntra(GivenRun run, double gbps) { return run.measured(LinkScope.INTRA_NODE, gbps); }

    /** A run whose file gave the network's bandwidth per node, measured at {@code gbps}. */
    static GivenRun measuredInter(GivenRun run, double gbps) { return run.measured(LinkScope.INTER_NODE, gbps); }

    static GivenFacts of(String file) { return new GivenFacts(run(file)); }

    static GivenFacts of(GivenRun run) { return new GivenFacts(run); }

    GivenRun run() { return run; }

    private dev.trainadvisor.facts.FrameworkFact framework;

    /** The framework the rules see; without it, the default profile (generic) at the run's ZeRO stage. */
    GivenFacts framework(dev.trainadvisor.facts.FrameworkFact f) {
        framework = f;
        return this;
    }

    /** The default framework's fact at the run's layout. */
    static dev.trainadvisor.facts.FrameworkFact generic(GivenRun run) {
        return framework(run, dev.trainadvisor.spec.Frameworks.builtIn().generic().key(), null);
    }

    /** A shipped framework's fact at the run's layout, optionally reducing after every micro-batch. */
    static dev.trainadvisor.facts.FrameworkFact framework(GivenRun run, String key, Boolean everyMicroBatch) {
        var f = dev.trainadvisor.spec.Frameworks.builtIn().find(key, null, "test", "training.framework");
        var t = with(run.training(), "implementation", new dev.trainadvisor.spec.Implementation(f, dev.trainadvisor.spec.Implementation.GIVEN));
        var p = with(run.parallel(), "gradReduceEveryMicroBatch", everyMicroBatch);
        return dev.trainadvisor.facts.FrameworkFact.of(t, p);
    }

    /** Replaces the shipped thresholds. */
    GivenFacts materiality(Materiality m) {
        materiality = m;
        return this;
    }

    // ---------------------------------------------------------------- the step

    /** Exposed seconds of a phase of the step (Phase constants, or a collective's key). */
    GivenFacts phase(String name, double seconds) {
        phases.merge(name, seconds, Double::sum);
        return this;
    }

    /** Forward, backward and optimizer seconds: a step without communication. */
    GivenFacts compute(double forwardS, double backwardS, double optimizerS) {
        return phase(Phase.FORWARD, forwardS).phase(Phase.BACKWARD, backwardS).phase(Phase.OPTIMIZER, optimizerS);
    }

    /** The share of the SMs the GEMMs keep busy, and the tokens of a micro-batch. */
    GivenFacts wave(double efficiency, double tokens) {
        waveEfficiency = efficiency;
        tokensPerMicroBatch = tokens;
        return this;
    }

    /**
     * The host's launches per micro-batch: {@code launches} at {@code secondsPerLaunch} beside {@code gpuS} of GPU work,
     * a micro-batch taking {@code microBatchS}, {@code microBatches} of them a step.
     */
    GivenFacts launches(double launches, double secondsPerLaunch, double gpuS, double microBatchS, int microBatches,
                        boolean cudaGraphs) {
        others.add(new LaunchFact(launches, secondsPerLaunch, launches * secondsPerLaunch, gpuS, microBatchS, microBatches,
                cudaGraphs));
        return this;
    }

    /** Seconds of the compute spent recomputing activations (hardware FLOPs then exceed the model's in proportion). */
    GivenFacts recompute(double seconds) {
        recomputeS = seconds;
        return this;
    }

    /** The step is fitted to the run's times. */
    GivenFacts fitted() {
        fitted = true;
        return this;
    }

    double stepS() {
        double s = 0;
        for (double v : phases.values()) s += v;
        return s;
    }

    /**
     * A collective: {@code seconds = calls x alphaUs + factor x bytes / busbw}, with the nccl-tests factor of its kind
     * for the group; {@code exposedS} of it adds to the step as the phase of its name.
     */
    GivenFacts collective(CollectiveOp op, int groupSize, double bytes, long calls, double alphaUs, String link,
                          LinkScope scope, boolean crossesNodes, double busbwGbps, double exposedS, OverlapWindow window) {
        double factor = op.kind().factor(groupSize);
        double seconds = calls * alphaUs * 1e-6 + factor * bytes / (busbwGbps * 1e9);
        phase(op.key(), exposedS);
        collectives.add(step -> new CollectiveFact(op, op.kind(), op.group(), groupSize, factor, bytes, calls, alphaUs, link,
                scope, crossesNodes, busbwGbps, seconds, exposedS, exposedS / step, window, crossesNodes ? 2 : 1,
                crossesNodes ? groupSize / 2 : groupSize, false));
        return this;
    }

    /** A collective inside the node, on the run's link, behind the last backward. */
    GivenFacts intra(CollectiveOp op, int groupSize, double bytes, double busbwGbps, double exposedS) {
        return collective(op, groupSize, bytes, 0, 0, run.linkKey(LinkScope.INTRA_NODE), LinkScope.INTRA_NODE, false, busbwGbps, exposedS,
                OverlapWindow.LAST_BACKWARD);
    }

    /** A collective across nodes, bound by the run's network. */
    GivenFacts inter(CollectiveOp op, int groupSize, double bytes, double busbwGbps, double exposedS) {
        return collective(op, groupSize, bytes, 0, 0, run.linkKey(LinkScope.INTER_NODE), LinkScope.INTER_NODE, true, busbwGbps, exposedS,
                OverlapWindow.LAST_BACKWARD);
    }

    // ---------------------------------------------------------------- what Java priced and measured

    /** What a change saves: phase, seconds, phase, seconds, ... */
    GivenFacts saving(Saving.Kind kind, Object... phaseSeconds) {
        List<Claim> by = new ArrayList<>();
        double total = 0;
        for (int i = 0; i < phaseSeconds.length; i += 2) {
            double s = ((Number) phaseSeconds[i + 1]).doubleValue();
            by.add(new Claim((String) phaseSeconds[i], s));
            total += s;
        }
        others.add(new Saving(kind, total, by));
        return this;
    }

    /** Predicted peak memory per GPU, by part; the total is their sum. */
    GivenFacts memory(double capacityGb, double weightsGb, double gradientsGb, double optimizerGb, double activationsGb,
                      double logitsGb, double buffersGb) {
        double total = weightsGb + gradientsGb + optimizerGb + activationsGb + logitsGb + buffersGb;
        others.add(new MemoryFact(total, capacityGb, weightsGb, gradientsGb, optimizerGb, activationsGb, logitsGb, buffersGb));
        return this;
    }

    /** Peak memory of {@code totalGb}, half of it the model states and half activations. */
    GivenFacts memory(double totalGb, double capacityGb) {
        return memory(capacityGb, totalGb * 0.1, totalGb * 0.1, totalGb * 0.3, totalGb * 0.5, 0, 0);
    }

    /** What the run measured: throughput from tokens/GPU/s, and the framework's printed TFLOPS with its convention. */
    GivenFacts observed(double tokensPerGpuPerS, double stepS, double tflopsPrinted, FlopsConvention convention,
                        double conventionFlopsPerToken, double houseFlopsPerToken) {
        double house = tokensPerGpuPerS * houseFlopsPerToken / 1e12;
        others.add(new ObservationFact(tokensPerGpuPerS, Metric.TOKENS_PER_GPU_PER_S, stepS, Double.NaN, tflopsPrinted,
                convention, conventionFlopsPerToken, houseFlopsPerToken, house, house / peak(), peak()));
        return this;
    }

    private double peak() { return run.cluster().gpu().peakTflops(Precision.BF16); }

    /** Observed against predicted step times (the same tokens per step, so throughput goes inversely). */
    GivenFacts gap(double observedStepS, double predictedStepS, double fittedStepS) {
        others.add(new GapFact(predictedStepS / observedStepS, fittedStepS / observedStepS, observedStepS, predictedStepS,
                fittedStepS));
        return this;
    }

    /**
     * A quantity the fit estimated: the expected and fitted value, what it costs the fitted step, and its posterior
     * under the hypotheses that free it ({@link #component}).
     */
    GivenFacts fittedParameter(FitParam param, double expected, double fitted, double costS,
                               FittedParameterFact.Component... mixture) {
        double shift = Math.log(fitted / expected);
        others.add(new FittedParameterFact(param, expected, fitted, fitted * 0.9, fitted * 1.1, true, shift,
                "catalogue", costS, List.of(mixture)));
        return this;
    }

    /** One hypothesis' posterior of a quantity: its weight, and a normal around {@code value} in the fit's coordinate. */
    static FittedParameterFact.Component component(FitParam param, double weight, double value, double sigma) {
        return new FittedParameterFact.Component(weight, FittedParameterFact.coordinate(param, value), sigma);
    }

    /** A hypothesis that meets the run's times (data cost 0); only its posterior sets it apart from the others. */
    GivenFacts hypothesis(FitHypothesis h, double posterior, boolean chosen, boolean rival, double fitted, double expected) {
        others.add(new HypothesisFact(h, posterior, chosen, rival, fitted, expected, 0));
        return this;
    }

    /** A measurement that cannot be right: measured against the limit (ratio = measured / limit). */
    GivenFacts check(MeasurementCheck.Kind kind, Metric metric, double measured, double limit) {
        others.add(new MeasurementCheck(kind, metric, measured, limit, measured / limit));
        return this;
    }

    GivenFacts stepHealth(double steps, double skipped, double lossScale, Precision precision) {
        others.add(new StepHealthFact(steps, skipped, lossScale, precision));
        return this;
    }

    /** A fault given as a fact (the fault rules derive them; a test of what builds on them may state one). */
    GivenFacts fault(FitParam param, double fitted, double expected, double probability, Fault.Source source) {
        others.add(new Fault(param, fitted, expected, probability, source));
        return this;
    }

    /** Any other fact. */
    GivenFacts fact(Object o) {
        others.add(o);
        return this;
    }

    /** The step as a fact: its time the sum of its phases. */
    StepFact stepFact() {
        double step = stepS();
        double compute = phases.getOrDefault(Phase.FORWARD, 0.0) + phases.getOrDefault(Phase.BACKWARD, 0.0);
        double optimizer = phases.getOrDefault(Phase.OPTIMIZER, 0.0), bubble = phases.getOrDefault(Phase.PIPELINE_BUBBLE, 0.0);
        double hardware = compute > recomputeS ? MODEL_FLOPS_PER_TOKEN * compute / (compute - recomputeS) : MODEL_FLOPS_PER_TOKEN;
        return new StepFact(fitted, step, 1000, 150, 0.48, compute, step - compute - optimizer - bubble, optimizer, bubble,
                MODEL_FLOPS_PER_TOKEN, hardware, waveEfficiency, tokensPerMicroBatch, recomputeS, phases);
    }

    /** Every fact: the thresholds, the run, the step (when it has phases), the collectives and the rest. */
    List<Object> facts() {
        List<Object> out = new ArrayList<>();
        out.add(materiality);
        out.addAll(run.facts());
        out.add(framework != null ? framework : generic(run));
        if (!phases.isEmpty()) {
            out.add(stepFact());
            for (DoubleFunction<CollectiveFact> c : collectives) out.add(c.apply(stepS()));
        }
        out.addAll(others);
        return out;
    }

    /** The shipped rules on these facts; every number in every explanation must be one of its evidence values. */
    RuleEngine.Result fire() {
        RuleEngine.Result r = RuleEngine.builtIn().run(facts());
        for (Diagnosis d : r.diagnoses()) assertNumbersAreEvidence(d);
        return r;
    }

    RuleEngine.Result fire(RuleEngine engine) { return engine.run(facts()); }

    // ---------------------------------------------------------------- reading the result

    /** The one diagnosis of this id; fails if there is none or more than one. */
    static Diagnosis only(RuleEngine.Result r, String id) {
        List<Diagnosis> ds = r.diagnoses().stream().filter(d -> d.id().equals(id)).toList();
        if (ds.size() != 1) fail("expected one " + id + " diagnosis, got " + ds.size() + ": " + ids(r));
        return ds.get(0);
    }

    static boolean fired(RuleEngine.Result r, String id) {
        return r.diagnoses().stream().anyMatch(d -> d.id().equals(id));
    }

    /** The one remedy proposal of this id; fails if there is none or more than one. */
    static RemedyProposal proposal(RuleEngine.Result r, String id) {
        List<RemedyProposal> ps = r.proposals().stream().filter(p -> p.id().equals(id)).toList();
        if (ps.size() != 1) fail("expected one " + id + " proposal, got " + ps.size() + ": "
                + r.proposals().stream().map(RemedyProposal::id).toList());
        return ps.get(0);
    }

    static boolean proposed(RuleEngine.Result r, String id) {
        return r.proposals().stream().anyMatch(p -> p.id().equals(id));
    }

    /** The ids of the diagnoses, in ranking order. */
    static List<String> ids(RuleEngine.Result r) {
        return r.diagnoses().stream().map(Diagnosis::id).toList();
    }

    /** The derived facts of a type. */
    static <T> List<T> derived(RuleEngine.Result r, Class<T> type) {
        return r.derived().stream().filter(type::isInstance).map(type::cast).toList();
    }

    /**
     * A diagnosis' claims by phase, in phase order (the order of its claims follows working memory's); fails if it
     * claims a phase twice.
     */
    static Map<String, Double> claims(Diagnosis d) {
        Map<String, Double> out = new TreeMap<>();
        for (Claim c : d.claims())
            if (out.put(c.phase(), c.seconds()) != null) fail(d.id() + " claims " + c.phase() + " twice: " + d.claims());
        return out;
    }

    /** A diagnosis' severity, fault flag, impact (to 1e-9) and the seconds it claims of each phase (to 1e-9). */
    static void assertDiagnosis(Diagnosis d, Severity severity, boolean fault, double impact, Map<String, Double> claims) {
        assertEquals(severity, d.severity(), d.id());
        assertEquals(fault, d.fault(), d.id() + " fault");
        assertEquals(impact, d.impactFraction(), 1e-9, d.id() + " impact");
        Map<String, Double> got = claims(d);
        assertEquals(claims.keySet(), got.keySet(), d.id() + " claims " + got);
        for (Map.Entry<String, Double> e : claims.entrySet())
            assertEquals(e.getValue(), got.get(e.getKey()), 1e-9, d.id() + " claims of " + e.getKey());
    }

    /** A finding: of this severity and fault flag, explaining no seconds of the step. */
    static void assertFinding(Diagnosis d, Severity severity, boolean fault) {
        assertDiagnosis(d, severity, fault, 0, Map.of());
    }

    /** A number standing alone in prose: not part of a name such as A100-PCIe-80GB, NVLink3, bf16 or FlashAttention-2. */
    private static final Pattern NUMBER = Pattern.compile("(?<![\\w.=-])\\d+(?:\\.\\d+)?");

    /**
     * Every number written in the explanation is an evidence value as Explain writes it (three or more significant
     * digits, a count, a percentage): the prose carries no number of its own (facts.Explain).
     */
    static void assertNumbersAreEvidence(Diagnosis d) {
        String text = d.explanation();
        int rule = text.lastIndexOf(" [rule ");
        if (rule >= 0) text = text.substring(0, rule);
        Set<String> written = new HashSet<>();
        for (Evidence e : d.evidence()) {
            double v = e.value();
            // three digits as a value, four in a formula, more where a difference cancels (facts.Explain#digits)
            for (int digits = 3; digits <= 15; digits++) written.add(Fmt.num(v, digits));
            if (v == Math.rint(v)) written.add(String.valueOf((long) v));
            if (e.unit().equals("%")) written.add(String.format(Locale.ROOT, "%.0f", v));
        }
        Matcher m = NUMBER.matcher(text);
        while (m.find())
            if (!written.contains(m.group()))
                fail(d.id() + " writes " + m.group() + " (at \"" + text.substring(Math.max(0, m.start() - 30), Math.min(text.length(),
                        m.end() + 30)) + "\"), which is no evidence value: " + d.evidence());
    }

    /** The value of a piece of evidence; fails if the diagnosis lists none of that name. */
    static double evidence(Diagnosis d, String name) {
        return d.evidence().stream().filter(e -> e.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(d.id() + " has no evidence " + name + ": " + d.evidence())).value();
    }
}
