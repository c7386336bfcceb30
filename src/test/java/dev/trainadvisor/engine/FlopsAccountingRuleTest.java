package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Rule flops-accounting: the printed TFLOPS use a FLOPs count more than 3% from the house count. */
class FlopsAccountingRuleTest {

    @Test
    void firesWhenInternEvoCountsTheRecomputedForward() {
        // InternEvo with checkpointing counts factor 4 instead of 3 on the layers: say 59.2 vs 44.6 GFLOPs
        // per token. Printed 240 TFLOPS are then 240 * 44.6 / 59.2 = 180.8 house TFLOPS.
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml")
                .observed(240e12 / 59.2e9, 4.0, 240, "internevo", 59.2e9, 44.6e9).fire();
        Diagnosis d = GivenFacts.only(r, "flops-accounting");
        assertEquals("info", d.severity());
        assertEquals(0, d.impactFraction());
        assertTrue(d.explanation().contains("180.8 house TFLOPS"), d.explanation());
        assertTrue(d.explanation().contains("internevo"), d.explanation());
    }

    @Test
    void silentWhenTheConventionsAgreeWithinThreePercent() {
        // InternLM-7B without checkpointing: InternEvo 44.41 vs house 44.61 GFLOPs per token, 0.45% apart
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml")
                .observed(4233.73, 3.87, 188.03, "internevo", 44.41e9, 44.61e9).fire();
        assertFalse(GivenFacts.fired(r, "flops-accounting"));
    }

    @Test
    void silentForTheHouseConvention() {
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml")
                .observed(4000, 4.1, 300, "house", 80e9, 44.6e9).fire();
        assertFalse(GivenFacts.fired(r, "flops-accounting"));
    }
}
