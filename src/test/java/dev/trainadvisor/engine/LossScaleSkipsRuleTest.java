package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Rule loss-scale-skips: 1% of the steps or more skipped for overflow. */
class LossScaleSkipsRuleTest {

    @Test
    void firesWithTheShareOfStepsLost() {
        // megatron-2.log style: 10 of 200 steps skipped = 5% -> medium
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").stepHealth(200, 10, 8388608, "fp16").fire();
        Diagnosis d = GivenFacts.only(r, "loss-scale-skips");
        assertEquals(0.05, d.impactFraction(), 1e-12);
        assertEquals("medium", d.severity());
        assertTrue(d.explanation().contains("10 of 200 steps (5%)") && d.explanation().contains("bf16"), d.explanation());
    }

    @Test
    void silentBelowOnePercent() {
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").stepHealth(1000, 3, 65536, "fp16").fire();
        assertFalse(GivenFacts.fired(r, "loss-scale-skips"));
    }
}
