package dev.trainadvisor.engine;

import dev.trainadvisor.spec.RunChange;
import dev.trainadvisor.spec.RunField;

import dev.trainadvisor.facts.CapacityFact;
import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.RemedyProposal;
import dev.trainadvisor.facts.Severity;
import dev.trainadvisor.perf.CollectiveOp;
import dev.trainadvisor.perf.LinkScope;
import dev.trainadvisor.perf.OverlapWindow;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.trainadvisor.engine.GivenFacts.*;
import static dev.trainadvisor.engine.RemedyRulesTest.assertProposal;
import static dev.trainadvisor.engine.RemedyRulesTest.given;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The layout remedies of rules/remedies.drl (issue 10) and the memory rule that names what would fit, on given facts:
 * each fires on the configuration it answers and stays silent just beside it.
 */
class LayoutRemedyRulesTest {

    /** InternLM-7B on 8 PCIe A100 laid out as tp 8, micro-batch 2 x 4 (the "TP 8 over PCIe"). */
    static GivenRun tp8() { return with(run(PCIE), "tp", 8, "dp", 1, "zeroStage", 0, "zeroGroupSize", 1); }

    /** The TP all-reduce exposed for {@code exposedS} of a step of 2 + 4 s of compute plus it, on the PCIe link. */
    static GivenFacts tpExposed(GivenRun run, double exposedS) {
        GivenFacts g = given(run, "intra-node-bandwidth").compute(2, 4, 0);
        return g.intra(CollectiveOp.TP_ALL_REDUCE, 8, 100e9, 10, exposedS);
    }

    @Test
    void tensorParallelBoundByItsLinkIsHalvedTowardsDataOrPipelineParallelism() {
        // 2 s of 8 exposed: 25% of the step, over the 5% material threshold
        RuleEngine.Result r = tpExposed(tp8(), 2).fire();
        RemedyProposal fewer = proposal(r, "fewer-tensor-parallel");
        assertEquals("Halve tensor parallelism (tp 4) and double data parallelism (dp 2)", fewer.action());
        // dp 1 -> 2 at the same global batch: 2 x 4 x 1 = 2 x 2 x 2 sequences
        assertProposal(fewer, true, List.of("intra-node-bandwidth"), "parallel.tp", 4, "parallel.dp", 2,
                "parallel.zero_group_size", null, "training.micro_batches", 2);
        assertProposal(proposal(r, "tensor-to-pipeline"), true, List.of("intra-node-bandwidth"), "parallel.tp", 4, "parallel.pp", 2);
    }

    @Test
    void tensorParallelCollectivesUnderTheMaterialShareAreLeftAlone() {
        // 0.25 s of 6.25: 4%, under 5%
        RuleEngine.Result r = tpExposed(tp8(), 0.25).fire();
        assertFalse(proposed(r, "fewer-tensor-parallel"));
        assertFalse(proposed(r, "tensor-to-pipeline"));
        // and a run without tensor parallelism has none to halve
        assertFalse(proposed(tpExposed(run(PCIE), 2).fire(), "fewer-tensor-parallel"));
    }

    @Test
    void aBubbleGetsFewerStagesAndMoreMicroBatchesAtTheSameGlobalBatch() {
        // GPT-3 tp 16, pp 8, dp 1, micro-batch 1 x 8: pp 4 and dp 2 with 4 micro-batches each (1 x 8 x 1 = 1 x 4 x 2)
        RemedyProposal p = proposal(given(run(GPT3_TP16), "pipeline-bubble").fire(), "fewer-pipeline-stages");
        assertEquals("Halve the pipeline stages (pp 4) and double data parallelism (dp 2, 4 micro-batches)", p.action());
        assertProposal(p, true, List.of("pipeline-bubble"), "parallel.pp", 4, "parallel.dp", 2, "parallel.zero_group_size", null,
                "training.micro_batches", 4);
        // micro-batch 2 x 8 halves to 1 x 16: the bubble (pp-1)/(v*m) halves
        RemedyProposal split = proposal(given(with(run(GPT3_TP16), "microBatchSize", 2), "pipeline-bubble").fire(),
                "smaller-micro-batch");
        assertProposal(split, true, List.of("pipeline-bubble"), "training.micro_batch_size", 1, "training.micro_batches", 16);
    }

