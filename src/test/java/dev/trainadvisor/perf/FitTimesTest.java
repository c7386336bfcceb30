package dev.trainadvisor.perf;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fit's times worked out once for a layout and cluster (FitTimes) against the step model's own (StepModel#times) of
 * the scenario moved there: on every scenario StepTimesTest checks (every reference run, the examples, the test run
 * files with offload, pipelines, ZeRO-3 copies and several nodes, each at the catalogue's values and moved along each
 * fitted quantity), at its own values and moved on a grid of the four quantities wide enough to cross each link's
 * switch from the faster to the slower of two (a group across NVLink domains), NCCL's switch between algorithms (a
 * tree or PAT against the ring as the bandwidth falls), a window that just hides its collectives and one that hides
 * none. The step, forward, backward and after-backward times agree to a part in 10^11 of the step (the same sums in
 * another order: rounding). A term summed once that moves with a quantity (a memory-bound kernel taken as compute, a
 * link's bandwidth taken from the other link, the offload's hidden copies at a fixed overlap) fails here.
 */
class FitTimesTest {

    private static final double[] COMPUTE = {0.3, 1, 1.9}, INTRA = {0.003, 0.1, 1, 4}, NET = {0.002, 0.2, 1, 30},
            OVERLAP = {0.01, 0.45, 0.97};

    private static void assertSame(StepModel.Times want, StepModel.Times got, String what) {
        double tol = 1e-11 * want.stepTimeS();
        assertEquals(want.stepTimeS(), got.stepTimeS(), tol, what + ": step");
        assertEquals(want.forwardSeconds(), got.forwardSeconds(), tol, what + ": forward");
        assertEquals(want.backwardSeconds(), got.backwardSeconds(), tol, what + ": backward");
        assertEquals(want.afterBackwardSeconds(), got.afterBackwardSeconds(), tol, what + ": after the backward");
    }

    @Test
    void theTimesWorkedOutOnceAreTheStepModelsAtEveryPoint() throws Exception {
        List<Scenario> all = StepTimesTest.scenarios();
        int points = 0, none = 0, crossing = 0;
        for (Scenario s : all) {
            FitTimes ft = FitTimes.of(s);
            if (ft == null) {
                none++;
                continue;
            }
            String name = s.run().name() + " at compute " + s.computeScale() + ", overlap " + s.overlap();
            assertSame(StepModel.times(s.cluster(), s.run(), s.efficiency()), ft.at(ft.values()), name);
            points++;
            if (s.hasIntraLink() && s.hasNetwork()) crossing++;
            for (double c : COMPUTE)
                for (double i : s.hasIntraLink() ? INTRA : new double[]{1})
                    for (double n : s.hasNetwork() ? NET : new double[]{1})
                        for (double o : OVERLAP) {
                            Scenario m = s.with(FitParam.COMPUTE_SCALE, s.computeScale() * c)
                                    .with(FitParam.OVERLAP_FRACTION, o);
                            if (s.hasIntraLink())
                                m = m.with(FitParam.INTRA_NODE_BUSBW, s.value(FitParam.INTRA_NODE_BUSBW) * i);
                            if (s.hasNetwork()) m = m.with(FitParam.INTER_NODE_GBPS, s.value(FitParam.INTER_NODE_GBPS) * n);
                            double[] v = ft.values();
                            v[FitParam.COMPUTE_SCALE.ordinal()] = m.computeScale();
                            v[FitParam.OVERLAP_FRACTION.ordinal()] = m.overlap();
                            if (s.hasIntraLink()) v[FitParam.INTRA_NODE_BUSBW.ordinal()] = m.value(FitParam.INTRA_NODE_BUSBW);
                            if (s.hasNetwork()) v[FitParam.INTER_NODE_GBPS.ordinal()] = m.value(FitParam.INTER_NODE_GBPS);
                            assertSame(StepModel.times(m.cluster(), m.run(), m.efficiency()), ft.at(v),
                                    name + " moved to compute " + c + "x, intra " + i + "x, network " + n + "x, overlap " + o);
                            points++;
                        }
        }
        assertTrue(none == 0, none + " scenarios not worked out once");
        assertTrue(points > 100_000 && crossing > 100, points + " points, " + crossing + " scenarios with both links");
    }
}
