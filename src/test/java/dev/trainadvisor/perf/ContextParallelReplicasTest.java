package dev.trainadvisor.perf;

import dev.trainadvisor.spec.RunSpec;
import org.junit.jupiter.api.Test;

import static dev.trainadvisor.perf.ContextExpertParallelTest.read;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Context-parallel ranks hold the same weights and see other tokens of the same sequences, so their gradients are
 * summed with the data-parallel ranks' and ZeRO shards over both: Megatron-Core's gradient buffers and distributed
 * optimizer run on its data-and-context-parallel group (intra_dp_cp_group), torchtitan's FSDP on dp_shard x cp
 * (DataParallel.shardGroup says where).
 */
class ContextParallelReplicasTest {

    static Collective collective(StepPrediction p, CollectiveOp op) {
        return p.collectives().stream().filter(c -> c.op() == op).findFirst().orElseThrow(() -> new AssertionError(
                op + " not among " + p.collectives().stream().map(Collective::name).toList()));
    }

    @Test
    void gradientsAreReducedOverTheDataAndContextParallelRanks() throws Exception {
        // Llama-3-8B on one DGX H100, tp 1, cp 2, dp 4, Megatron-Core's distributed optimizer (ZeRO 1): the gradients'
        // reduce-scatter and the parameters' all-gather span the 8 GPUs of the node, not the 4 data-parallel ranks
        RunSpec s = read("""
                cluster: {preset: dgx-h100, nodes: 1}
                model: llama-3-8b
                parallel: {cp: 2, dp: 4, zero_stage: 1}
                training: {seq_len: 8192, micro_batch_size: 1, micro_batches: 4, framework: megatron-core}
                """);
        StepPrediction p = StepModel.predict(s.cluster(), s.run());
        Collective rs = collective(p, CollectiveOp.ZERO_GRAD_REDUCE_SCATTER), ag = collective(p, CollectiveOp.ZERO_PARAM_ALL_GATHER);
        assertEquals(8, rs.groupSize());
        assertEquals(8, ag.groupSize());
        assertEquals(LinkScope.INTRA_NODE, rs.link().scope(), "the eight ranks of the node");
        // ZeRO 1 over dp 4 x cp 2 shards the optimizer states as ZeRO 1 over dp 8 does: 12 bytes a parameter / 8
        RunSpec dp8 = read("""
                cluster: {preset: dgx-h100, nodes: 1}
                model: llama-3-8b
                parallel: {dp: 8, zero_stage: 1}
                training: {seq_len: 8192, micro_batch_size: 1, micro_batches: 2, framework: megatron-core}
                """);
        double cpOptimizer = p.memory().optimizerGb(), dpOptimizer = StepModel.predict(dp8.cluster(), dp8.run()).memory().optimizerGb();
        assertEquals(dpOptimizer, cpOptimizer, 1e-12);
        // Llama-3-8B has 8,030,261,248 parameters (its config: 32 layers, hidden 4096, ffn 14336, 8 KV heads, vocab
        // 128256, untied): 12 bytes each over 8 ranks
        assertEquals(12.0 * 8_030_261_248L / 8 / 1e9, cpOptimizer, 1e-6);
    }

    @Test
    void contextParallelAloneStillSumsItsGradients() throws Exception {
        // torchtitan's FSDP over cp 8 with no data parallelism (its published fsdp1-cp8 run): before, no collective at
        // all synchronised the eight copies of the weights; now FSDP gathers and reduce-scatters over the eight
        RunSpec s = read("""
                cluster: {preset: dgx-h100, nodes: 1}
                model: llama-3-8b
                parallel: {cp: 8, zero_stage: 3}
                training: {seq_len: 65536, micro_batch_size: 1, micro_batches: 1, framework: torchtitan}
                """);
        StepPrediction p = StepModel.predict(s.cluster(), s.run());
        assertEquals(8, collective(p, CollectiveOp.FSDP_FORWARD_ALL_GATHER).groupSize());
        assertEquals(8, collective(p, CollectiveOp.ZERO_GRAD_REDUCE_SCATTER).groupSize());
        // ZeRO 3 over eight: an eighth of the bf16 weights, and the two layers ZeRO-3 gathers at once in full: a layer
        // is 4096 x 4096 x 2 (q, o) + 4096 x 1024 x 2 (k, v) + 3 x 4096 x 14336 (the MLP) + 2 x 4096 (norms) =
        // 218,112,000 parameters
        assertEquals(2.0 * 8_030_261_248L / 8 / 1e9 + 2 * 218_112_000 * 2.0 / 1e9, p.memory().weightsGb(), 1e-6);
    }

    @Test
    void thePublishedContextParallelRunsFitTheirGpus() {
        // torchtitan's CP rows ran (knowledge-base/reference-runs/torchtitan.json): a model that sharded their states
        // over dp alone put fsdp1-cp8 at 180 GB of a 96 GB H100
        int checked = 0;
        for (dev.trainadvisor.spec.ReferenceRun rr : dev.trainadvisor.spec.ReferenceRun.builtIn()) {
            RunSpec s = rr.spec();
            if (!rr.id().startsWith("torchtitan-h100") || s.run().parallel().cp() <= 1) continue;
            MemoryEstimate m = StepModel.predict(s.cluster(), s.run()).memory();
            assertTrue(m.totalGb() <= m.capacityGb(), rr.id() + ": " + m.totalGb() + " GB of " + m.capacityGb());
            checked++;
        }
        assertEquals(6, checked);
    }

    @Test
    void aGridGroupIsPlacedByItsMembersPerNode() throws Exception {
        // 2 DGX H100 (8 GPUs a node), tp 2, cp 2, pp 2, dp 2, ranks numbered replicas outermost (Megatron's
        // --use-tp-pp-dp-mapping): TP innermost, then CP (stride 2), PP (stride 4), DP (stride 8). Rank 0's
        // data-and-context group is {0, 2} of node 0 and {8, 10} of node 1: two nodes, two members on each, so four
        // such groups share a node's network (8 GPUs / 2 members)
        RunSpec s = read("""
                cluster: {preset: dgx-h100, nodes: 2}
                model: llama-3-8b
                parallel: {tp: 2, cp: 2, pp: 2, dp: 2}
                training: {seq_len: 8192, micro_batch_size: 1, micro_batches: 4}
                """);
        Topology t = new Topology(s.cluster(), s.run().parallel(), dev.trainadvisor.spec.RankOrder.DATA_OUTERMOST);
        assertEquals(8, t.dpStride());
        LinkChoice l = t.place(2, t.cpStride(), 2, t.dpStride());
        assertTrue(l.crossesNodes());
        assertEquals(2, l.nodesSpanned());
        assertEquals(2, l.membersPerNode());
        assertEquals(LinkScope.INTER_NODE, l.scope());
        assertEquals(s.cluster().interNode().nodeGbps() * 2 / 8, l.busbwGbps(), 1e-9);
        // pp 1: the group is one stride (cp inside dp), as place(size, stride) has it
        assertEquals(t.place(4, 2), t.place(2, 2, 2, 4));
        // tp 1, cp 2, pp 2, dp 2 on one node: {0, 1} and {4, 5}, all in node 0
        assertEquals(1, Topology.gridBlocks(2, 1, 2, 4, 8));
        assertEquals(4, Topology.gridBlocks(2, 8, 2, 32, 8), "each inner block across two nodes, twice");
    }
}
