package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.Severity;
import org.junit.jupiter.api.Test;


import static dev.trainadvisor.engine.GivenFacts.*;
import static org.junit.jupiter.api.Assertions.*;

/** rules/memory.drl on given facts: predicted peak memory per GPU against the GPU's. */
class MemoryRulesTest {

    @Test
    void memoryOverflowIsHighAndClaimsNothing() {
        // Llama-2-7B without ZeRO on 40 GB: 13.5 + 13.5 + 81 + 10 + 1 + 1 = 120 GB > 40 GB
        RuleEngine.Result r = GivenFacts.of(LLAMA_ZERO0).memory(40, 13.5, 13.5, 81, 10, 1, 1).fire();
        Diagnosis d = only(r, "memory-overflow");
        assertFinding(d, Severity.HIGH, false);
        assertEquals(120, evidence(d, "total_gb"), 1e-9);
        assertEquals(0, evidence(d, "zero_stage"), 0);
        assertTrue(d.explanation().contains("Predicted peak memory per GPU is 120 GB of the 40 GB the A100-SXM4-40GB has:"
                + " weights 13.5 GB, gradients 13.5 GB, optimizer states 81 GB (ZeRO stage 0 over 8 GPUs), activations 10 GB"),
                d.explanation());
        assertFalse(fired(r, "memory-headroom"));
    }

    @Test
    void memoryOverflowSilentWhenItFits() {
        // 36 of 40 GB
        RuleEngine.Result r = GivenFacts.of(LLAMA_ZERO0).memory(36, 40).fire();
        assertFalse(fired(r, "memory-overflow"));
        assertFalse(fired(r, "memory-headroom"), "0.9 of the memory is no headroom");
    }

    @Test
    void memoryHeadroomWhenLittleOfTheMemoryIsUsed() {
        // 30 of 80 GB = 0.375 < memoryHeadroom 0.6
        RuleEngine.Result r = GivenFacts.of(PCIE).memory(30, 80).fire();
        Diagnosis d = only(r, "memory-headroom");
        assertFinding(d, Severity.INFO, false);
        assertEquals(50, evidence(d, "free_gb"), 1e-9);
        assertTrue(d.explanation().contains("The step holds 30 GB of the 80 GB of the A100-PCIe-80GB: 80 GB - 30 GB = 50 GB free."),
                d.explanation());
    }

    @Test
    void memoryHeadroomSilentWhenMostOfTheMemoryIsUsed() {
        // 60 of 80 GB = 0.75
        assertFalse(fired(GivenFacts.of(PCIE).memory(60, 80).fire(), "memory-headroom"));
    }
}
