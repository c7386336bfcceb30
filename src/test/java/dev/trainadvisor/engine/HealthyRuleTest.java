package dev.trainadvisor.engine;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Rule healthy: observed within 15% of predicted, and no cause of high or medium severity. */
class HealthyRuleTest {

    @Test
    void firesWithinTheModelsErrorAndNothingMajor() {
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").step(3.9, 4200).gap(1.05, 3.71, 3.9).fire();
        assertEquals("info", GivenFacts.only(r, "healthy").severity());
        assertEquals(1, r.diagnoses().size(), r.diagnoses().toString());
    }

    @Test
    void silentWhenAMajorCauseIsFound() {
        // within 15% of the model, but the model itself says 25% of the step is exposed PCIe traffic
        RuleEngine.Result r = GivenFacts.of("internlm-7b-pcie-1node.yaml").step(6.0, 2730)
                .collective("zero-grad-reduce-scatter", "intra-node", "PCIe4", 20, 29.3e9, 1.5, 6.0)
                .gap(0.95, 6.3, 6.0).fire();
        assertTrue(GivenFacts.fired(r, "intra-node-bandwidth"));
        assertFalse(GivenFacts.fired(r, "healthy"));
    }

    @Test
    void silentOutsideTheModelsError() {
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").step(3.9, 4200).gap(0.80, 4.9, 3.9).fire();
        assertFalse(GivenFacts.fired(r, "healthy"));
    }
}
