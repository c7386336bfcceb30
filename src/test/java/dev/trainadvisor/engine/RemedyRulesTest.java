package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.RemedyProposal;
import dev.trainadvisor.facts.Saving;
import dev.trainadvisor.facts.Severity;
import dev.trainadvisor.perf.CollectiveOp;
import dev.trainadvisor.spec.AttentionKernel;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Recompute;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.trainadvisor.engine.GivenFacts.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * rules/remedies.drl on given facts: which remedy applies to which diagnosis on which configuration, and the change
 * it proposes in run-file terms. Most tests give the diagnoses as facts (the remedy rules match them by id); the
 * first few let the diagnosis rules derive them.
 */
class RemedyRulesTest {

    /** Diagnoses as given facts, high, 0.25 of the step. */
    static GivenFacts given(GivenRun run, String... ids) {
        GivenFacts g = GivenFacts.of(run);
        for (String id : ids)
            g.fact(new Diagnosis(id, "given " + id, Severity.HIGH, 0.25, "given", List.of(), "given " + id, List.of(), false));
        return g;
    }

    /** The reduce-scatter on the node's link leaves 2 of 2 + 4 + 2 = 8 s exposed: intra-node-bandwidth, high. */
    static GivenFacts intraBound(GivenRun run) {
        return GivenFacts.of(run).compute(2, 4, 0).intra(CollectiveOp.ZERO_GRAD_REDUCE_SCATTER, 8, 32e9, 10, 2.0);
    }

    static void assertProposal(RemedyProposal p, boolean sameMath, List<String> addresses, Object... change) {
        // as the run file would read it: dotted paths to written values, null clearing a field
        java.util.Map<String, Object> expected = new java.util.LinkedHashMap<>();
        for (int i = 0; i < change.length; i += 2) expected.put((String) change[i], change[i + 1]);
        assertEquals(expected, p.change().asRunFile(), p.id());
        assertEquals(sameMath, p.sameMath(), p.id());
        assertEquals(addresses, p.addresses(), p.id());
    }

    @Test
    void nvlinkNodesForAPcieNodeWhoseGpuHasAnSxmSibling() {
        RuleEngine.Result r = intraBound(run(PCIE)).fire();
        assertTrue(fired(r, "intra-node-bandwidth"));
        RemedyProposal p = proposal(r, "nvlink-nodes");
        assertEquals("Train on nodes whose GPUs are joined by NVLink3 (A100-SXM4-80GB)", p.action());
        assertProposal(p, true, List.of("intra-node-bandwidth"), "cluster.gpu", "A100-SXM4-80GB", "cluster.intra_node.link", "NVLink3",
                "cluster.intra_node.busbw_gbps", null, "cluster.intra_node.transport", null, "cluster.intra_node.sockets", null);
    }

    @Test
    void nvlinkNodesKeepTheGpuWhereItIsItsOwnSibling() {
        // an SXM GPU on a PCIe board: only the link changes
        GivenRun sxmOnPcie = with(run(PCIE), "gpu", "A100-SXM4-80GB", "nvlinkGpu", "A100-SXM4-80GB");
        RemedyProposal p = proposal(intraBound(sxmOnPcie).fire(), "nvlink-nodes");
        assertEquals("Train on nodes whose GPUs are joined by NVLink3", p.action());
        assertProposal(p, true, List.of("intra-node-bandwidth"), "cluster.intra_node.link", "NVLink3",
                "cluster.intra_node.busbw_gbps", null, "cluster.intra_node.transport", null, "cluster.intra_node.sockets", null);
    }

    @Test
    void nvlinkNodesNotForANodeThatHasNvlink() {
        GivenRun nvlink = run(NVLINK);
        assertTrue(nvlink.cluster().intraNode().isNvlink());
        RuleEngine.Result r = intraBound(nvlink).fire();
        assertTrue(fired(r, "intra-node-bandwidth"), "the diagnosis holds on NVLink too");
        assertFalse(proposed(r, "nvlink-nodes"));
    }

