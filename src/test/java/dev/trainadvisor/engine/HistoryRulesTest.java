package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.JitterFact;
import dev.trainadvisor.facts.LossEventsFact;
import dev.trainadvisor.facts.MeasuredMemoryFact;
import dev.trainadvisor.facts.PaceChangeFact;
import dev.trainadvisor.facts.RankTimerFact;
import dev.trainadvisor.facts.RemedyProposal;
import dev.trainadvisor.facts.Severity;
import dev.trainadvisor.facts.StallFact;
import dev.trainadvisor.history.StepHistory;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.trainadvisor.engine.GivenFacts.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * rules/history.drl and its remedies on given facts: each rule fires on a history that shows its cause, with the
 * numbers worked out here, and stays silent on one just short of its threshold.
 */
class HistoryRulesTest {

    static RuleEngine.Result given(Object fact) {
        return GivenFacts.of(PCIE).compute(2, 4, 0.1).fact(fact).fire();
    }

    /** 5 saves of 30 s every 20 steps of 10 s: 150 s of 1150 s, 13% of the wall time: medium, and async saving at x1.15. */
    @Test
    void periodicStallFiresWithItsPeriodAndCost() {
        RuleEngine.Result r = given(new StallFact(20, 5, 20, 10, 150, 1150, "step time"));
        Diagnosis d = only(r, "periodic-stall");
        assertEquals(Severity.MEDIUM, d.severity());
        assertEquals(150 / 1150.0, d.impactFraction(), 1e-12);
        assertEquals(20, evidence(d, "period_steps"));
        assertEquals(30, evidence(d, "seconds_per_spike"), 1e-12);
        RemedyProposal p = proposal(r, "async-checkpoint");
        assertEquals(150 / 1150.0, p.wallShare(), 1e-12);
        assertEquals(List.of("periodic-stall"), p.addresses());
        assertTrue(p.change().isEmpty(), "no run-file key changes");
    }

    /**
     * The same stalls where the log says it saved a checkpoint right before 4 of the 5: they are named the saves, with
     * how many the log names; evaluations likewise. Without what the log says, the three usual suspects.
     */
    @Test
    void aStallTheLogExplainsIsNamedByIt() {
        Diagnosis saves = only(given(new StallFact(20, 5, 20, 10, 150, 1150, "step time",
                dev.trainadvisor.history.StepHistory.Kind.CHECKPOINT, 4)), "periodic-stall");
        assertEquals(4, evidence(saves, "spikes_said"));
        assertTrue(saves.explanation().contains("a checkpoint save right before 4 of them: they are the checkpoint saves"),
                saves.explanation());
        Diagnosis evals = only(given(new StallFact(20, 5, 20, 10, 150, 1150, "step time",
                dev.trainadvisor.history.StepHistory.Kind.EVALUATION, 5)), "periodic-stall");
        assertTrue(evals.explanation().contains("they are the evaluations"), evals.explanation());
        Diagnosis unsaid = only(given(new StallFact(20, 5, 20, 10, 150, 1150, "step time")), "periodic-stall");
        assertTrue(unsaid.explanation().contains("a checkpoint save, an evaluation or a garbage collection"));
        assertEquals(saves.impactFraction(), unsaid.impactFraction(), 0, "what the log says names the cause, not its cost");
    }

    /** A save of 30 s every 500 steps of 10 s: 30 / 5030 = 0.6%, reported low for its period, still with a remedy. */
    @Test
    void aSmallPeriodicStallIsLow() {
        Diagnosis d = only(given(new StallFact(500, 4, 500, 10, 120, 20120, "step time")), "periodic-stall");
        assertEquals(Severity.LOW, d.severity());
    }

    /** The case: 88 s then 126 s per step from step 126: 43% slower, 30% of each later step lost: high. */
    @Test
    void slowdownOverTimeSaysWhenItStarted() {
        RuleEngine.Result r = given(new PaceChangeFact(126, 88, 126, 4, 20, "step time"));
        Diagnosis d = only(r, "slowdown-over-time");
        assertEquals(Severity.HIGH, d.severity());
        assertEquals(126, evidence(d, "start_step"));
        assertEquals(126.0 / 88 - 1, evidence(d, "slowdown"), 1e-4);
        // (1 - 88/126) x 126 x 20 / (88 x 4 + 126 x 20) = 0.3016 x 2520 / 2872
        assertEquals((1 - 88.0 / 126) * 126 * 20 / (88 * 4 + 126 * 20), proposal(r, "restore-pace").wallShare(), 1e-12);
    }

    /** 9% slower is under the 10% threshold: silent. */
    @Test
    void slowdownSilentUnderTheThreshold() {
        assertFalse(fired(given(new PaceChangeFact(50, 100, 109, 40, 40, "step time")), "slowdown-over-time"));
    }

    /** forward-backward (3.0, 3.6) s over ranks in a 4 s step: 1.2x, the others wait 0.6 s, 15%: medium. */
    @Test
    void stragglerFiresOnTheRankSpread() {
        RuleEngine.Result r = given(new RankTimerFact(StepHistory.FORWARD_BACKWARD, 3.6, 0.6, 1.2, 4, 50, 0.9));
        Diagnosis d = only(r, "straggler");
        assertEquals(Severity.MEDIUM, d.severity());
        assertEquals(0.15, d.impactFraction(), 1e-12);
        assertEquals(0.15, proposal(r, "exclude-slow-node").wallShare(), 1e-12);
    }

