package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Rule unexplained-slowdown: observed below 75% of predicted and no modelled cause of high or medium severity. */
class UnexplainedSlowdownRuleTest {

    @Test
    void firesWhenNothingModelledExplainsTheGap() {
        // observed 0.6x predicted: impact 1 - 0.6 = 0.4 -> high; 6.5 - 3.9 = 2.6 s unexplained
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").step(3.9, 4200).gap(0.6, 6.5, 3.9).fire();
        Diagnosis d = GivenFacts.only(r, "unexplained-slowdown");
        assertEquals("high", d.severity());
        assertEquals(0.4, d.impactFraction(), 1e-12);
        assertTrue(d.explanation().contains("2.6 s of the 6.5 s"), d.explanation());
    }

    @Test
    void silentWhenAModelledCauseExplainsIt() {
        RuleEngine.Result r = GivenFacts.of("internlm-7b-pcie-1node.yaml").step(6.0, 2730)
                .collective("zero-grad-reduce-scatter", "intra-node", "PCIe4", 20, 29.3e9, 1.5, 6.0)
                .gap(0.6, 10, 6.0).fire();
        assertFalse(GivenFacts.fired(r, "unexplained-slowdown"));
    }

    @Test
    void silentWhenTheRunIsCloseToTheModel() {
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").step(3.9, 4200).gap(0.9, 4.3, 3.9).fire();
        assertFalse(GivenFacts.fired(r, "unexplained-slowdown"));
    }
}
