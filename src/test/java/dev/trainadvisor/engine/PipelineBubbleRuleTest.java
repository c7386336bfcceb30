package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Rule pipeline-bubble: the 1F1B bubble takes 5% of the step or more. */
class PipelineBubbleRuleTest {

    @Test
    void firesAndQuotesTheBubbleFormula() {
        // pp 8, v 1, m 8: (8 - 1) / (1 x 8) = 0.875 of compute; say 0.77 s of a 1.9 s step
        RuleEngine.Result r = GivenFacts.of("runs/gpt3-tp16.yaml").phase("pipeline-bubble", 0.77, 1.9).fire();
        Diagnosis d = GivenFacts.only(r, "pipeline-bubble");
        assertEquals(0.77 / 1.9, d.impactFraction(), 1e-12);
        assertEquals("high", d.severity());
        assertTrue(d.explanation().contains("(8 - 1) / (1 x 8) = 0.875"), d.explanation());
        assertTrue(r.proposals().stream().anyMatch(p -> p.id().equals("interleaved-stages")
                && Integer.valueOf(2).equals(p.change().get("parallel.virtual_stages"))));
    }

    @Test
    void silentForASmallBubble() {
        // 0.05 s of 1.9 s: 2.6%
        RuleEngine.Result r = GivenFacts.of("runs/gpt3-tp16.yaml").phase("pipeline-bubble", 0.05, 1.9).fire();
        assertFalse(GivenFacts.fired(r, "pipeline-bubble"));
    }
}