    @Test
    void fixIntraNodeLinkCarriesTheExpectedBandwidth() {
        // measured 4 of the 10 GB/s expected on the host; restoring it saves 2 of 8 s
        RuleEngine.Result r = CommunicationRulesTest.reduceScatterOnSlowLink(CommunicationRulesTest.slowLink())
                .saving(Saving.Kind.RESTORE_INTRA_NODE_BUSBW, CollectiveOp.ZERO_GRAD_REDUCE_SCATTER.key(), 2.0).fire();
        RemedyProposal p = proposal(r, "fix-intra-node-link");
        assertEquals("Bring the intra-node link back to 10 GB/s", p.action());
        assertProposal(p, true, List.of("link-underperforms"), "cluster.intra_node.busbw_gbps", 10.0);
        assertFalse(proposed(r, "fix-network"));
    }

    @Test
    void fixNetworkCarriesTheExpectedBandwidth() {
        // measured 10 of 24 GB/s per node; restoring it saves 1.5 of 8 s
        RuleEngine.Result r = GivenFacts.of(measuredInter(run(PCIE_2NODES), 10)).compute(2, 4, 0).inter(CollectiveOp.ZERO_GRAD_REDUCE_SCATTER, 16, 32e9, 5, 2)
                .saving(Saving.Kind.RESTORE_INTER_NODE_GBPS, CollectiveOp.ZERO_GRAD_REDUCE_SCATTER.key(), 1.5).fire();
        RemedyProposal p = proposal(r, "fix-network");
        assertEquals("Bring the network back to 24 GB/s per node", p.action());
        assertProposal(p, true, List.of("link-underperforms"), "cluster.inter_node.busbw_gbps", 24.0);
        assertFalse(proposed(r, "fix-intra-node-link"));
    }

    @Test
    void moreMicroBatchesIsOneProposalForEveryDiagnosisItAnswers() {
        // the link's collectives (intra-node-bandwidth), the optimizer (1.5 of 9.5 s) and the bubble (on GPT-3's 8 stages)
        GivenRun gpt3 = run(GPT3_TP16);
        RuleEngine.Result r = GivenFacts.of(gpt3).compute(2, 4, 1.5).phase(dev.trainadvisor.perf.Phase.PIPELINE_BUBBLE, 1.0)
                .intra(CollectiveOp.ZERO_GRAD_REDUCE_SCATTER, 8, 32e9, 10, 1.0).fire();
        assertTrue(fired(r, "intra-node-bandwidth") && fired(r, "optimizer-step-bound") && fired(r, "pipeline-bubble"), ids(r).toString());
        RemedyProposal p = proposal(r, "more-micro-batches");
        assertEquals("Accumulate 16 micro-batches per step instead of 8 (twice the global batch)", p.action());
        assertProposal(p, false, List.of("intra-node-bandwidth", "optimizer-step-bound", "pipeline-bubble"),
                "training.micro_batches", 16);
    }

    @Test
    void moreMicroBatchesNotForCostsPaidPerMicroBatch() {
        RuleEngine.Result r = given(run(PCIE), "small-micro-batch", "memory-headroom", "slow-attention-kernel").fire();
        assertFalse(proposed(r, "more-micro-batches"));
    }

    @Test
    void overlapParamGatherForZero1Or2WithTheOverlapOff() {
        RuleEngine.Result r = given(run(PCIE), "intra-node-bandwidth", "unoverlapped-communication").fire();
        assertProposal(proposal(r, "overlap-param-gather"), true, List.of("intra-node-bandwidth", "unoverlapped-communication"),
                "parallel.overlap_param_gather", true);
        assertFalse(proposed(given(with(run(PCIE), "overlapParamGather", true), "intra-node-bandwidth").fire(), "overlap-param-gather"));
        assertFalse(proposed(given(with(run(PCIE), "zeroStage", 3), "intra-node-bandwidth").fire(), "overlap-param-gather"));
    }

