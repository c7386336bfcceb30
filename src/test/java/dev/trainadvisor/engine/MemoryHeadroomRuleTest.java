package dev.trainadvisor.engine;

import dev.trainadvisor.facts.RemedyProposal;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.*;

/** Rule memory-headroom: under 60% of the GPU's memory used; remedies that spend it. */
class MemoryHeadroomRuleTest {

    @Test
    void firesAndProposesALargerMicroBatch() {
        // 30 of 80 GB: 50 GB free; micro_batches 4 is even -> micro-batch 2 x 2 instead of 4 x ... (same global batch)
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").memory(30, 80).fire();
        assertEquals("info", GivenFacts.only(r, "memory-headroom").severity());
        RemedyProposal p = r.proposals().stream().filter(x -> x.id().equals("larger-micro-batch")).findFirst().orElseThrow();
        assertEquals(4, p.change().get("training.micro_batch_size"));
        assertEquals(2, p.change().get("training.micro_batches"));
        Set<String> ids = r.proposals().stream().map(RemedyProposal::id).collect(Collectors.toSet());
        assertFalse(ids.contains("selective-recompute"), "the example recomputes nothing");
    }

    @Test
    void silentWhenMemoryIsTight() {
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").memory(76.7, 80).fire();
        assertFalse(GivenFacts.fired(r, "memory-headroom"));
    }
}
