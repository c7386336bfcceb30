package dev.trainadvisor.perf;

import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a prediction reuses of the last ones on its thread (StepModel.Recent: a micro-batch's compute time by layout and
 * efficiencies, the collectives before overlap by layout and links) changes no prediction: scenarios of one layout that
 * differ in one fitted quantity at a time (the compute scale, the intra-node bus bandwidth, the network's, the overlap:
 * what a fit's Jacobian moves), predicted one after the other on one thread, equal the same scenarios each predicted
 * alone on a fresh thread, where nothing is held. A slot matched on the layout alone, without the links or the
 * efficiencies, would hand a prediction the collectives or the compute of its neighbour and fail here.
 */
class RecentPredictionsTest {

    static List<Scenario> scenarios() throws Exception {
        List<Path> files;
        try (Stream<Path> s = Stream.concat(Files.list(Path.of("examples")), Files.list(Path.of("src/test/resources/runs")))) {
            files = s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        List<Scenario> out = new ArrayList<>();
        int multiNode = 0;
        for (Path f : files) {
            RunSpec spec;
            try {
                spec = new SpecReader().read(f);
            } catch (RuntimeException e) {
                continue;   // a run file that needs its log or another file: not what this test is about
            }
            Scenario s0 = Scenario.catalogue(spec.cluster(), spec.run());
            if (s0.hasNetwork()) multiNode++;
            // the order a fit's Jacobian takes: the point, then each quantity moved alone, then the next point
            for (double k : new double[]{1.0, 0.7}) {
                Scenario x = s0.with(FitParam.COMPUTE_SCALE, k);
                out.add(x);
                out.add(x.with(FitParam.COMPUTE_SCALE, k * 1.001));
                if (x.hasIntraLink()) out.add(x.with(FitParam.INTRA_NODE_BUSBW, x.value(FitParam.INTRA_NODE_BUSBW) * 0.5));
                if (x.hasNetwork()) out.add(x.with(FitParam.INTER_NODE_GBPS, x.value(FitParam.INTER_NODE_GBPS) * 0.3));
                out.add(x.with(FitParam.OVERLAP_FRACTION, 0.3));
            }
        }
        assertTrue(out.size() > 80, "varied scenarios: " + out.size());
        assertTrue(multiNode >= 2, "runs over several nodes (the network moved): " + multiNode);
        return out;
    }

    @Test
    void predictionsAfterOthersEqualPredictionsAlone() throws Exception {
        List<Scenario> all = scenarios();
        List<StepPrediction> inTurn = new ArrayList<>();
        long before = StepModel.recentHits();
        for (Scenario s : all) inTurn.add(s.predict());
        long hits = StepModel.recentHits() - before;
        assertTrue(hits > all.size() / 2, "the thread's recent values answered " + hits + " of " + 2 * all.size() + " look-ups");
        for (int i = 0; i < all.size(); i++) {
            Scenario s = all.get(i);
            // a new thread for each: its slots are empty, so everything is worked out for this scenario alone
            StepPrediction[] alone = new StepPrediction[1];
            Thread t = new Thread(() -> alone[0] = s.predict());
            t.start();
            t.join();
            // the whole prediction (every phase, collective, compute time and memory figure), bit for bit
            assertTrue(alone[0].equals(inTurn.get(i)), "scenario " + i + " of " + s.run().name() + ": step "
                    + alone[0].stepTimeS() + " s alone, " + inTurn.get(i).stepTimeS() + " s after the others");
        }
    }

    /**
     * Remedies priced in turn, as the advice prices them: each change under the run's explanation, then under the next
     * (a changed run of its own each time: equal values, other instances), then the next change. A prediction of a
     * changed run equals that run predicted alone on a fresh thread; the pieces of the layout last predicted, matched by
     * value where the instances differ, would hand a change the layout of the one before it (another micro-batch count,
     * ZeRO stage or recomputation) if the match left out a part of the layout, and fail here.
     */
    @Test
    void changedRunsPricedInTurnEqualEachAlone() throws Exception {
        List<Scenario> bases = new ArrayList<>();
        for (Scenario s : scenarios()) if (s.computeScale() == 1.0 && bases.stream().noneMatch(b -> b.run() == s.run())) bases.add(s);
        List<dev.trainadvisor.spec.RunChange> changes = List.of(
                dev.trainadvisor.spec.RunChange.of(dev.trainadvisor.spec.RunField.MICRO_BATCHES, 64),
                dev.trainadvisor.spec.RunChange.of(dev.trainadvisor.spec.RunField.RECOMPUTE, dev.trainadvisor.spec.Recompute.FULL),
                dev.trainadvisor.spec.RunChange.of(dev.trainadvisor.spec.RunField.ZERO_STAGE, 1),
                dev.trainadvisor.spec.RunChange.of(dev.trainadvisor.spec.RunField.MICRO_BATCH_SIZE, 2));
        List<Scenario> from = new ArrayList<>();
        List<dev.trainadvisor.spec.RunChange> made = new ArrayList<>();
        List<StepPrediction> inTurn = new ArrayList<>();
        for (Scenario b : bases) {
            for (dev.trainadvisor.spec.RunChange c : changes) {
                // the change under the run's own values, then under another explanation (compute 0.8), then again
                for (Scenario under : List.of(b, b.with(FitParam.COMPUTE_SCALE, 0.8), b)) {
                    Baseline.Priced q = Baseline.price(under, c);
                    if (q == null) continue;
                    from.add(under);
                    made.add(c);
                    inTurn.add(q.step());
                }
            }
        }
        assertTrue(inTurn.size() > 100, "changes priced: " + inTurn.size());
        for (int i = 0; i < inTurn.size(); i++) {
            Scenario under = from.get(i);
            dev.trainadvisor.spec.RunChange c = made.get(i);
            StepPrediction[] alone = new StepPrediction[1];
            Thread t = new Thread(() -> alone[0] = Baseline.price(under, c).step());
            t.start();
            t.join();
            assertTrue(alone[0].equals(inTurn.get(i)), "change " + c.asRunFile() + " of " + under.run().name() + ": step "
                    + alone[0].stepTimeS() + " s alone, " + inTurn.get(i).stepTimeS() + " s priced in turn");
        }
    }
}