    @Test
    void fewerStagesNeedAnEvenAccumulationAndAPipeline() {
        assertFalse(proposed(given(with(run(GPT3_TP16), "microBatches", 3), "pipeline-bubble").fire(), "fewer-pipeline-stages"));
        assertFalse(proposed(given(run(GPT3_TP16), "optimizer-step-bound").fire(), "fewer-pipeline-stages"));
        assertFalse(proposed(given(with(run(GPT3_TP16), "microBatchSize", 1), "pipeline-bubble").fire(), "smaller-micro-batch"));
    }

    @Test
    void longSequencesThatDoNotFitAreSplitOverTwoGpus() {
        // seq 8192 on dp 8, micro-batch 2 x 4: cp 2, dp 4, 8 micro-batches (2 x 4 x 8 = 2 x 8 x 4 sequences)
        GivenRun longSeq = with(run(PCIE), "seqLen", 8192);
        RemedyProposal p = proposal(given(longSeq, "memory-overflow").fire(), "context-parallel");
        assertProposal(p, true, List.of("memory-overflow"), "parallel.cp", 2, "parallel.dp", 4, "parallel.zero_group_size", null,
                "training.micro_batches", 8);
        // 4096 tokens is under Materiality.longSequence, and a run already split is left alone
        assertFalse(proposed(given(with(run(PCIE), "seqLen", 4096), "memory-overflow").fire(), "context-parallel"));
        assertFalse(proposed(given(with(longSeq, "cp", 2), "memory-overflow").fire(), "context-parallel"));
    }

    @Test
    void expertAllToAllsAcrossNodesAreBroughtInsideTheNvlinkDomain() {
        GivenRun moe = with(run(GPT3_TP16), "ep", 16);
        assertProposal(proposal(crossNodeAllToAll(moe).fire(), "experts-inside-node"), true, List.of("inter-node-bandwidth"), "parallel.ep", 8);
        // ep 8 on nodes of 8 already keeps them inside
        GivenRun inside = with(run(GPT3_TP16), "ep", 8);
        assertFalse(proposed(given(inside, "inter-node-bandwidth").compute(2, 4, 0)
                .collective(CollectiveOp.EP_ALL_TO_ALL, 8, 50e9, 0, 0, inside.linkKey(LinkScope.INTRA_NODE), LinkScope.INTRA_NODE, false, 200, 0.2,
                        OverlapWindow.NONE).fire(), "experts-inside-node"));
    }

    /** An expert all-to-all of 16 ranks across two nodes, 1.5 s exposed on the network. */
    static GivenFacts crossNodeAllToAll(GivenRun moe) {
        return given(moe, "inter-node-bandwidth").compute(2, 4, 0)
                .collective(CollectiveOp.EP_ALL_TO_ALL, 16, 50e9, 0, 0, moe.linkKey(LinkScope.INTER_NODE), LinkScope.INTER_NODE,
                        true, 25, 1.5, OverlapWindow.NONE);
    }

    /**
     * The all-to-alls' overlap with another micro-batch is offered where they are exposed and a second micro-batch
     * exists to pair with; DeepEP where NCCL all-to-alls cross nodes on NVLink nodes; neither once the run has it.
     */
    @Test
    void expertAllToAllsAcrossNodesAreOverlappedAndDispatchedOncePerNode() {
        GivenRun moe = with(run(GPT3_TP16), "ep", 16, "microBatches", 8);
        RuleEngine.Result r = crossNodeAllToAll(moe).fire();
        assertProposal(proposal(r, "overlap-expert-all-to-all"), true, List.of("inter-node-bandwidth"), "parallel.moe_a2a_overlap", true);
        assertProposal(proposal(r, "deepep-dispatcher"), true, List.of("inter-node-bandwidth"), "parallel.moe_dispatcher", "deepep");
        // one micro-batch has none to pair with; a run that overlaps or dispatches with DeepEP already is left alone
        assertFalse(proposed(crossNodeAllToAll(with(moe, "microBatches", 1)).fire(), "overlap-expert-all-to-all"));
        assertFalse(proposed(crossNodeAllToAll(with(moe, "moeA2aOverlap", true)).fire(), "overlap-expert-all-to-all"));
        assertFalse(proposed(crossNodeAllToAll(with(moe, "moeDispatcher", dev.trainadvisor.spec.MoeDispatcher.DEEPEP)).fire(),
                "deepep-dispatcher"));
        // DeepEP needs NVLink peers inside the node and an Ampere or later GPU
        assertFalse(proposed(crossNodeAllToAll(with(moe, "gpu", "V100-SXM2-32GB")).fire(), "deepep-dispatcher"));
    }

