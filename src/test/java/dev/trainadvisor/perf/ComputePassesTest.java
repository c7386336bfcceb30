package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Gpu;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.ReferenceRun;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.Training;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A micro-batch's forward-equivalent passes of each operation are its recomputation's passes less the two a backward
 * counts, plus the backward's own time over the forward's, as the Roofline times them: bit for bit, worked out here
 * through the Roofline's public methods for every reference run (dense, grouped GEMMs of mixtures of experts,
 * recomputation full and selective) at the catalogue's efficiencies and at a fit's slower compute. ComputeTime takes
 * the quotient as exactly 2 where the backward is two forwards rather than timing the operation again; an operation
 * misclassified there (a grouped GEMM's backward taken as two forwards) fails here.
 */
class ComputePassesTest {

    @Test
    void passesAreTheBackwardOverTheForwardBitForBit() throws Exception {
        int doubled = 0, own = 0;
        for (ReferenceRun rr : ReferenceRun.builtIn()) {
            RunSpec s = rr.spec();
            RunMetrics run = s.run();
            Gpu gpu = s.cluster().gpu();
            Training t = run.training();
            Efficiency base = Efficiency.defaults(gpu, run);
            for (Efficiency eff : new Efficiency[]{base, base.withComputeScale(0.6)}) {
                ComputeTime c = ComputeTime.of(run.model(), run.parallel(), t, gpu, eff);
                Roofline roofline = new Roofline(gpu, t, eff);
                for (ComputeTime.Timed timed : c.operations()) {
                    Operation o = timed.operation();
                    double fwd = roofline.forwardSeconds(o), bwd = roofline.backwardSeconds(o);
                    double recomputed = o.passes(t.fullRecomputeShare(), t.recompute() == Recompute.SELECTIVE);
                    double expected = fwd > 0 ? recomputed - 2 + bwd / fwd : recomputed;
                    String what = run.name() + " " + o.name() + " at compute " + eff.gemmFractionOfPeak();
                    assertEquals(fwd, timed.forwardSeconds(), what);
                    // assertEquals on doubles compares as Double.equals does: bit for bit
                    assertEquals(expected, timed.passes(), what);
                    if (bwd == 2 * fwd) doubled++;
                    else own++;
                }
            }
        }
        // both kinds are held: operations whose backward is two forwards, and grouped GEMMs timed on their own
        assertTrue(doubled > 100, "operations with a backward of two forwards: " + doubled);
        assertTrue(own > 0, "grouped GEMMs with a backward of their own: " + own);
    }
}
