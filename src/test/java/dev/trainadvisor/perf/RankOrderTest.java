package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Framework;
import dev.trainadvisor.spec.Frameworks;
import dev.trainadvisor.spec.RankOrder;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.SpecReader;
import dev.trainadvisor.spec.SpecWriter;
import org.junit.jupiter.api.Test;

import static dev.trainadvisor.perf.ContextExpertParallelTest.read;
import static dev.trainadvisor.perf.ContextParallelReplicasTest.collective;
import static org.junit.jupiter.api.Assertions.*;

/**
 * How a framework numbers its ranks decides which groups a node's consecutive GPUs hold: Megatron-LM, DeepSpeed,
 * torchtitan, nanotron and InternEvo put each pipeline stage's data-parallel replicas next to each other and the stages
 * outermost, so the gradient reduction stays near and the pipeline's sends cross between nodes; InternLM's 2023 code
 * and Megatron's --use-tp-pp-dp-mapping the other way round. The model placed every run the second way.
 */
class RankOrderTest {

    private static Framework framework(String key, String version) {
        return Frameworks.builtIn().find(key, version, "test", "training.framework");
    }

    /** Each profile's order, as its code numbers ranks (the profile's rank_order names the file and line). */
    @Test
    void theFrameworksNumberTheirRanksAsTheirCodeDoes() {
        for (String key : new String[]{"megatron-lm", "megatron-core", "nemo", "megatron-deepspeed", "deepspeed",
                "torchtitan", "nanotron", "internevo"})
            assertEquals(RankOrder.PIPELINE_OUTERMOST, framework(key, null).ranks(), key);
        // InternLM fa7337b: data groups [i + j x world/dp], pipeline groups inside each replica
        assertEquals(RankOrder.DATA_OUTERMOST, framework("internevo", "2023").ranks());
        // a profile that states none (no pipelines of its own) takes the stages outermost
        assertEquals(RankOrder.PIPELINE_OUTERMOST, Frameworks.builtIn().generic().ranks());
        assertNull(framework("hf-trainer", null).rankOrder());
    }

    /**
     * InternEvo's own example (internlm/core/context/process_group_initializer.py at c628a8c, Initializer_Pipeline's
     * docstring): "n=16 tp/sp=4 pp=2 dp=2 ... data groups: [0,4] [1,5] [2,6] [3,7] [8,12] ... pp groups: [0,8] [1,9]
     * ...". InternLM's 2023 code numbers the same layout replicas outermost: data groups [i + j x 16/2] = [0, 8], and
     * pipeline groups range(0, 8, 4) = [0, 4].
     */
    @Test
    void internEvosExampleGroups() throws Exception {
        String yaml = """
                cluster: {preset: dgx-a100-80gb, nodes: 2}
                model: internlm-7b
                parallel: {tp: 4, pp: 2, dp: 2}
                training: {seq_len: 2048, micro_batch_size: 1, micro_batches: 4, framework: internevo%s}
                """;
        RunSpec evo = read(String.format(yaml, ""));
        Topology t = StepContext.of(evo.cluster(), evo.run().model(), evo.run().parallel(), evo.run().training()).topology();
        assertEquals(4, t.dpStride(), "[0, 4]");
        assertEquals(8, t.ppStride(), "[0, 8]");
        RunSpec lm = read(String.format(yaml, ", framework_version: '2023'"));
        Topology t23 = StepContext.of(lm.cluster(), lm.run().model(), lm.run().parallel(), lm.run().training()).topology();
        assertEquals(8, t23.dpStride(), "[0, 8]");
        assertEquals(4, t23.ppStride(), "[0, 4]");
    }

