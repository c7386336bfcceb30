package dev.trainadvisor.advice;

import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

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
        assertEquals("memory-overflow", a.diagnoses().get(0).id());
        assertTrue(a.prediction().memory().totalGb() > 100, "model states alone are 108 GB");
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
        assertEquals("memory-overflow", a.diagnoses().get(0).id());
        assertTrue(a.recommendations().isEmpty(), a.recommendations().toString());
    }

    @Test
    void pairsCombineDisjointChangesOnly() {
        var zero = new dev.trainadvisor.facts.RemedyProposal("zero-stage-2", "Shard more", java.util.Map.of("parallel.zero_stage", 2),
                java.util.List.of("memory-overflow"), "a", "memory-overflow");
        var recompute = new dev.trainadvisor.facts.RemedyProposal("full-recompute", "Recompute", java.util.Map.of("training.recompute", "full"),
                java.util.List.of("memory-overflow"), "b", "memory-overflow");
        var zero3 = new dev.trainadvisor.facts.RemedyProposal("zero-stage-3", "Shard all", java.util.Map.of("parallel.zero_stage", 3),
                java.util.List.of("memory-overflow"), "c", "memory-overflow");
        var other = new dev.trainadvisor.facts.RemedyProposal("nvlink-nodes", "NVLink", java.util.Map.of("cluster.intra_node.link", "NVLink3"),
                java.util.List.of("intra-node-bandwidth"), "d", "intra-node-bandwidth");
        var pairs = TrainAdvisor.pairs(java.util.List.of(zero, recompute, zero3, other), "memory-overflow");
        // 3 memory remedies give 3 pairs, less zero-stage-2 + zero-stage-3 (both set parallel.zero_stage)
        assertEquals(java.util.List.of("zero-stage-2+full-recompute", "full-recompute+zero-stage-3"),
                pairs.stream().map(dev.trainadvisor.facts.RemedyProposal::id).toList());
        assertEquals(java.util.Map.of("parallel.zero_stage", 2, "training.recompute", "full"), pairs.get(0).change());
    }
}
