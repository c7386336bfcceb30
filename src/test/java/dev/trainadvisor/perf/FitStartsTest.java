package dev.trainadvisor.perf;

import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Where a freed quantity's fit is started (Fit.START_SIGMAS, Fit.WIDE_START_SIGMAS), on runs of bench/fleet.py's
 * 10,000 (src/test/resources/runs/fit-starts) whose old starts ended above a lower optimum. The cost is the fit's
 * objective, the whitened residuals' squares, so a lower one is the better fit of the same hypothesis; each reference
 * is what a probe build of the 53rd stop reached from many more starts, and each assertion fails with the old starts
 * put back (checked).
 */
class FitStartsTest {

    private static HypothesisFit hypothesis(String run, FitHypothesis h) {
        RunSpec s = new SpecReader().read(Path.of("src/test/resources/runs/fit-starts", run));
        FitResult r = Fit.fit(s.cluster(), s.run());
        return r.hypotheses().stream().filter(f -> f.hypothesis() == h).findFirst().orElseThrow();
    }

    private static HypothesisFit overlap(String run) { return hypothesis(run, FitHypothesis.OVERLAP_FRACTION); }

    /**
     * The overlap: Llama-3.1-405B on 512 H100 under tp 8, pp 8, cp 2, ZeRO 3, and an approximation of DeepSeek-V3 on
     * 2,048 H800 under pp 16, ep 64, throughput alone. The lowest cost of 25 Levenberg-Marquardt runs, from the prior
     * and every quarter of a fault sigma to six down: 6.7725 and 0.0564, where the starts 1, 2 and 3 sigmas down ended
     * at 8.1832 and 0.5327.
     */
    @Test
    void theOverlapFitReachesTheLowestOptimumOfADenseScan() {
        assertEquals(6.7725, overlap("run-00537.json").cost(), 1e-3);
        assertEquals(0.0564, overlap("run-01700.json").cost(), 1e-3);
    }

    /**
     * The wide component of the intra-node link's contaminated fault prior: MPT-125M and MPT-350M on one node of 8 A100
     * over NVLink3, throughput alone, whose wide fit, started at the prior and the narrow optimum, ended at a cost of
     * 13.02 and 11.85 where a start two wide sigmas down reaches 3.68 and 4.04. The link hypothesis's evidence is the
     * mixture's, so the missed optimum cost it: ln evidence -9.885 and -9.364 with the old starts, against -9.5042 and
     * -9.1360 with the wide fit started from the prior, the narrow optimum and every quarter of a wide sigma to four
     * down (18 starts, a probe build of the 53rd stop), which the two starts now give.
     */
    @Test
    void theLinksEvidenceCountsTheWideComponentsLowestOptimum() {
        assertEquals(-9.5042, hypothesis("run-01203.json", FitHypothesis.INTRA_NODE_BUSBW).logEvidence(), 1e-4);
        assertEquals(-9.1360, hypothesis("run-07736.json", FitHypothesis.INTRA_NODE_BUSBW).logEvidence(), 1e-4);
    }

    /**
     * The healthy hypothesis (Fit.NOMINAL_OVERLAP_START_SIGMAS): OLMo-2 13B under ZeRO 3 on one DGX H100 node,
     * throughput alone, slower than the catalogue. From the prior the overlap still hides every collective, so the
     * fit slowed the compute alone and ended at a cost of 38.39 and 30.16; lowering the overlap within its ordinary
     * spread reaches 12.205 and 10.200 (the lowest ends from the prior and from every quarter sigma to four down along
     * the link and the overlap, a probe build of the 53rd stop).
     */
    @Test
    void theHealthyFitLowersTheOverlapWhereThatFitsBetter() {
        assertEquals(12.2050, hypothesis("run-02773.json", FitHypothesis.NOMINAL).cost(), 1e-3);
        assertEquals(10.2002, hypothesis("run-05176.json", FitHypothesis.NOMINAL).cost(), 1e-3);
    }

    /**
     * Several faults at once (Fit.SEVERAL_STARTS): GPT-3 1.3B under ZeRO 1 on one DGX A100 node, TFLOPS alone. Started
     * from the prior and every single fault's optimum, as until the 53rd stop, the fit ends at a cost of 9.7715; from the
     * prior and the best single fault's optimum alone (the compute's) it would end at 21.133, while the two best (the
     * compute's and the intra-node link's) reach 9.7715 (a probe build of the 53rd stop).
     */
    @Test
    void severalFaultsStartFromTheTwoBestSingleFaults() {
        assertEquals(9.7715, hypothesis("run-00418.json", FitHypothesis.SEVERAL).cost(), 1e-3);
    }

    /**
     * A start that reaches an optimum an earlier one converged to stops there (Fit.AT_OPTIMUM): every hypothesis of the
     * runs above comes out as when every start runs to its end, its cost within 1e-6 of it, its ln evidence and
     * probability within 1e-3 (where starts end at the same optimum their ends differ in the seventh digit).
     */
    @Test
    void aStartStoppedAtAKnownOptimumLeavesTheFitAsItWas() {
        for (String run : new String[]{"run-00537.json", "run-01700.json", "run-01203.json", "run-07736.json",
                "run-02773.json", "run-05176.json", "run-00418.json"}) {
            RunSpec s = new SpecReader().read(Path.of("src/test/resources/runs/fit-starts", run));
            Scenario prior = Scenario.catalogue(s.cluster(), s.run());
            FitResult stopped = Fit.fit(prior, true), whole = Fit.fit(prior, false);
            assertEquals(whole.hypotheses().size(), stopped.hypotheses().size(), run);
            for (HypothesisFit w : whole.hypotheses()) {
                HypothesisFit h = stopped.hypotheses().stream().filter(f -> f.hypothesis() == w.hypothesis())
                        .findFirst().orElseThrow();
                String what = run + " " + w.hypothesis();
                assertEquals(w.cost(), h.cost(), 1e-6 * Math.max(1, w.cost()), what);
                assertEquals(w.logEvidence(), h.logEvidence(), 1e-3, what);
                assertEquals(w.posterior(), h.posterior(), 1e-3, what);
            }
        }
    }
}