    @Test
    void overlapGradReduceOnlyWhereItIsOff() {
        // the example already overlaps the gradient reduction
        assertFalse(proposed(given(run(PCIE), "intra-node-bandwidth").fire(), "overlap-grad-reduce"));
        RuleEngine.Result r = given(with(run(PCIE), "overlapGradReduce", false), "inter-node-bandwidth").fire();
        assertProposal(proposal(r, "overlap-grad-reduce"), true, List.of("inter-node-bandwidth"), "parallel.overlap_grad_reduce", true);
    }

    @Test
    void bf16GradReduceForFp32GradientsOfABf16Run() {
        GivenRun fp32 = with(run(PCIE), "gradReducePrecision", Precision.FP32);
        RuleEngine.Result r = given(fp32, "intra-node-bandwidth").fire();
        assertProposal(proposal(r, "bf16-grad-reduce"), true, List.of("intra-node-bandwidth"), "training.grad_reduce_precision", "bf16");
        assertEquals("Reduce gradients in bf16 instead of fp32", proposal(r, "bf16-grad-reduce").action());
        // the framework's own switch is named; a framework without one (InternEvo reduces in the model's dtype) gets none
        RemedyProposal mcore = proposal(given(fp32, "intra-node-bandwidth")
                .framework(GivenFacts.framework(fp32, "megatron-core", null)).fire(), "bf16-grad-reduce");
        assertEquals("Reduce gradients in bf16 instead of fp32 (--grad-reduce-in-bf16)", mcore.action());
        assertFalse(proposed(given(fp32, "intra-node-bandwidth").framework(GivenFacts.framework(fp32, "internevo", null)).fire(),
                "bf16-grad-reduce"));
        assertFalse(proposed(given(with(run(PCIE), "gradReducePrecision", Precision.BF16), "intra-node-bandwidth").fire(),
                "bf16-grad-reduce"));
        assertFalse(proposed(given(with(fp32, "precision", Precision.FP32), "intra-node-bandwidth").fire(), "bf16-grad-reduce"));
    }

    @Test
    void frameworkSwitchesAreNamedWhereTheFrameworkHasThem() {
        // Megatron-Core overlaps neither by default; its flags are --overlap-grad-reduce and --overlap-param-gather
        GivenRun off = with(run(PCIE), "overlapGradReduce", false, "overlapParamGather", false);
        RuleEngine.Result r = given(off, "intra-node-bandwidth").framework(GivenFacts.framework(off, "megatron-core", null)).fire();
        assertEquals("Overlap the gradient reduction with the backward pass (--overlap-grad-reduce)",
                proposal(r, "overlap-grad-reduce").action());
        assertEquals("Overlap the ZeRO parameter all-gather with the next step's forward (--overlap-param-gather)",
                proposal(r, "overlap-param-gather").action());
        // PyTorch's ZeroRedundancyOptimizer broadcasts the updated shards; overlap_with_ddp hides them
        RemedyProposal zro = proposal(given(off, "intra-node-bandwidth").framework(GivenFacts.framework(off, "pytorch", false))
                .fire(), "overlap-param-gather");
        assertEquals("Overlap the broadcast of the updated parameters with compute (overlap_with_ddp)", zro.action());
        assertProposal(zro, true, List.of("intra-node-bandwidth"), "parallel.overlap_param_gather", true);
        // InternLM's code of 2023 cannot overlap its broadcasts, DDP its all-reduce under no switch of its own: silent
        var internlm2023 = with(GivenFacts.framework(off, "internevo", null), "paramOverlapFlag", null, "gradOverlapFlag", null);
        RuleEngine.Result none = given(off, "intra-node-bandwidth").framework(internlm2023).fire();
        assertFalse(proposed(none, "overlap-param-gather"));
        assertFalse(proposed(none, "overlap-grad-reduce"));
        // the default profile's switches are the run file's own keys: nothing more to name
        assertEquals("Overlap the gradient reduction with the backward pass", proposal(given(off, "intra-node-bandwidth").fire(),
                "overlap-grad-reduce").action());
    }

