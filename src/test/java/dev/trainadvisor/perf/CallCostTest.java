package dev.trainadvisor.perf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Collectives at scale (issue 9, item 3): the latency of a call grows with the nodes a ring crosses, and NCCL's other
 * algorithms take over where they are cheaper (NVIDIA/nccl src/graph/tuning.cc): a tree for an all-reduce over many
 * nodes, PAT for an all-gather or reduce-scatter with one rank per node. Hand calculations from the catalogue's
 * latencies (IB-NDR 47.5 us measured on 2 nodes) and NCCL's per-hop constants.
 */
class CallCostTest {
    static LinkChoice net(int nodes, int perNode, double busbw) {
        return new LinkChoice("IB-NDR", LinkScope.INTER_NODE, busbw, 47.5, true, nodes, perNode, 0);
    }

    /** Two nodes: the measured latency as it is; 64 nodes: 2 x 62 more network hops of 14 us for an all-reduce ring. */
    @Test
    void aRingPaysAHopPerExtraNode() {
        assertEquals(47.5, CallCost.ring(CollectiveKind.ALL_REDUCE, 16, net(2, 8, 47)).alphaUs(), 1e-12);
        assertEquals(47.5 + 2 * 62 * 14, CallCost.ring(CollectiveKind.ALL_REDUCE, 512, net(64, 8, 47)).alphaUs(), 1e-9);
        assertEquals(47.5 + 62 * 14, CallCost.ring(CollectiveKind.ALL_GATHER, 512, net(64, 8, 47)).alphaUs(), 1e-9);
        assertEquals(2.0 * 511 / 512, CallCost.ring(CollectiveKind.ALL_REDUCE, 512, net(64, 8, 47)).factor(), 1e-12);
    }

    /**
     * 1 MB all-reduced over 64 nodes at 47 GB/s: the ring takes 1783.5 us + 2 x 511/512 x 1 MB / 47 GB/s = 1826 us;
     * a tree 47.5 + 2 x (6 - 1) x 14 = 187.5 us + 2 / 0.782 x 1 MB / 47 GB/s = 241.9 us, so NCCL runs a tree. 10 GB
     * moves faster as a ring: 426 ms against 545.
     */
    @Test
    void aTreeTakesOverForAllReducesOverManyNodes() {
        CallCost small = CallCost.of(CollectiveKind.ALL_REDUCE, 512, net(64, 8, 47), 1e6);
        assertEquals("tree", small.algorithm());
        assertEquals(47.5 + 2 * 5 * 14, small.alphaUs(), 1e-9);
        assertEquals(2 / (0.92 * 0.85), small.factor(), 1e-12);
        assertEquals(241.9e-6, small.seconds(1e6, 47e9), 0.05e-6);
        CallCost big = CallCost.of(CollectiveKind.ALL_REDUCE, 512, net(64, 8, 47), 10e9);
        assertEquals("ring", big.algorithm());
        assertEquals(1783.5e-6 + 2.0 * 511 / 512 * 10e9 / 47e9, big.seconds(10e9, 47e9), 1e-9);
        // on two nodes there is nothing to choose
        assertEquals("ring", CallCost.of(CollectiveKind.ALL_REDUCE, 16, net(2, 8, 47), 1e6).algorithm());
    }

    /**
     * One rank per node over 48 nodes, 25 MB reduce-scattered: a ring 47.5 + 46 x 14 = 691.5 us + 47/48 x 25 MB /
     * 47 GB/s; PAT 47.5 + (log2 48 - 1) x 14 / 3.5 + 46 x 2.8 = 196.3 us + 47/48 x 25 MB / (0.75 x 47 GB/s): PAT.
     */
    @Test
    void patServesGathersWithOneRankPerNode() {
        CallCost c = CallCost.of(CollectiveKind.REDUCE_SCATTER, 48, net(48, 1, 47), 25e6);
        assertEquals("pat", c.algorithm());
        assertEquals(47.5 + (Math.log(48) / Math.log(2) - 1) * 4 + 46 * 2.8, c.alphaUs(), 1e-9);
        assertEquals(47.0 / 48 / 0.75, c.factor(), 1e-12);
        // two ranks per node: no PAT, the ring
        assertEquals("ring", CallCost.of(CollectiveKind.REDUCE_SCATTER, 96, net(48, 2, 47), 25e6).algorithm());
    }

