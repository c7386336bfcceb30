package dev.trainadvisor.advice;

import dev.trainadvisor.assemble.RunFiles;
import dev.trainadvisor.engine.RuleEngine;
import dev.trainadvisor.facts.Cause;
import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.perf.ObservedThroughput;
import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Measurements;
import dev.trainadvisor.spec.ReferenceRun;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.RunSpec;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 20's done-when, over every run the project holds: the examples, the scenario runs of src/test/resources/runs
 * (the H200 Trainer, Lightning and TRL logs, the two-H200 PyTorch runs, the offload runs), and the 248 published
 * reference runs; and each of them again described by its throughput alone.
 * <ul>
 * <li>no advice leads with a fault the fit is unsure of (under even odds) above a more severe cause, or above a cause
 * that is sure and claims more of the step;</li>
 * <li>no run described by its throughput alone carries a fault of the fit at {@link Diagnosis#SURE} or above: one
 * number cannot single out a quantity (it is unexplained-slowdown listing the candidates instead);</li>
 * <li>both motivating PCIe files, the example and the one a user writes, lead with intra-node-bandwidth.</li>
 * </ul>
 */
class LeadingCauseSurveyTest {
    private static final TrainAdvisor ADVISOR = new TrainAdvisor(RuleEngine.builtIn()).withoutLayoutSearch();

    /** Every run: name to spec, in a stable order. */
    static Map<String, RunSpec> everyRun() throws IOException {
        Map<String, RunSpec> runs = new LinkedHashMap<>();
        for (Path dir : List.of(Path.of("examples"), Path.of("src/test/resources/runs"))) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path f : files.filter(dev.trainadvisor.docs.ExampleFiles::isRunFile).sorted().toList())
                    if (!f.startsWith("examples/rules")) runs.put(f.toString(), RunFiles.read(f));
            }
        }
        for (ReferenceRun r : ReferenceRun.builtIn()) runs.put("reference " + r.id(), r.spec());
        return runs;
    }

    /** The same run described only by the throughput it measured, on a cluster whose links it did not measure; null where it measured none. */
    static RunSpec throughputOnly(RunSpec s) {
        Cluster c = s.cluster();
        if (c.intraNode().busbwMeasured() || (c.interNode() != null && !Double.isNaN(c.interNode().busbwGbps()))) return null;
        ObservedThroughput o = ObservedThroughput.of(c, s.run());
        if (!o.measured()) return null;
        RunMetrics r = s.run();
        Measurements only = new Measurements(Double.NaN, null, o.tokensPerGpuPerS(), Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        return new RunSpec(s.name(), c, new RunMetrics(r.name(), r.model(), r.parallel(), r.training(), only));
    }

    static List<Diagnosis> diagnoses(RunSpec s) {
        return ADVISOR.diagnose(s.cluster(), s.run()).result().diagnoses();
    }

    /** Whether a diagnosis is a fault the fit attributed (not a measured link, not a check of the measurements). */
    static boolean fitFault(Diagnosis d) {
        return d.fault() && (d.cause() == Cause.COMPUTE_UNDERPERFORMS || d.cause() == Cause.LINK_UNDERPERFORMS
                || d.cause() == Cause.UNOVERLAPPED_COMMUNICATION);
    }

    /** Where an unsure fault ranks above a more severe cause, or above a sure one that claims more: "i over j", or null. */
    static String unsureFirst(List<Diagnosis> ds) {
        for (int i = 0; i < ds.size(); i++) {
            Diagnosis a = ds.get(i);
            if (!a.fault() || a.probability() >= Diagnosis.EVEN_ODDS) continue;
            for (int j = i + 1; j < ds.size(); j++) {
                Diagnosis b = ds.get(j);
                if (b.severity().compareTo(a.severity()) < 0
                        || (b.probability() >= Diagnosis.SURE && b.impactFraction() > a.impactFraction()))
                    return a.id() + " (" + a.severity() + ", p " + a.probability() + ", " + a.impactFraction() + ") over "
                            + b.id() + " (" + b.severity() + ", p " + b.probability() + ", " + b.impactFraction() + ")";
            }
        }
        return null;
    }

    @Test
    void noAdviceLeadsWithAnUnsureFaultAndNoThroughputAloneSinglesOneOut() throws IOException {
        Map<String, RunSpec> runs = everyRun();
        List<String> unsureFirst = new ArrayList<>(), sureFromThroughput = new ArrayList<>();
        int advices = 0, throughputOnly = 0, unexplained = 0;
        for (Map.Entry<String, RunSpec> e : runs.entrySet()) {
            List<Diagnosis> ds = diagnoses(e.getValue());
            advices++;
            String wrong = unsureFirst(ds);
            if (wrong != null) unsureFirst.add(e.getKey() + ": " + wrong);
            RunSpec only = throughputOnly(e.getValue());
            if (only == null) continue;
            List<Diagnosis> od = diagnoses(only);
            advices++;
            throughputOnly++;
            wrong = unsureFirst(od);
            if (wrong != null) unsureFirst.add(e.getKey() + " (throughput only): " + wrong);
            for (Diagnosis d : od)
                if (fitFault(d) && d.probability() >= Diagnosis.SURE)
                    sureFromThroughput.add(e.getKey() + ": " + d.id() + " at " + d.probability());
            if (od.stream().anyMatch(d -> d.cause() == Cause.UNEXPLAINED_SLOWDOWN)) unexplained++;
        }
        assertTrue(runs.size() >= 280 && throughputOnly >= 250, runs.size() + " runs, " + throughputOnly + " throughput only");
        assertEquals(List.of(), unsureFirst, "of " + advices + " advices");
        assertEquals(List.of(), sureFromThroughput, "of " + throughputOnly + " throughput-only runs");
        // the check has something to check: throughput-only runs the model cannot explain, each listing candidates
        assertTrue(unexplained >= 5, unexplained + " throughput-only runs are unexplained-slowdown");
    }

    @Test
    void bothMotivatingPcieFilesLeadWithIntraNodeBandwidth() {
        for (String f : List.of("examples/internlm-7b-pcie-1node.yaml", "src/test/resources/runs/internlm-7b-pcie-as-a-user-writes-it.yaml")) {
            List<Diagnosis> ds = diagnoses(RunFiles.read(Path.of(f)));
            assertEquals(Cause.INTRA_NODE_BANDWIDTH, ds.get(0).cause(), f + ": " + ds.stream().map(Diagnosis::id).toList());
        }
    }
}