    @Test
    void gradientsReducedAfterEveryMicroBatchAreReducedOnceAStep() {
        // plain DDP without no_sync reduces after each of the 4 micro-batches
        GivenRun ddp = with(run(PCIE), "zeroStage", 0, "zeroGroupSize", 8);
        RuleEngine.Result r = given(ddp, "intra-node-bandwidth").framework(GivenFacts.framework(ddp, "pytorch", null)).fire();
        RemedyProposal p = proposal(r, "grad-reduce-once-a-step");
        assertEquals("Reduce the gradients once a step, in the last micro-batch's backward (DistributedDataParallel.no_sync())",
                p.action());
        assertProposal(p, true, List.of("intra-node-bandwidth"), "parallel.grad_reduce_every_micro_batch", false);
        // silent when the loop already calls no_sync, with one micro-batch, or where the gradients are sharded
        assertFalse(proposed(given(ddp, "intra-node-bandwidth").framework(GivenFacts.framework(ddp, "pytorch", false)).fire(),
                "grad-reduce-once-a-step"));
        GivenRun one = with(ddp, "microBatches", 1);
        assertFalse(proposed(given(one, "intra-node-bandwidth").framework(GivenFacts.framework(one, "pytorch", null)).fire(),
                "grad-reduce-once-a-step"));
        GivenRun fsdp = with(ddp, "zeroStage", 3);
        assertFalse(proposed(given(fsdp, "intra-node-bandwidth").framework(GivenFacts.framework(fsdp, "pytorch", null)).fire(),
                "grad-reduce-once-a-step"));
    }

    @Test
    void fsdpKeepsTheGatheredWeightsWhereItsZeroTwoDoes() {
        // PyTorch's ZeRO 2 is FSDP SHARD_GRAD_OP / reshard_after_forward=False: no backward all-gather
        GivenRun fsdp = with(run(PCIE), "zeroStage", 3);
        RemedyProposal p = proposal(given(fsdp, "intra-node-bandwidth").framework(GivenFacts.framework(fsdp, "pytorch", null))
                .fire(), "keep-gathered-weights");
        assertEquals("Keep each layer's gathered weights from its forward to its backward (reshard_after_forward)", p.action());
        assertProposal(p, true, List.of("intra-node-bandwidth"), "parallel.zero_stage", 2);
        // the default profile's ZeRO 2 gathers after the step, a different thing: silent
        assertFalse(proposed(given(fsdp, "intra-node-bandwidth").fire(), "keep-gathered-weights"));
    }

    @Test
    void intraNodeShardingForZeroGroupsThatSpanNodes() {
        // zero_group_size 16 on nodes of 8, dp 16
        RuleEngine.Result r = given(run(PCIE_2NODES), "inter-node-bandwidth").fire();
        RemedyProposal p = proposal(r, "intra-node-sharding");
        assertEquals("Shard optimizer states inside each node (zero_group_size 8) and replicate across nodes", p.action());
        assertProposal(p, true, List.of("inter-node-bandwidth"), "parallel.zero_group_size", 8);
        assertFalse(proposed(given(with(run(PCIE_2NODES), "zeroGroupSize", 8), "inter-node-bandwidth").fire(), "intra-node-sharding"));
    }

    @Test
    void moreNicsWhereANodeHasFewerNicsThanGpus() {
        // 2 NICs for 8 GPUs
        RuleEngine.Result r = given(run(PCIE_2NODES), "inter-node-bandwidth", "tp-across-nodes").fire();
        RemedyProposal p = proposal(r, "more-nics");
        assertEquals("Use nodes with one IB-HDR100 NIC per GPU (8 per node)", p.action());
        assertProposal(p, true, List.of("inter-node-bandwidth", "tp-across-nodes"), "cluster.inter_node.nics_per_node", 8);
        assertFalse(proposed(given(with(run(PCIE_2NODES), "nicsPerNode", 8), "inter-node-bandwidth").fire(), "more-nics"));
    }

