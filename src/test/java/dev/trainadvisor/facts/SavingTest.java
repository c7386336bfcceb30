package dev.trainadvisor.facts;

import dev.trainadvisor.perf.FitParam;
import dev.trainadvisor.perf.Scenario;
import dev.trainadvisor.perf.StepPrediction;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a change saves (FactBuilder#saving), on the PCIe example: a step that differs from the baseline's by rounding
 * alone (the overlap moved by a few units in its last place) saves nothing, where the difference of the two doubles
 * is positive and an explanation would print it ("the step would be 0.0000000000000000555 s shorter"); a real change
 * (the intra-node link's bandwidth doubled) saves the two steps' difference, and each phase what it gave up. A fitted
 * quantity put back to its catalogue value is read the same way (FactBuilder#saved).
 */
class SavingTest {

    private static final Scenario PCIE;

    static {
        RunSpec s = new SpecReader().read(Path.of("examples/internlm-7b-pcie-1node.yaml"));
        PCIE = Scenario.catalogue(s.cluster(), s.run());
    }

    @Test
    void aRoundingErrorIsNoSaving() {
        StepPrediction after = PCIE.predict();
        double f = PCIE.overlap();
        StepPrediction before = after;
        // the overlap a few units in its last place lower: the exposed collectives a rounding error longer
        for (int k = 0; k < 1000 && !(before.stepTimeS() > after.stepTimeS()); k++) {
            f = Math.nextDown(f);
            before = PCIE.with(FitParam.OVERLAP_FRACTION, f).predict();
        }
        double raw = before.stepTimeS() - after.stepTimeS();
        assertTrue(raw > 0 && raw < 1e-13 * after.stepTimeS(), "a difference of rounding: " + raw);
        Saving s = FactBuilder.saving(Saving.Kind.CATALOGUE, before, after);
        assertEquals(0.0, s.seconds());
        assertTrue(s.byPhase().isEmpty(), "phases: " + s.byPhase());
        // as a fitted quantity's restoring is read (FittedParameterFact's saving)
        assertEquals(0.0, FactBuilder.saved(before, after));
    }

    @Test
    void aRealChangeSavesTheStepsDifference() {
        StepPrediction before = PCIE.predict();
        StepPrediction after = PCIE.with(FitParam.INTRA_NODE_BUSBW, 2 * PCIE.value(FitParam.INTRA_NODE_BUSBW)).predict();
        Saving s = FactBuilder.saving(Saving.Kind.CATALOGUE, before, after);
        assertTrue(before.stepTimeS() - after.stepTimeS() > 0.01 * before.stepTimeS(), "the faster link saves some");
        assertEquals(before.stepTimeS() - after.stepTimeS(), s.seconds());
        assertEquals(before.stepTimeS() - after.stepTimeS(), FactBuilder.saved(before, after));
        assertEquals(0.0, FactBuilder.saved(after, before), "a slower step saves nothing");
        double byPhase = s.byPhase().stream().mapToDouble(Claim::seconds).sum();
        assertEquals(s.seconds(), byPhase, 1e-9 * before.stepTimeS(), "the phases' savings add up to the step's");
    }
}
