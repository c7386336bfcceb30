package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.RemedyProposal;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.*;

/** Rule memory-overflow: predicted peak memory above the GPU's capacity. */
class MemoryOverflowRuleTest {

    @Test
    void firesWhenTheStepDoesNotFitAndProposesWhatShrinksIt() {
        // Llama-2-70B with ZeRO-1 on one node: 16 bytes/param of model states alone are far over 80 GB
        RuleEngine.Result r = GivenFacts.of("runs/llama-2-70b-no-sharding.yaml").memory(563, 80).fire();
        Diagnosis d = GivenFacts.only(r, "memory-overflow");
        assertEquals("high", d.severity());
        assertEquals(1.0, d.impactFraction());
        assertTrue(d.explanation().contains("563 GB of the 80 GB"), d.explanation());
        Set<String> remedies = r.proposals().stream().map(RemedyProposal::id).collect(Collectors.toSet());
        // ZeRO 1 -> 2 or 3, full recompute, micro-batch 2 -> 1 (x2 accumulation), tp 1 -> 2
        assertEquals(Set.of("zero-stage-2", "zero-stage-3", "full-recompute", "smaller-micro-batch", "more-tensor-parallel"), remedies);
        RemedyProposal smaller = r.proposals().stream().filter(p -> p.id().equals("smaller-micro-batch")).findFirst().orElseThrow();
        assertEquals(1, smaller.change().get("training.micro_batch_size"));
        assertEquals(16, smaller.change().get("training.micro_batches"), "same global batch: 2 x 8 = 1 x 16");
    }

    @Test
    void silentWhenItFits() {
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").memory(76.7, 80).fire();
        assertFalse(GivenFacts.fired(r, "memory-overflow"));
    }
}