    @Test
    void tpInsideNodeMovesTheRestOfTheGroupToThePipeline() {
        // tp 16, pp 8 on nodes of 8: tp 8, pp 8 x 16 / 8 = 16
        RuleEngine.Result r = given(run(GPT3_TP16), "tp-across-nodes").fire();
        RemedyProposal p = proposal(r, "tp-inside-node");
        assertEquals("Keep tensor parallelism inside the node (tp 8) and pipeline across nodes (pp 16)", p.action());
        assertProposal(p, true, List.of("tp-across-nodes"), "parallel.tp", 8, "parallel.pp", 16);
        // GPT-3's nodes have a NIC per GPU
        assertFalse(proposed(r, "more-nics"));
    }

    @Test
    void interleavedStagesForABubble() {
        RemedyProposal p = proposal(given(run(GPT3_TP16), "pipeline-bubble").fire(), "interleaved-stages");
        assertEquals("Interleave 2 virtual stages per GPU", p.action());
        assertProposal(p, true, List.of("pipeline-bubble"), "parallel.virtual_stages", 2);
        assertFalse(proposed(given(run(GPT3_TP16), "optimizer-step-bound").fire(), "interleaved-stages"));
    }

    @Test
    void largerMicroBatchForSmallGemmsOrFreeMemoryWhenTheAccumulationHalves() {
        // micro-batch 2 x 4: 4 x 2
        RuleEngine.Result r = given(run(PCIE), "small-micro-batch", "memory-headroom").fire();
        assertProposal(proposal(r, "larger-micro-batch"), true, List.of("memory-headroom", "small-micro-batch"),
                "training.micro_batch_size", 4, "training.micro_batches", 2);
        // 3 micro-batches do not halve
        assertFalse(proposed(given(with(run(PCIE), "microBatches", 3), "small-micro-batch").fire(), "larger-micro-batch"));
    }

    /**
     * Nothing to halve (one micro-batch, or three): double-micro-batch doubles the micro-batch alone, the global batch
     * with it, so it changes the math; where the accumulation halves (4) larger-micro-batch answers and this stays
     * silent, and without a diagnosis it answers it says nothing.
     */
    @Test
    void doubleMicroBatchWhereNoAccumulationIsLeftToHalve() {
        for (int mb : new int[]{1, 3}) {
            RuleEngine.Result r = given(with(run(PCIE), "microBatches", mb), "launch-bound").fire();
            assertProposal(proposal(r, "double-micro-batch"), false, List.of("launch-bound"), "training.micro_batch_size", 4);
            assertFalse(proposed(r, "larger-micro-batch"));
        }
        assertFalse(proposed(given(run(PCIE), "launch-bound", "memory-headroom").fire(), "double-micro-batch"));
        assertFalse(proposed(given(with(run(PCIE), "microBatches", 1), "optimizer-step-bound").fire(), "double-micro-batch"));
    }

    /**
     * fused-optimizer answers unfused-optimizer only, for a run whose optimizer runs PyTorch's foreach kernels (the
     * lever's applicability, rules/levers.drl): the change is optimizer_kernel fused, the same math.
     */
    @Test
    void fusedOptimizerAnswersUnfusedOptimizerOnly() {
        GivenRun foreach = with(run(PCIE), "optimizerKernel", dev.trainadvisor.spec.OptimizerKernel.FOREACH);
        assertProposal(proposal(given(foreach, "unfused-optimizer").fire(), "fused-optimizer"), true,
                List.of("unfused-optimizer"), "training.optimizer_kernel", "fused");
        assertFalse(proposed(given(foreach, "optimizer-step-bound").fire(), "fused-optimizer"));
        // a run whose optimizer is fused already has no such lever to pull, whatever a diagnosis says
        assertFalse(proposed(given(run(PCIE), "unfused-optimizer").fire(), "fused-optimizer"));
    }

