package dev.trainadvisor.advice;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.report.AdviceView;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static dev.trainadvisor.advice.MemoryRemedyTest.advise;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Issue 10's four cases, advised end to end (src/test/resources/runs): what an expert would say first comes first.
 */
class LayoutAdviceTest {

    static Optional<Recommendation> rec(Advice a, String id) {
        return a.recommendations().stream().filter(r -> r.id().equals(id)).findFirst();
    }

    @Test
    void tensorParallelismOverPcieIsLaidOutAgainBeforeBuyingNvlink() {
        Advice a = advise("internlm-7b-pcie-tp8.yaml");
        assertEquals("intra-node-bandwidth", a.top().id());
        Recommendation first = a.recommendations().get(0);
        assertEquals(TrainAdvisor.BEST_LAYOUT, first.id(), a.recommendations().toString());
        // the search takes tensor parallelism off PCIe altogether
        assertEquals(1, first.change().asRunFile().get("parallel.tp"), first.toString());
        // a layout of the same GPUs beats the low end of what NVLink nodes would give, and every single TP step
        Recommendation nvlink = rec(a, "nvlink-nodes").orElseThrow();
        assertTrue(first.speedup() > nvlink.speedupLow(), first + " vs " + nvlink);
        for (String step : List.of("fewer-tensor-parallel", "tensor-to-pipeline")) {
            Recommendation r = rec(a, step).orElseThrow(() -> new AssertionError(step + " in " + a.recommendations()));
            assertTrue(r.speedup() > 1.05 && r.speedup() < first.speedup(), r.toString());
        }
    }

    @Test
    void aBubbleIsOfferedFewerStagesAtTheSameGlobalBatch() {
        Advice a = advise("llama-2-13b-pp4-bubble.yaml");
        assertEquals("pipeline-bubble", a.top().id());
        Recommendation pp2 = rec(a, "fewer-pipeline-stages").orElseThrow(() -> new AssertionError(a.recommendations().toString()));
        assertEquals(2, pp2.change().asRunFile().get("parallel.pp"));
        assertTrue(pp2.sameMath(), "same global batch: 1 x 8 x 1 = 1 x 4 x 2 sequences");
        // (4-1)/8 of the compute was bubble; pp 2 with 4 micro-batches leaves (2-1)/4: 37.5% -> 25% of the compute
        assertTrue(pp2.speedup() > 1.05, pp2.toString());
        assertTrue(rec(a, "interleaved-stages").isPresent());
    }

    @Test
    void overlapThatDoesNotFitAloneComesInACombination() {
        Advice a = advise("llama-2-7b-zero0-no-overlap.yaml");
        assertTrue(a.diagnoses().stream().anyMatch(d -> d.id().equals("unoverlapped-communication")), a.diagnoses().toString());
        assertTrue(a.expected().memory().headroomGb() < 0, "ZeRO-0 does not fit: 6.74e9 x 16 bytes = 108 GB on 40 GB GPUs");
        assertTrue(rec(a, "overlap-grad-reduce").isEmpty(), "alone it does not fit");
        Recommendation pair = a.recommendations().stream()
                .filter(r -> Boolean.TRUE.equals(r.change().asRunFile().get("parallel.overlap_grad_reduce")) && r.change().asRunFile().containsKey("parallel.zero_stage"))
                .findFirst().orElseThrow(() -> new AssertionError(a.recommendations().toString()));
        assertTrue(pair.predictedMemoryGb() <= 40, pair.toString());
        // with the overlap the same sharding runs faster than the sharding alone
        Recommendation zeroAlone = rec(a, "zero-stage-" + pair.change().asRunFile().get("parallel.zero_stage")).orElseThrow();
        assertTrue(pair.speedup() > zeroAlone.speedup() * 1.05, pair + " vs " + zeroAlone);
    }

    @Test
    void seventyBillionOnEightSmallGpusIsToldWhatWouldHoldIt() {
        // 68.98e9 parameters x (2 + 2 + 12) bytes = 1104 GB; 1104 / (40 x 0.95) = 29.05 -> 30 GPUs -> 32 in nodes of 8.
        // On 8 GPUs: H200 8 x 141 x 0.95 = 1072 GB < 1104; B200 8 x 180 x 0.95 = 1368 GB
        Advice a = advise("llama-2-70b-on-8x40gb.yaml");
        Diagnosis none = a.diagnoses().stream().filter(d -> d.id().equals("no-layout-fits")).findFirst()
                .orElseThrow(() -> new AssertionError(a.diagnoses().toString()));
        assertTrue(none.explanation().contains("1.1 TB"), none.explanation());
        assertTrue(none.explanation().contains("are 32"), none.explanation());
        Recommendation more = rec(a, "scale-out-to-fit").orElseThrow();
        assertEquals(4, more.change().asRunFile().get("cluster.nodes"));
        assertTrue(more.change().asRunFile().containsKey("cluster.inter_node.link"), "one node named no network; more nodes need one");
        assertEquals("B200", rec(a, "larger-gpu-to-fit").orElseThrow().change().asRunFile().get("cluster.gpu"));
    }

    @Test
    void aRecommendationThatLeavesUnderFivePercentFreeSaysSo() {
        // NVLink nodes for the PCIe example reducing its gradients in fp32 keep its 76.7 GB on 80 GB GPUs: 3.3 GB free, 4.1%
        var s = new dev.trainadvisor.spec.SpecReader().read(java.nio.file.Path.of("examples/internlm-7b-pcie-1node.yaml"));
        var fp32 = dev.trainadvisor.spec.RunChange.of(dev.trainadvisor.spec.RunField.GRAD_REDUCE_PRECISION,
                dev.trainadvisor.spec.Precision.FP32).apply(dev.trainadvisor.spec.RunFile.of(s.cluster(), s.run()))
                .resolve("fp32-gradients", s.run().measured());
        Advice a = TrainAdvisor.advise(fp32);
        AdviceView v = AdviceView.of(a);
        for (AdviceView.RecommendationView r : v.recommendations()) {
            boolean tight = r.memoryHeadroomGb() < AdviceView.TIGHT_MEMORY * (r.memoryHeadroomGb() + predicted(a, r.id()));
            assertEquals(tight, r.explanation().contains("It leaves only"), r.id() + ": " + r.explanation());
        }
        assertTrue(v.recommendations().stream().anyMatch(r -> r.explanation().contains("It leaves only 3.3 GB free")));
    }

    private static double predicted(Advice a, String id) { return rec(a, id).orElseThrow().predictedMemoryGb(); }
}
