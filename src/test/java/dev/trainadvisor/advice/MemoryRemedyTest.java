package dev.trainadvisor.advice;

import dev.trainadvisor.facts.RemedyProposal;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** A configuration that does not fit in memory is never recommended. */
class MemoryRemedyTest {

    static Advice advise(String run) {
        RunSpec s = new SpecReader().read(Path.of("src/test/resources/runs", run));
        return TrainAdvisor.advise(s.cluster(), s.run());
    }

    @Test
    void onlyRemediesThatFitAreRecommended() {
        // 6.74e9 params x 16 bytes = 108 GB of model states on a 40 GB GPU: memory-overflow first.
        // ZeRO-1 leaves 2 + 2 + 12/8 = 5.5 bytes/param = 37 GB and ZeRO-2 2 + 14/8 = 3.75 -> 25 GB, too much
        // beside ~17 GB of activations at seq 4096; ZeRO-3 16/8 = 2 bytes/param -> 13.5 GB fits
        Advice a = advise("llama-2-7b-a100-40gb-zero0.yaml");
        assertEquals("memory-overflow", a.top().id());
        assertTrue(a.expected().memory().totalGb() > 100, "model states alone are 108 GB");
        assertFalse(a.recommendations().isEmpty());
        for (Recommendation r : a.recommendations())
            assertTrue(r.predictedMemoryGb() <= 40, r.id() + " predicts " + r.predictedMemoryGb() + " GB");
        assertTrue(a.recommendations().stream().anyMatch(r -> r.id().equals("zero-stage-3")), a.recommendations().toString());
        assertTrue(a.recommendations().stream().noneMatch(r -> r.id().equals("zero-stage-1")), "ZeRO-1 alone does not fit");
    }

    @Test
    void noRecommendationWhenNoSingleRemedyFits() {
        // Llama-2-70B on one node with ZeRO-1: weights and gradients alone are 4 x 69e9 = 276 GB per GPU
        Advice a = advise("llama-2-70b-no-sharding.yaml");
        assertEquals("memory-overflow", a.top().id());
        assertTrue(a.recommendations().isEmpty(), a.recommendations().toString());
    }

    @Test
    void pairsCombineDisjointChangesOnly() {
        var zero = new RemedyProposal("zero-stage-2", "Shard more", Map.of("parallel.zero_stage", 2), true,
                List.of("memory-overflow"), "a", "zero-stage-2 for memory");
        var recompute = new RemedyProposal("full-recompute", "Recompute", Map.of("training.recompute", "full"), true,
                List.of("memory-overflow"), "b", "full-recompute");
        var zero3 = new RemedyProposal("zero-stage-3", "Shard all", Map.of("parallel.zero_stage", 3), true,
                List.of("memory-overflow"), "c", "zero-stage-3 for memory");
        var other = new RemedyProposal("nvlink-nodes", "NVLink", Map.of("cluster.intra_node.link", "NVLink3"), true,
                List.of("intra-node-bandwidth"), "d", "nvlink-nodes");
        var pairs = TrainAdvisor.pairs(List.of(zero, recompute, zero3, other), "memory-overflow");
        // 3 memory remedies give 3 pairs, less zero-stage-2 + zero-stage-3 (both set parallel.zero_stage)
        assertEquals(List.of("zero-stage-2+full-recompute", "full-recompute+zero-stage-3"),
                pairs.stream().map(RemedyProposal::id).toList());
        assertEquals(Map.of("parallel.zero_stage", 2, "training.recompute", "full"), pairs.get(0).change());
    }
}
