package dev.trainadvisor.perf;

import dev.trainadvisor.spec.RunSpec;
import org.junit.jupiter.api.Test;

import static dev.trainadvisor.perf.ContextExpertParallelTest.read;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Issue 21, item 2: an expert all-to-all whose group spans nodes, priced by hand. Qwen3-235B-A22B (94 MoE layers,
 * top-8, hidden 4096) with ep 32 over four DGX H100 (NVLink4 at its catalogue bus bandwidth, 8 ConnectX-7 NDR a node:
 * 8 x 400 / 8 x 0.94 = 376 GB/s a node, 47 GB/s for each GPU's own NIC).
 */
class MoeAcrossNodesTest {
    static final String RUN = """
            cluster: {preset: dgx-h100, nodes: 4}
            model: qwen3-235b-a22b
            parallel: {tp: 1, pp: 1, ep: 32, dp: 32, zero_stage: 3 %s}
            training: {seq_len: 4096, micro_batch_size: 1, micro_batches: %d}
            """;

    static Collective a2a(String extra, int microBatches) throws Exception {
        RunSpec s = read(RUN.formatted(extra, microBatches));
        return StepModel.predict(s.cluster(), s.run()).collectives().stream().filter(c -> c.name().equals("ep-all-to-all"))
                .findFirst().orElseThrow();
    }

    static double nvlink() throws Exception { return read(RUN.formatted("", 1)).cluster().intraNode().busbwGbps(); }

    /**
     * Each rank sends 7/32 of its buffer to its node's 7 peers over NVLink and 24/32 off the node through its own NIC:
     * busbw = (31/32) / max((7/32) / B_nvlink, (24/32) / 47) = 60.7 GB/s, bound by the network, a sixth of the NVLink
     * bus bandwidth the group was placed at as a ring.
     */
    @Test
    void aPlainAllToAllAcrossNodesIsBoundByEachGpusOwnNic() throws Exception {
        Collective c = a2a("", 1);
        assertEquals(LinkScope.INTER_NODE, c.link().scope());
        assertEquals("IB-NDR", c.link().linkKey());
        double perGpu = 8 * 400 / 8.0 * 0.94 / 8;
        assertEquals(47, perGpu, 1e-9);
        double expected = (31 / 32.0) / Math.max((7 / 32.0) / nvlink(), (24 / 32.0) / perGpu);
        assertEquals(60.7, expected, 0.05);
        assertEquals(expected, c.link().busbwGbps(), 1e-9);
        assertTrue(c.link().busbwGbps() < nvlink() / 5);
    }

    /**
     * DeepEP sends a token once to each other node holding any of its 8 experts: with experts spread evenly over 4
     * nodes, 3 (1 - (3/4)^8) = 2.70 other nodes a token against the 8 x 3/4 = 6 copies that leave it as one per expert,
     * a share of 0.450; and NVLink forwards what arrives, (24/32)(7/8) more of the buffer on it.
     */
    @Test
    void deepEpCrossesTheNetworkOncePerNode() throws Exception {
        double share = 3 * (1 - Math.pow(0.75, 8)) / 6;
        assertEquals(0.44994, share, 1e-5);
        assertEquals(share, Topology.oncePerDomainShare(4, 8), 1e-12);
        Collective c = a2a(", moe_dispatcher: deepep", 1);
        double intra = (7 / 32.0 + 24 / 32.0 * 7 / 8.0) / nvlink(), net = 24 / 32.0 * share / 47;
        assertEquals((31 / 32.0) / Math.max(intra, net), c.link().busbwGbps(), 1e-9);
        assertEquals(LinkScope.INTER_NODE, c.link().scope());
        assertTrue(c.seconds() < a2a("", 1).seconds() / 2, "less than half of the plain all-to-all's time");
    }

    /** A group inside one node is placed as before: the NVLink ring's bus bandwidth, whatever the dispatcher. */
    @Test
    void aGroupInsideANodeIsUnchanged() throws Exception {
        RunSpec s = read("""
                cluster: {preset: dgx-h100, nodes: 4}
                model: qwen3-235b-a22b
                parallel: {tp: 1, pp: 1, ep: 8, dp: 32, zero_stage: 3, moe_dispatcher: deepep}
                training: {seq_len: 4096, micro_batch_size: 1, micro_batches: 1}
                """);
        Collective c = StepModel.predict(s.cluster(), s.run()).collectives().stream()
                .filter(x -> x.name().equals("ep-all-to-all")).findFirst().orElseThrow();
        assertEquals(LinkScope.INTRA_NODE, c.link().scope());
        assertEquals(s.cluster().intraNode().busbwGbps(), c.link().busbwGbps(), 1e-9);
    }

    /**
     * Overlapped with another micro-batch (--overlap-moe-expert-parallel-comm): with one micro-batch there is none to
     * run beside, so nothing hides; with 8 the all-to-alls hide behind 7 micro-batches' compute, each hidden second
     * costing DeepEP's 24 of the H100's 132 SMs to the compute beside it: exposed = s - hidden / (1 + 24 / 108).
     */
    @Test
    void theOverlapNeedsAnotherMicroBatchAndCostsTheSmsTheKernelsHold() throws Exception {
        Collective one = a2a(", moe_dispatcher: deepep, moe_a2a_overlap: true", 1);
        assertEquals(one.seconds(), one.exposedSeconds(), 1e-12);
        Collective eight = a2a(", moe_dispatcher: deepep, moe_a2a_overlap: true", 8);
        Collective exposed = a2a(", moe_dispatcher: deepep", 8);
        assertEquals(exposed.seconds(), eight.seconds(), 1e-12);
        assertEquals(24.0 / 108, eight.link().interference(), 1e-12);
        double hidden = (eight.seconds() - eight.exposedSeconds()) * (1 + 24.0 / 108);
        assertTrue(hidden > 0.8 * eight.seconds(), "most of it hides: " + hidden + " of " + eight.seconds());
        assertEquals(exposed.seconds(), exposed.exposedSeconds(), 1e-12);
    }
}
