package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.OffloadFact;
import dev.trainadvisor.facts.Severity;
import dev.trainadvisor.perf.Phase;
import org.junit.jupiter.api.Test;

import static dev.trainadvisor.engine.GivenFacts.*;
import static org.junit.jupiter.api.Assertions.*;

/** rules/offload.drl on given facts: the step's phases and what offload costs, chosen here. */
class OffloadRulesTest {

    /** 1.3e9 parameters updated by the host at 0.7e9 a second: 1.86 s; 0.5 s of copies at 55 GB/s. */
    static OffloadFact offload(double hostOptimizerS, double copiesS) {
        return new OffloadFact("optimizer: cpu, master_weights: cpu, gradients: cpu, parameters: cpu", hostOptimizerS, copiesS,
                0, hostOptimizerS * 0.7e9, 0.7e9, 55.2);
    }

    @Test
    void aStepThatWaitsForTheHostIsOffloadBoundAndNamesTheOptimizer() {
        // 0.2 + 0.4 s of compute, 1.86 s of the host's optimizer and 0.5 s of copies: 2.36 of 2.98 s
        RuleEngine.Result r = GivenFacts.of(run(PCIE)).compute(0.2, 0.4, 0).phase(Phase.HOST_OPTIMIZER, 1.86)
                .phase(Phase.OFFLOAD_COPIES, 0.5).fact(offload(1.86, 0.5)).fire();
        Diagnosis d = r.diagnoses().stream().filter(x -> x.id().equals("offload-bound")).findFirst().orElseThrow();
        assertEquals(Severity.HIGH, d.severity());
        assertEquals(2.36 / (0.2 + 0.4 + 1.86 + 0.5), d.impactFraction(), 1e-9);
        assertTrue(d.explanation().contains("Most of it is the host's optimizer step"), d.explanation());
        assertTrue(proposed(r, "drop-offload"));
    }

    @Test
    void copiesThatOutweighTheOptimizerAreSaidToBeTheLargerPart() {
        RuleEngine.Result r = GivenFacts.of(run(PCIE)).compute(0.2, 0.4, 0).phase(Phase.HOST_OPTIMIZER, 0.3)
                .phase(Phase.OFFLOAD_COPIES, 1.2).fact(offload(0.3, 1.2)).fire();
        Diagnosis d = r.diagnoses().stream().filter(x -> x.id().equals("offload-bound")).findFirst().orElseThrow();
        assertFalse(d.explanation().contains("Most of it is the host's optimizer step"), d.explanation());
        assertTrue(d.explanation().contains("The copies over the host link"), d.explanation());
    }

    @Test
    void aCheapOffloadIsRuledOutAndNotUndone() {
        // 0.05 s of a 5 s step: under the 5% threshold
        RuleEngine.Result r = GivenFacts.of(run(PCIE)).compute(1.5, 3.45, 0).phase(Phase.HOST_OPTIMIZER, 0.05)
                .fact(offload(0.05, 0)).fire();
        assertFalse(fired(r, "offload-bound"));
        assertFalse(proposed(r, "drop-offload"));
        // and a run that offloads nothing has no such cause, whatever its optimizer costs
        assertFalse(fired(GivenFacts.of(run(PCIE)).compute(0.2, 0.4, 0).phase(Phase.OPTIMIZER, 2).fire(), "offload-bound"));
    }

    @Test
    void theParametersAreOffloadedToFitOnlyWhereTheOptimizerAloneDoesNotMakeRoom() {
        dev.trainadvisor.facts.RunFact zero3 = with(run(PCIE), "zeroStage", 3);
        Diagnosis overflow = new Diagnosis("memory-overflow", "given", Severity.HIGH, 0, "given", java.util.List.of(),
                "given", java.util.List.of(), false);
        RuleEngine.Result tight = GivenFacts.of(zero3).fact(overflow).fact(new dev.trainadvisor.facts.OffloadFitFact(false)).fire();
        assertTrue(proposed(tight, "offload-optimizer-to-fit"));
        assertTrue(proposed(tight, "offload-parameters-to-fit"));
        RuleEngine.Result roomy = GivenFacts.of(zero3).fact(overflow).fact(new dev.trainadvisor.facts.OffloadFitFact(true)).fire();
        assertTrue(proposed(roomy, "offload-optimizer-to-fit"));
        assertFalse(proposed(roomy, "offload-parameters-to-fit"));
        // a run that already offloads is not told to
        assertFalse(proposed(GivenFacts.of(zero3).fact(overflow).fact(offload(1, 0)).fire(), "offload-optimizer-to-fit"));
    }
}