    /** Llama-2-70B on 8 GPUs of 40 GB: 69e9 parameters x 16 bytes = 1104 GB of state against 320 GB. */
    static CapacityFact nothingFits(boolean more, boolean larger) {
        RunChange scale = RunChange.of(RunField.NODES, 4).and(RunField.PP, 4);
        RunChange gpu = RunChange.of(RunField.GPU, "B200").and(RunField.ZERO_STAGE, 3);
        return new CapacityFact(8, 40, 69e9, 1104, 0.05, 3696, false, more ? 32 : 0, 512,
                more ? "tp 8, pp 4, dp 1" : null, more ? scale : null, larger ? "B200" : null, larger ? 180 : 0,
                larger ? "tp 1, pp 1, dp 8, ZeRO 3" : null, larger ? gpu : null);
    }

    @Test
    void noLayoutFitsNamesTheStateAndWhatWouldHoldIt() {
        RuleEngine.Result r = GivenFacts.of(PCIE).memory(170, 40).fact(nothingFits(true, true)).fire();
        Diagnosis d = only(r, "no-layout-fits");
        assertFinding(d, Severity.HIGH, false);
        assertEquals(1.104, evidence(d, "state_tb"), 1e-9);
        assertEquals(320, evidence(d, "cluster_memory_gb"), 1e-9, "8 x 40 GB");
        assertEquals(32, evidence(d, "fewest_gpus"), 0);
        assertTrue(d.explanation().contains("1.1 TB") && d.explanation().contains("B200"), d.explanation());
        assertNumbersAreEvidence(d);
        assertProposal(proposal(r, "scale-out-to-fit"), true, List.of("no-layout-fits"), "cluster.nodes", 4, "parallel.pp", 4);
        assertProposal(proposal(r, "larger-gpu-to-fit"), true, List.of("no-layout-fits"), "cluster.gpu", "B200",
                "parallel.zero_stage", 3);
    }

    @Test
    void noLayoutFitsIsSilentWhereALayoutFitsOrTheRunFits() {
        CapacityFact another = new CapacityFact(8, 80, 7e9, 112, 0.05, 2000, true, 0, 512, null, null, null, 0, null, null);
        assertFalse(fired(GivenFacts.of(PCIE).memory(90, 80).fact(another).fire(), "no-layout-fits"));
        // a run that fits has no overflow to explain
        assertFalse(fired(GivenFacts.of(PCIE).memory(60, 80).fact(nothingFits(true, true)).fire(), "no-layout-fits"));
        // and where neither more GPUs nor a larger one were found, nothing is proposed
        RuleEngine.Result none = GivenFacts.of(PCIE).memory(170, 40).fact(nothingFits(false, false)).fire();
        assertTrue(fired(none, "no-layout-fits"));
        assertFalse(proposed(none, "scale-out-to-fit"));
        assertFalse(proposed(none, "larger-gpu-to-fit"));
    }

    @Test
    void bandwidthBoundShardingIsOfferedALowerStage() {
        // ZeRO-3 gathers weights every micro-batch: on a bandwidth-bound link, ZeRO-2 moves fewer bytes
        GivenRun zero3 = with(run(PCIE), "zeroStage", 3);
        assertProposal(proposal(given(zero3, "intra-node-bandwidth").fire(), "lower-zero-stage"), true,
                List.of("intra-node-bandwidth"), "parallel.zero_stage", 2);
        // ZeRO-1 has no per-micro-batch collective to save
        assertFalse(proposed(given(run(PCIE), "intra-node-bandwidth").fire(), "lower-zero-stage"));
    }

    @Test
    void unoverlappedCommunicationAtZeroZeroIsOfferedTheRoomOfZeroOne() {
        GivenRun zero0 = with(run(PCIE), "zeroStage", 0);
        assertProposal(proposal(given(zero0, "unoverlapped-communication").fire(), "zero-stage-1"), true,
                List.of("unoverlapped-communication"), "parallel.zero_stage", 1);
        // a run already sharded, or one without data parallelism, is left alone
        assertFalse(proposed(given(run(PCIE), "unoverlapped-communication").fire(), "zero-stage-1"));
        assertFalse(proposed(given(with(zero0, "dp", 1), "unoverlapped-communication").fire(), "zero-stage-1"));
    }
}
