package dev.trainadvisor.advice;

import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.RunChange;
import dev.trainadvisor.spec.RunField;

import dev.trainadvisor.facts.Diagnosis;
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
    void whenNoLayoutFitsTheAdviceNamesTheFewestGpusAndTheGpuThatWould() {
        // Llama-2-70B with Adam on one node of 8 A100-80GB: 68.98e9 parameters x (2 + 2 + 12) bytes = 1104 GB of state,
        // against 8 x 80 = 640 GB. A layout the search keeps leaves 5% free, so it needs at least
        // 1104 / (80 x 0.95) = 14.5 -> 15 GPUs, 16 in nodes of 8; on 8 GPUs an H200 gives 8 x 141 x 0.95 = 1072 GB,
        // short of the state alone, and the B200's 8 x 180 x 0.95 = 1368 GB is the least memory that can hold it
        Advice a = advise("llama-2-70b-no-sharding.yaml");
        assertEquals("memory-overflow", a.top().id());
        Diagnosis none = a.diagnoses().stream().filter(d -> d.id().equals("no-layout-fits")).findFirst().orElseThrow();
        assertEquals(1104, none.evidence().stream().filter(e -> e.name().equals("state_tb")).findFirst().orElseThrow().value() * 1000, 2);
        Recommendation more = a.recommendations().stream().filter(r -> r.id().equals("scale-out-to-fit")).findFirst().orElseThrow();
        assertEquals(2, more.change().asRunFile().get("cluster.nodes"), more.toString());
        assertTrue(more.predictedMemoryGb() <= 0.95 * 80 + 1e-9, more.toString());
        Recommendation gpu = a.recommendations().stream().filter(r -> r.id().equals("larger-gpu-to-fit")).findFirst().orElseThrow();
        assertEquals("B200", gpu.change().asRunFile().get("cluster.gpu"), gpu.toString());
        // and on these 8 GPUs, the search's fastest layout that holds it: with the optimizer's states on the host
        Recommendation here = a.recommendations().stream().filter(r -> r.id().equals("best-layout")).findFirst().orElseThrow();
        assertTrue(here.action().contains("offload optimizer"), here.toString());
        assertEquals(java.util.List.of("memory-overflow"), here.addresses());
        assertTrue(here.predictedMemoryGb() <= 0.95 * 80 + 1e-9, here.toString());
        assertEquals(3, a.recommendations().size(), a.recommendations().toString());
    }

    @Test
    void pairsCombineDisjointChangesOnly() {
        var zero = new RemedyProposal("zero-stage-2", "Shard more", RunChange.of(RunField.ZERO_STAGE, 2), true,
                List.of("memory-overflow"), "a", "zero-stage-2 for memory");
        var recompute = new RemedyProposal("full-recompute", "Recompute", RunChange.of(RunField.RECOMPUTE, Recompute.FULL), true,
                List.of("memory-overflow"), "b", "full-recompute");
        var zero3 = new RemedyProposal("zero-stage-3", "Shard all", RunChange.of(RunField.ZERO_STAGE, 3), true,
                List.of("memory-overflow"), "c", "zero-stage-3 for memory");
        var other = new RemedyProposal("nvlink-nodes", "NVLink", RunChange.of(RunField.INTRA_LINK, "NVLink3"), true,
                List.of("intra-node-bandwidth"), "d", "nvlink-nodes");
        // zero-stage-2 and zero-stage-3 both set parallel.zero_stage: they cannot be made together
        assertFalse(TrainAdvisor.compatible(zero, zero3));
        assertTrue(TrainAdvisor.compatible(zero, recompute));
        assertTrue(TrainAdvisor.compatible(zero3, other));
        RemedyProposal both = TrainAdvisor.pair(zero, recompute);
        assertEquals("zero-stage-2+full-recompute", both.id());
        assertEquals(Map.of("parallel.zero_stage", 2, "training.recompute", "full"), both.change().asRunFile());
        assertEquals(List.of("memory-overflow"), both.addresses());
        // the diagnoses of both are addressed
        assertEquals(List.of("memory-overflow", "intra-node-bandwidth"), TrainAdvisor.pair(zero3, other).addresses());
    }
}