    @Test
    void recomputeRemediesFollowTheRunsRecomputation() {
        RuleEngine.Result full = given(with(run(PCIE), "recompute", Recompute.FULL), "recompute-overhead").fire();
        assertProposal(proposal(full, "selective-recompute"), true, List.of("recompute-overhead"),
                "training.recompute", "selective", "training.recompute_fraction", null);
        assertFalse(proposed(full, "no-recompute"));
        // GPT-3 recomputes selectively
        RuleEngine.Result selective = given(run(GPT3_TP16), "memory-headroom").fire();
        assertProposal(proposal(selective, "no-recompute"), true, List.of("memory-headroom"), "training.recompute", "none");
        assertFalse(proposed(selective, "selective-recompute"));
        RuleEngine.Result none = given(run(PCIE), "memory-headroom").fire();
        assertFalse(proposed(none, "no-recompute") || proposed(none, "selective-recompute"));
    }

    @Test
    void lowerZeroStageForFreeMemoryWithZero2Or3() {
        RuleEngine.Result r = given(with(run(PCIE), "zeroStage", 3), "memory-headroom").fire();
        RemedyProposal p = proposal(r, "lower-zero-stage");
        assertEquals("Shard less: ZeRO stage 2", p.action());
        assertProposal(p, true, List.of("memory-headroom"), "parallel.zero_stage", 2);
        assertFalse(proposed(given(run(PCIE), "memory-headroom").fire(), "lower-zero-stage"));
    }

    @Test
    void memoryOverflowRemediesForLlamaWithoutZero() {
        // zero 0, dp 8, tp 1 on 8 GPUs per node, micro-batch 1, no recomputation
        RuleEngine.Result r = given(run(LLAMA_ZERO0), "memory-overflow").fire();
        assertProposal(proposal(r, "zero-stage-1"), true, List.of("memory-overflow"), "parallel.zero_stage", 1);
        assertProposal(proposal(r, "zero-stage-2"), true, List.of("memory-overflow"), "parallel.zero_stage", 2);
        assertProposal(proposal(r, "zero-stage-3"), true, List.of("memory-overflow"), "parallel.zero_stage", 3);
        assertProposal(proposal(r, "full-recompute"), true, List.of("memory-overflow"), "training.recompute", "full");
        assertProposal(proposal(r, "more-tensor-parallel"), true, List.of("memory-overflow"),
                "parallel.tp", 2, "parallel.dp", 4, "parallel.zero_group_size", null);
        assertFalse(proposed(r, "smaller-micro-batch"), "a micro-batch of 1 does not halve");
        RuleEngine.Result two = given(with(run(LLAMA_ZERO0), "microBatchSize", 2), "memory-overflow").fire();
        assertProposal(proposal(two, "smaller-micro-batch"), true, List.of("memory-overflow"),
                "training.micro_batch_size", 1, "training.micro_batches", 16);
    }

    @Test
    void memoryOverflowRemediesStopWhereTheRunAlreadyIs() {
        // ZeRO-3 with full recomputation and tp 8: nothing left of these to turn up
        GivenRun maxed = with(run(LLAMA_ZERO0), "zeroStage", 3, "recompute", Recompute.FULL, "tp", 8, "dp", 1);
        RuleEngine.Result r = given(maxed, "memory-overflow").fire();
        for (String id : List.of("zero-stage-1", "zero-stage-2", "zero-stage-3", "full-recompute", "more-tensor-parallel"))
            assertFalse(proposed(r, id), id);
    }

