package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Rule unoverlapped-communication: a DP collective with its overlap switched off costs >= 5% of the step. */
class UnoverlappedCommunicationRuleTest {

    @Test
    void firesForTheParameterGatherWhenItsOverlapIsOff() {
        // the PCIe example has overlap_param_gather false; 1.4 s of a 7.3 s step
        RuleEngine.Result r = GivenFacts.of("internlm-7b-pcie-1node.yaml").step(7.3, 2240)
                .unoverlapped("zero-param-all-gather", "zero", 1.4, 7.3).fire();
        Diagnosis d = GivenFacts.only(r, "unoverlapped-communication");
        assertEquals(1.4 / 7.3, d.impactFraction(), 1e-12);
        assertTrue(r.proposals().stream().anyMatch(p -> p.id().equals("overlap-param-gather")
                && Boolean.TRUE.equals(p.change().get("parallel.overlap_param_gather"))));
    }

    @Test
    void silentWhenTheGradientReductionIsAlreadyOverlapped() {
        // overlap_grad_reduce is true in the example: a "none"-window reduction there is not this rule's business
        RuleEngine.Result r = GivenFacts.of("internlm-7b-pcie-1node.yaml").step(7.3, 2240)
                .unoverlapped("zero-replica-grad-all-reduce", "zero-replica", 1.4, 7.3).fire();
        assertFalse(GivenFacts.fired(r, "unoverlapped-communication"));
    }

    @Test
    void silentBelowFivePercent() {
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").step(3.9, 4200)
                .unoverlapped("zero-param-all-gather", "zero", 0.06, 3.9).fire();
        assertFalse(GivenFacts.fired(r, "unoverlapped-communication"));
    }
}