    /**
     * tp 2, pp 2, dp 4 on two DGX H100 (8 GPUs a node), Megatron-Core: rank 0's data-parallel group is {0, 2, 4, 6},
     * inside node 0, so its all-reduce runs on NVLink; its pipeline group {0, 8} crosses to node 1. Numbered replicas
     * outermost (rank_order tp-cp-pp-dp) the data-parallel group is {0, 4, 8, 12}: two nodes, two members on each, so
     * four such groups share a node's network (a quarter of it each), and the pipeline's {0, 2} stays on NVLink.
     */
    @Test
    void theOrderPlacesTheGradientReductionAndThePipeline() throws Exception {
        String yaml = """
                cluster: {preset: dgx-h100, nodes: 2}
                model: llama-3-8b
                parallel: {tp: 2, pp: 2, dp: 4%s}
                training: {seq_len: 4096, micro_batch_size: 1, micro_batches: 8, framework: megatron-core}
                """;
        RunSpec s = read(String.format(yaml, ""));
        StepPrediction p = StepModel.predict(s.cluster(), s.run());
        Collective dp = collective(p, CollectiveOp.DP_GRAD_ALL_REDUCE), pp = collective(p, CollectiveOp.PP_SEND_RECV);
        assertEquals(LinkScope.INTRA_NODE, dp.link().scope());
        assertFalse(dp.link().crossesNodes());
        assertEquals(s.cluster().intraNode().busbwGbps(), dp.link().busbwGbps(), 1e-9);
        assertTrue(pp.link().crossesNodes());
        assertEquals(LinkScope.INTER_NODE, pp.link().scope());

        RunSpec r = read(String.format(yaml, ", rank_order: tp-cp-pp-dp"));
        assertEquals(RankOrder.DATA_OUTERMOST, r.run().parallel().rankOrder());
        StepPrediction q = StepModel.predict(r.cluster(), r.run());
        Collective dq = collective(q, CollectiveOp.DP_GRAD_ALL_REDUCE), pq = collective(q, CollectiveOp.PP_SEND_RECV);
        assertEquals(2, dq.link().nodesSpanned());
        assertEquals(2, dq.link().membersPerNode());
        assertEquals(r.cluster().interNode().nodeGbps() * 2 / 8, dq.link().busbwGbps(), 1e-9);
        assertFalse(pq.link().crossesNodes());
        // the same bytes either way: only the links differ
        assertEquals(dp.bytesPerPass(), dq.bytesPerPass(), 0);
        assertTrue(dq.seconds() > dp.seconds(), dq.seconds() + " over the network against " + dp.seconds());
    }

    /**
     * The run file says the order with the two values its schema lists, the writer keeps it, anything else names the
     * field; Megatron's spelling, with its expert dimension, is told how the file writes it.
     */
    @Test
    void theRunFileSaysTheOrder() throws Exception {
        String yaml = """
                cluster: {preset: dgx-h100, nodes: 2}
                model: llama-3-8b
                parallel: {tp: 2, pp: 2, dp: 4, rank_order: %s}
                training: {seq_len: 4096, micro_batch_size: 1, micro_batches: 8, framework: megatron-core}
                """;
        RunSpec s = read(String.format(yaml, "tp-cp-pp-dp"));
        assertEquals(RankOrder.DATA_OUTERMOST, s.run().parallel().rankOrder());
        // Megatron's order with --use-tp-pp-dp-mapping
        SpecException megatron = assertThrows(SpecException.class, () -> read(String.format(yaml, "tp-cp-ep-pp-dp")));
        assertEquals("parallel.rank_order", megatron.field());
        assertTrue(megatron.getMessage().endsWith("the same order is written tp-cp-pp-dp"), megatron.getMessage());
        assertEquals("tp-cp-pp-dp", SpecWriter.write(s.cluster(), s.run()).path("parallel").path("rank_order").asText());
        assertEquals(s.run().parallel(), new SpecReader().read(SpecWriter.write(s.cluster(), s.run()), "again").run().parallel());
        // not given: nothing written, the framework's applies
        RunSpec none = read(String.format(yaml, "null").replace(", rank_order: null", ""));
        assertNull(none.run().parallel().rankOrder());
        assertTrue(SpecWriter.write(none.cluster(), none.run()).path("parallel").path("rank_order").isMissingNode());
        SpecException e = assertThrows(SpecException.class, () -> read(String.format(yaml, "pp-dp-tp")));
        assertEquals("parallel.rank_order", e.field());
        assertTrue(e.getMessage().contains("tp-cp-dp-pp") && e.getMessage().contains("tp-cp-pp-dp")
                && e.getMessage().contains("pp-dp-tp"), e.getMessage());
    }