    @Test
    void zeroStage1AlsoForAnOptimizerBoundRun() {
        RuleEngine.Result r = given(run(LLAMA_ZERO0), "optimizer-step-bound", "memory-overflow").fire();
        assertProposal(proposal(r, "zero-stage-1"), true, List.of("memory-overflow", "optimizer-step-bound"), "parallel.zero_stage", 1);
        assertFalse(proposed(given(run(PCIE), "optimizer-step-bound").fire(), "zero-stage-1"), "ZeRO-1 already");
    }

    @Test
    void flashAttention2OnAmpereAndLaterOnly() {
        RuleEngine.Result off = given(with(run(PCIE), "flashAttention", false), "slow-attention-kernel").fire();
        // the kernel of attention without flash (math, unfused) goes with it
        assertProposal(proposal(off, "flash-attention-2"), true, List.of("slow-attention-kernel"), "training.flash_attention", true,
                "training.attention_kernel", null);
        RuleEngine.Result fa1 = given(with(run(PCIE), "attentionKernel", AttentionKernel.FA1), "slow-attention-kernel").fire();
        assertProposal(proposal(fa1, "flash-attention-2"), true, List.of("slow-attention-kernel"), "training.attention_kernel", "fa2");
        GivenRun v100 = with(run(PCIE), "gpu", "V100-SXM2-32GB", "flashAttention", false);
        assertEquals(70, v100.cluster().gpu().smVersion(), "the catalogue's V100 is Volta, compute capability 7.0");
        assertFalse(proposed(given(v100, "slow-attention-kernel").fire(), "flash-attention-2"));
    }

    @Test
    void flashAttention3OnHopperOnly() {
        assertFalse(proposed(given(with(run(PCIE), "flashAttention", false), "slow-attention-kernel").fire(), "flash-attention-3"));
        GivenRun h100 = with(run(NVLINK), "gpu", "H100-SXM5-80GB", "flashAttention", false);
        assertEquals(90, h100.cluster().gpu().smVersion(), "the catalogue's H100 is Hopper, compute capability 9.0");
        RuleEngine.Result r = given(h100, "slow-attention-kernel").fire();
        assertProposal(proposal(r, "flash-attention-3"), true, List.of("slow-attention-kernel"),
                "training.flash_attention", true, "training.attention_kernel", "fa3");
        assertTrue(proposed(r, "flash-attention-2"));
    }

    @Test
    void fusedElementwiseForEagerKernels() {
        GivenRun eager = with(run(PCIE), "elementwiseKernels", dev.trainadvisor.spec.ElementwiseKernels.EAGER);
        RemedyProposal p = proposal(given(eager, "eager-elementwise").fire(), "fused-elementwise");
        assertProposal(p, true, List.of("eager-elementwise"), "training.elementwise_kernels", "compiled");
        assertFalse(proposed(given(eager, "slow-attention-kernel").fire(), "fused-elementwise"));
        // fused kernels already: nothing to fuse
        assertFalse(proposed(given(run(PCIE), "eager-elementwise").fire(), "fused-elementwise"));
    }

    @Test
    void cudaGraphsAndALargerMicroBatchForALaunchBoundStep() {
        RuleEngine.Result r = given(run(PCIE), "launch-bound").fire();
        assertProposal(proposal(r, "cuda-graphs"), true, List.of("launch-bound"), "training.cuda_graphs", true);
        // micro-batch 2 x 4: 4 x 2, the same global batch
        assertProposal(proposal(r, "larger-micro-batch"), true, List.of("launch-bound"),
                "training.micro_batch_size", 4, "training.micro_batches", 2);
        assertFalse(proposed(given(run(PCIE), "eager-elementwise").fire(), "cuda-graphs"));
    }

    @Test
    void noRemedyWithoutADiagnosis() {
        RuleEngine.Result r = GivenFacts.of(with(run(PCIE_2NODES), "overlapGradReduce", false, "recompute", Recompute.FULL))
                .compute(2, 4, 0.2).fire();
        assertEquals(List.of(), r.proposals());
    }
}