    @Test
    void stragglerSilentUnderTheThreshold() {
        assertFalse(fired(given(new RankTimerFact(StepHistory.FORWARD_BACKWARD, 3.27, 0.27, 1.09, 4, 50, 0.82)), "straggler"));
        // a wide spread of another timer is not a straggler
        assertFalse(fired(given(new RankTimerFact(StepHistory.OPTIMIZER, 0.5, 0.3, 2.5, 4, 50, 0.125)), "straggler"));
    }

    /** batch-generator 0.4 s of every 4 s step: 10% of the steps' time: medium, more workers at x1.11. */
    @Test
    void dataLoaderStallFiresOnItsShare() {
        RuleEngine.Result r = given(new RankTimerFact(StepHistory.BATCH_GENERATOR, 0.4, 0.01, 1.02, 4, 50, 0.1));
        assertEquals(Severity.MEDIUM, only(r, "data-loader-stall").severity());
        assertEquals(0.1, proposal(r, "more-data-workers").wallShare(), 1e-12);
    }

    /**
     * A loader quick in the median step (5 ms of 1.4 s) that stalls 9.5 s once in 30 steps: 9.5 / (30 x 1.4 + 9.5)
     * = 18% of the steps' time: the total counts, not the median.
     */
    @Test
    void aBurstyDataLoaderCountsByItsTotal() {
        double share = 9.5 / (30 * 1.4 + 9.5);
        RuleEngine.Result r = given(new RankTimerFact(StepHistory.BATCH_GENERATOR, 0.005, 0.001, 1.2, 1.4, 30, share));
        assertEquals(share, only(r, "data-loader-stall").impactFraction(), 1e-12);
    }

    /** 0.15 s of 4 s, 3.75%: under the 5% threshold. */
    @Test
    void dataLoaderSilentUnderTheThreshold() {
        assertFalse(fired(given(new RankTimerFact(StepHistory.BATCH_GENERATOR, 0.15, 0.01, 1.02, 4, 50, 0.0375)),
                "data-loader-stall"));
    }

    @Test
    void stepJitterFiresAboveItsThresholdAndNotBelow() {
        assertEquals(Severity.MEDIUM, only(given(new JitterFact(0.148, 1.1, 60)), "step-jitter").severity());
        assertFalse(fired(given(new JitterFact(0.08, 1.05, 60)), "step-jitter"));
    }

    /** 77 GB of 80: 3.75% free, under 5%: memory-pressure; 75 GB (6.25% free) is not. */
    @Test
    void memoryPressureWithinFivePercentOfCapacity() {
        Diagnosis d = only(given(new MeasuredMemoryFact(77, 80)), "memory-pressure");
        assertEquals(Severity.MEDIUM, d.severity());
        assertEquals(0.0375, evidence(d, "free_share"), 1e-12);
        assertFalse(fired(given(new MeasuredMemoryFact(75, 80)), "memory-pressure"));
    }

    @Test
    void lossInstabilityOnNonFiniteStepsOrRepeatedSpikes() {
        assertEquals(Severity.HIGH, only(given(new LossEventsFact(0, 1, 50, 0, 60)), "loss-instability").severity());
        assertEquals(Severity.MEDIUM, only(given(new LossEventsFact(2, 0, 30, 2.5, 60)), "loss-instability").severity());
        assertFalse(fired(given(new LossEventsFact(1, 0, 30, 2.5, 60)), "loss-instability"));
    }

    /**
     * A history without a period makes no StallFact, and with none the stall and its remedy stay silent; a run
     * without history facts gets none of the history's diagnoses or remedies.
     */
    @Test
    void noHistoryNoHistoryCause() {
        RuleEngine.Result r = GivenFacts.of(PCIE).compute(2, 4, 0.1).fire();
        for (String id : List.of("periodic-stall", "slowdown-over-time", "straggler", "data-loader-stall", "step-jitter",
                "memory-pressure", "loss-instability"))
            assertFalse(fired(r, id), id);
        for (String id : List.of("async-checkpoint", "exclude-slow-node", "more-data-workers", "restore-pace"))
            assertFalse(proposed(r, id), id);
    }

    /** Below their diagnoses' thresholds the remedies are not proposed either. */
    @Test
    void remediesWaitForTheirDiagnosis() {
        assertFalse(proposed(given(new PaceChangeFact(50, 100, 109, 40, 40, "step time")), "restore-pace"));
        assertFalse(proposed(given(new RankTimerFact(StepHistory.FORWARD_BACKWARD, 3.27, 0.27, 1.09, 4, 50, 0.82)),
                "exclude-slow-node"));
        assertFalse(proposed(given(new RankTimerFact(StepHistory.BATCH_GENERATOR, 0.15, 0.01, 1.02, 4, 50, 0.0375)),
                "more-data-workers"));
    }

    /** A straggler explains the scatter it causes: with one diagnosed, step-jitter stays silent. */
    @Test
    void jitterYieldsToAStraggler() {
        RuleEngine.Result r = GivenFacts.of(PCIE).compute(2, 4, 0.1).fact(new JitterFact(0.148, 1.1, 60))
                .fact(new RankTimerFact(StepHistory.FORWARD_BACKWARD, 3.6, 0.6, 1.2, 4, 50, 0.9)).fire();
        assertTrue(fired(r, "straggler"));
        assertFalse(fired(r, "step-jitter"));
    }
}
