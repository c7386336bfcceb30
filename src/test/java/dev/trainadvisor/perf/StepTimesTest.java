package dev.trainadvisor.perf;

import dev.trainadvisor.spec.ReferenceRun;
import dev.trainadvisor.spec.RunSpec;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The times a fit reads of a point it asks for once (StepModel#times, no phases, collectives or prediction built) are
 * the full prediction's, bit for bit: the step, the forward and backward with the exposed collectives that land in
 * them, what runs after the last backward and the forward-backward timer's share. Over every reference run, the
 * examples and the test run files (offload, pipelines, ZeRO-3 copies, several nodes), each at the catalogue's values
 * and moved along each fitted quantity as a fit moves it; a sum taken in another order, or a phase left out (the host
 * optimizer, the offload's update), fails here.
 */
class StepTimesTest {

    static List<Scenario> scenarios() throws Exception {
        List<Scenario> bases = new ArrayList<>();
        for (ReferenceRun rr : ReferenceRun.builtIn()) {
            RunSpec s = rr.spec();
            bases.add(Scenario.catalogue(s.cluster(), s.run()));
        }
        // offloaded runs: the host's optimizer and the copies each way
        try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(
                java.nio.file.Path.of("src/test/resources/runs/offload"))) {
            for (java.nio.file.Path f : files.sorted().toList()) {
                RunSpec s = new dev.trainadvisor.spec.SpecReader().read(f);
                bases.add(Scenario.catalogue(s.cluster(), s.run()));
            }
        }
        List<Scenario> out = new ArrayList<>(RecentPredictionsTest.scenarios());
        for (Scenario s0 : bases) {
            out.add(s0);
            Scenario slow = s0.with(FitParam.COMPUTE_SCALE, 0.6);
            out.add(slow);
            out.add(s0.with(FitParam.OVERLAP_FRACTION, 0.05));
            if (s0.hasIntraLink()) out.add(slow.with(FitParam.INTRA_NODE_BUSBW, s0.value(FitParam.INTRA_NODE_BUSBW) * 0.05));
            if (s0.hasNetwork()) out.add(s0.with(FitParam.INTER_NODE_GBPS, s0.value(FitParam.INTER_NODE_GBPS) * 0.1));
        }
        return out;
    }

    @Test
    void theTimesAloneAreThePredictionsTimes() throws Exception {
        int offloaded = 0, pipelined = 0, afterBackward = 0;
        List<Scenario> all = scenarios();
        for (Scenario s : all) {
            StepPrediction p = s.predict();
            StepModel.Times t = StepModel.times(s.cluster(), s.run(), s.efficiency());
            String what = s.run().name() + " at compute " + s.computeScale() + ", overlap " + s.overlap();
            // assertEquals on doubles compares as Double.equals does: bit for bit
            assertEquals(p.stepTimeS(), t.stepTimeS(), what);
            assertEquals(p.forwardSeconds(), t.forwardSeconds(), what);
            assertEquals(p.backwardSeconds(), t.backwardSeconds(), what);
            assertEquals(p.afterBackwardSeconds(), t.afterBackwardSeconds(), what);
            assertEquals(p.fwdBwdSeconds(), t.fwdBwdSeconds(), what);
            if (s.run().training().offload().any()) offloaded++;
            if (s.run().parallel().pp() > 1) pipelined++;
            if (p.collectives().stream().anyMatch(c -> c.afterBackward() && c.exposedSeconds() > 0)) afterBackward++;
        }
        assertTrue(all.size() > 1000, "scenarios: " + all.size());
        assertTrue(offloaded >= 6 && pipelined > 50 && afterBackward > 50,
                "offloaded " + offloaded + ", pipelined " + pipelined + ", exposed after the backward " + afterBackward);
    }
}
