package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.Severity;
import dev.trainadvisor.spec.Precision;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;


import static dev.trainadvisor.engine.GivenFacts.*;
import static org.junit.jupiter.api.Assertions.*;

/** rules/numerics.drl on given facts: steps skipped for overflow, their severity Materiality.severity of their share. */
class NumericsRuleTest {

    @ParameterizedTest(name = "{1} of 300 steps skipped: {3}")
    @CsvSource({
            // 90 / 300 = 0.30 >= high 0.20
            "300, 90, 30%, HIGH",
            // 60 / 300 = 0.20 >= high 0.20
            "300, 60, 20%, HIGH",
            // 30 / 300 = 0.10 >= material 0.05
            "300, 30, 10%, MEDIUM",
            // 6 / 300 = 0.02 < 0.05, but >= lossScaleSkips 0.01
            "300, 6, 2%, LOW",
            // 3 / 300 = 0.01 >= lossScaleSkips 0.01
            "300, 3, 1%, LOW"})
    void lossScaleSkipsSeverityFollowsTheSkippedShare(double steps, double skipped, String share, Severity severity) {
        RuleEngine.Result r = GivenFacts.of(PCIE).stepHealth(steps, skipped, 512, Precision.FP16).fire();
        Diagnosis d = only(r, "loss-scale-skips");
        assertFinding(d, severity, false);
        assertEquals(100 * skipped / steps, evidence(d, "skipped_share"), 1e-9);
        assertTrue(d.explanation().startsWith(Math.round(skipped) + " of 300 steps, " + share
                + ", were skipped for gradient overflow"), d.explanation());
        assertTrue(d.explanation().contains("the loss scale ended at 512"), d.explanation());
        assertTrue(d.explanation().contains("bf16 needs no loss scaling"), d.explanation());
    }

    @Test
    void lossScaleSkipsInBf16PointsAtADivergence() {
        Diagnosis d = only(GivenFacts.of(PCIE).stepHealth(300, 30, Double.NaN, Precision.BF16).fire(), "loss-scale-skips");
        assertTrue(d.explanation().contains("In bf16 this points at a real divergence"), d.explanation());
        assertFalse(d.explanation().contains("loss scale ended"), d.explanation());
    }

    @Test
    void lossScaleSkipsSilentBelowItsShare() {
        // 2 / 300 = 0.0067 < 0.01; and a log without steps says nothing
        assertFalse(fired(GivenFacts.of(PCIE).stepHealth(300, 2, 512, Precision.FP16).fire(), "loss-scale-skips"));
        assertFalse(fired(GivenFacts.of(PCIE).stepHealth(0, 0, 512, Precision.FP16).fire(), "loss-scale-skips"));
    }

    /** A compute fault given here, as the fit would conclude it. */
    static Diagnosis slowCompute() {
        return new Diagnosis("compute-underperforms", "given", Severity.MEDIUM, 0.2, "given", java.util.List.of(),
                "given", java.util.List.of(), true);
    }

    @Test
    void aRunThatSaysFp32IsOfferedBf16AndOneThatRanLowerThanItSaysIsOfferedItsOwnPrecision() {
        // says fp32, computes slowly: bf16 mixed precision offered (not the same math)
        RuleEngine.Result fp32 = GivenFacts.of(with(run(PCIE), "precision", Precision.FP32)).fact(slowCompute()).fire();
        assertTrue(proposed(fp32, "bf16-mixed-precision"));
        assertFalse(fp32.proposals().stream().filter(p -> p.id().equals("bf16-mixed-precision")).findFirst().orElseThrow().sameMath());
        // says bf16: nothing to offer
        assertFalse(proposed(GivenFacts.of(run(PCIE)).fact(slowCompute()).fire(), "bf16-mixed-precision"));
        // says bf16 and ran fp32 (a mismatch): precision-mismatch, high, and the run's own precision restored, not bf16-mixed
        var mismatch = new dev.trainadvisor.facts.PrecisionMismatchFact(Precision.BF16, Precision.FP32, 1.5, 0.22, 1.28);
        RuleEngine.Result ran = GivenFacts.of(with(run(PCIE), "precision", Precision.FP32)).fact(mismatch).fact(slowCompute()).fire();
        Diagnosis d = ran.diagnoses().stream().filter(x -> x.id().equals("precision-mismatch")).findFirst().orElseThrow();
        assertEquals(Severity.HIGH, d.severity());
        assertTrue(d.explanation().contains("the matmuls ran in fp32"), d.explanation());
        assertTrue(proposed(ran, "restore-precision"));
        assertFalse(proposed(ran, "bf16-mixed-precision"));
        // no mismatch fact, no such diagnosis
        assertFalse(fired(fp32, "precision-mismatch"));
    }
}