    /**
     * An all-reduce inside an H100 node runs as NVLS: the catalogue's ring 370 GB/s times 479 / 370 on 8 GPUs, the ring's
     * own on 2-4, between them linearly (5 GPUs: a quarter of the gain); all-gathers keep the ring.
     */
    @Test
    void nvlinkSharpSpeedsUpAllReducesInsideANode() {
        double gain = 479.0 / 370;
        LinkChoice node = new LinkChoice("NVLink4", LinkScope.INTRA_NODE, 370, 26, false, 1, 8, 0, gain);
        CallCost ar8 = CallCost.of(CollectiveKind.ALL_REDUCE, 8, node, 1e9);
        assertEquals("nvls", ar8.algorithm());
        assertEquals(gain, ar8.bandwidthScale(), 1e-12);
        assertEquals(26e-6 + 2.0 * 7 / 8 * 1e9 / (479e9), ar8.seconds(1e9, 370e9), 1e-12);
        assertEquals(1 + (gain - 1) / 4, CallCost.of(CollectiveKind.ALL_REDUCE, 5, node, 1e9).bandwidthScale(), 1e-12);
        assertEquals("ring", CallCost.of(CollectiveKind.ALL_REDUCE, 4, node, 1e9).algorithm());
        assertEquals("ring", CallCost.of(CollectiveKind.ALL_GATHER, 8, node, 1e9).algorithm());
        assertEquals(1.0, CallCost.of(CollectiveKind.ALL_GATHER, 8, node, 1e9).bandwidthScale(), 0);
        // the catalogue's H100 link carries it
        var link = dev.trainadvisor.spec.Catalog.builtIn().links().get("NVLink4").value();
        assertEquals(370, link.busbwGbps(), 0);
        assertEquals(479.0 / 370, link.nvlsGain(), 1e-12);
    }

    /**
     * With SHARP declared (inter_node.sharp) an all-reduce across nodes moves its bytes through the network once each
     * way: 1 GB over 16 GPUs of 8 nodes at 47 GB/s in 47.5 us + 1 GB / 47 GB/s, against a ring's 2 x 15/16 of it.
     */
    @Test
    void sharpReducesInTheNetwork() {
        LinkChoice sharp = new LinkChoice("IB-NDR", LinkScope.INTER_NODE, 47, 47.5, true, 8, 2, 0, 1.0, true);
        CallCost c = CallCost.of(CollectiveKind.ALL_REDUCE, 16, sharp, 1e9);
        assertEquals("sharp", c.algorithm());
        assertEquals(47.5e-6 + 1e9 / 47e9, c.seconds(1e9, 47e9), 1e-12);
        assertEquals("ring", CallCost.of(CollectiveKind.ALL_GATHER, 16, sharp, 1e9).algorithm());
        // the run file declares it
        ObjectMapper j = new ObjectMapper();
        ObjectNode t = j.createObjectNode();
        ObjectNode cl = t.putObject("cluster").put("preset", "dgx-h100").put("nodes", 8);
        cl.putObject("inter_node").put("link", "IB-NDR").put("nics_per_node", 2).put("sharp", true);   // the network bounds
        t.put("model", "llama-2-7b");
        t.putObject("parallel").put("zero_stage", 0);
        t.putObject("training").put("seq_len", 4096).put("micro_batch_size", 1).put("micro_batches", 4);
        RunSpec s = new SpecReader().read(t, "run.json");
        assertTrue(s.cluster().interNode().sharp());
        Collective ar = StepModel.predict(s.cluster(), s.run()).collectives().stream()
                .filter(x -> x.op() == CollectiveOp.DP_GRAD_ALL_REDUCE).findFirst().orElseThrow();
        assertEquals("sharp", ar.cost().algorithm());
        assertEquals(1.0, ar.factor(), 0);
    }

    /** Inside an NVL72 rack a ring over 72 GPUs pays 64 more NVLink steps of 3.4 us than the 8 it was measured on. */
    @Test
    void aRackWideRingPaysItsNvlinkHops() {
        LinkChoice rack = new LinkChoice("NVLink5", LinkScope.INTRA_NODE, 830, 16, false, 1, 72, 0);
        assertEquals(16 + (71 - 7) * 3.4, CallCost.ring(CollectiveKind.ALL_GATHER, 72, rack).alphaUs(), 1e-9);
        assertEquals(16, CallCost.ring(CollectiveKind.ALL_GATHER, 8, rack).alphaUs(), 1e-12);
    }

    /**
     * parallel.bucket_mb sets the calls of a bucketed gradient reduction: Llama-2-7B's 6.74B fp32 gradients are 270
     * buckets of 100 MB where PyTorch DDP's 25 MB make 1079.
     */
    @Test
    void theBucketSizeSetsTheCalls() {
        ObjectMapper j = new ObjectMapper();
        long[] calls = new long[2];
        double[] mbs = {25, 100};
        for (int i = 0; i < 2; i++) {
            ObjectNode t = j.createObjectNode();
            t.putObject("cluster").put("preset", "dgx-h100").put("nodes", 8);
            t.put("model", "llama-2-7b");
            ObjectNode p = t.putObject("parallel").put("zero_stage", 0);
            if (mbs[i] != 25) p.put("bucket_mb", mbs[i]);
            t.putObject("training").put("seq_len", 4096).put("micro_batch_size", 1).put("micro_batches", 4);
            RunSpec s = new SpecReader().read(t, "run.json");
            Collective c = StepModel.predict(s.cluster(), s.run()).collectives().stream()
                    .filter(x -> x.op() == CollectiveOp.DP_GRAD_ALL_REDUCE).findFirst().orElseThrow();
            calls[i] = c.calls();
            assertEquals(Math.ceil(c.bytesPerPass() / (mbs[i] * 1e6)), c.calls(), 0);
        }
        assertTrue(calls[0] > 3.9 * calls[1] && calls[0] < 4.1 * calls[1], calls[0] + " vs " + calls[1]);
    }
}