    /**
     * Megatron refuses an MoE whose experts do not fold inside a replica's tp x cp ranks when the replicas are outermost
     * (parallel_state.py: "When not using pp-last rank ordering, the data parallel size of the attention and moe layers
     * must be the same"): so does the reader, naming the field; ep x etp = tp x cp is accepted.
     */
    @Test
    void expertsFoldInsideAReplicaWhenTheReplicasAreOutermost() throws Exception {
        String yaml = """
                cluster: {preset: dgx-h100, nodes: 8}
                model: mixtral-8x7b
                parallel: {tp: %d, pp: 4, ep: 8, rank_order: tp-cp-pp-dp}
                training: {seq_len: 4096, micro_batch_size: 1, micro_batches: 16, framework: megatron-core}
                """;
        SpecException e = assertThrows(SpecException.class, () -> read(String.format(yaml, 1)));
        assertEquals("parallel.rank_order", e.field());
        assertTrue(e.getMessage().contains("ep*etp (8*1) equal to tp*cp (1*1)"), e.getMessage());
        RunSpec folded = read(String.format(yaml, 8).replace("ep: 8", "ep: 8, etp: 1"));
        assertEquals(RankOrder.DATA_OUTERMOST, folded.run().parallel().rankOrder());
        // the stages outermost (the framework's order) fold them over the stage's tp x cp x dp
        assertEquals(8, read(String.format(yaml, 1).replace(", rank_order: tp-cp-pp-dp", "")).run().parallel().ep());
    }

    @Test
    void megatronsSpellingsAreRead() {
        assertEquals(RankOrder.PIPELINE_OUTERMOST, RankOrder.parse("tp-cp-ep-dp-pp"));   // Megatron-Core's default
        assertEquals(RankOrder.DATA_OUTERMOST, RankOrder.parse("tp-cp-ep-pp-dp"));
        assertEquals(RankOrder.PIPELINE_OUTERMOST, RankOrder.parse("tp-dp-pp"));          // its docstring's, no cp
        assertEquals(RankOrder.DATA_OUTERMOST, RankOrder.parse("TP-PP-DP"));
        assertNull(RankOrder.parse("dp-tp-pp"), "tensor parallelism innermost in every framework read");
        assertNull(RankOrder.parse("tp-tp-dp-pp"));
        assertNull(RankOrder.parse("tp-cp-dp"));
        assertNull(RankOrder.parse(""));
    }

    /**
     * Megatron-Core's interleaved schedule sends between stages behind the other chunks' compute (overlap_p2p_comm, the
     * default since 2023-10-12): with virtual stages the pipeline's sends hide, without them (1F1B, where Megatron turns
     * the overlap off) they are waited for, as they are in Megatron-LM before 2023 at any schedule.
     */
    @Test
    void theInterleavedScheduleHidesItsSendsWhereTheFrameworkDoes() throws Exception {
        String yaml = """
                cluster: {preset: dgx-h100, nodes: 2}
                model: llama-3-8b
                parallel: {tp: 2, pp: 4, dp: 2, virtual_stages: %d, sequence_parallel: true}
                training: {seq_len: 4096, micro_batch_size: 1, micro_batches: 8, framework: %s}
                """;
        // (with sequence parallelism both send a tensor-parallel rank's half: Megatron-LM before Megatron-Core scatters
        // its sends without it, PipelineScatterGatherTest)
        Collective interleaved = pipeline(read(String.format(yaml, 2, "megatron-core")));
        assertEquals(OverlapWindow.OTHER_MICRO_BATCH, interleaved.overlapsWith());
        assertTrue(interleaved.exposedSeconds() < interleaved.seconds());
        Collective plain = pipeline(read(String.format(yaml, 1, "megatron-core")));
        assertEquals(OverlapWindow.NONE, plain.overlapsWith());
        assertEquals(plain.seconds(), plain.exposedSeconds(), 0);
        Collective before = pipeline(read(String.format(yaml, 2, "megatron-lm")));
        assertEquals(OverlapWindow.NONE, before.overlapsWith());
        assertEquals(before.seconds(), before.exposedSeconds(), 0);
        // the same sends: 2 x 8 micro-batches x 2 chunks of 4096 tokens x 4096 x 2 bytes over tp 2, each way
        assertEquals(32, interleaved.calls());
        assertEquals(4096.0 * 4096 * 2 / 2, interleaved.bytesPerPass(), 0);
        assertEquals(interleaved.seconds(), before.seconds(), 1e-12);
    }

    private static Collective pipeline(RunSpec s) {
        return collective(StepModel.predict(s.cluster(), s.run()), CollectiveOp.PP_SEND_RECV);
    }
}
