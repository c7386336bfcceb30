package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.Training;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.trainadvisor.perf.PerfFixtures.rel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Communication: nccl-tests' bus-bandwidth factors, placement of groups on the topology with the
 * catalogue's bandwidths, ZeRO communication volumes (Rajbhandari et al. 2019, section 7), and two
 * invariants of the step model (exposed seconds add up; more bandwidth is never slower).
 */
class CommTest {

    // ------------------------------------------------------------------ https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md

    /**
     * https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md: busbw = algbw x factor with all-reduce 2(n-1)/n, reduce-scatter and
     * all-gather (n-1)/n, broadcast and reduce 1. Hand values: n = 2: 1, 1/2; n = 8: 14/8 = 1.75, 7/8 = 0.875;
     * n = 16: 30/16 = 1.875, 15/16 = 0.9375.
     */
    @Test
    void busBandwidthFactorsMatchNcclTests() {
        int[] ranks = {2, 8, 16};
        double[] allReduce = {1.0, 1.75, 1.875};
        double[] scatterGather = {0.5, 0.875, 0.9375};
        for (int i = 0; i < ranks.length; i++) {
            int n = ranks[i];
            assertEquals(allReduce[i], CollectiveKind.ALL_REDUCE.factor(n), 1e-15, "all-reduce n=" + n);
            assertEquals(scatterGather[i], CollectiveKind.REDUCE_SCATTER.factor(n), 1e-15, "reduce-scatter n=" + n);
            assertEquals(scatterGather[i], CollectiveKind.ALL_GATHER.factor(n), 1e-15, "all-gather n=" + n);
            assertEquals(1.0, CollectiveKind.BROADCAST.factor(n), 0, "broadcast n=" + n);
            assertEquals(1.0, CollectiveKind.REDUCE.factor(n), 0, "reduce n=" + n);
        }
    }

    // ------------------------------------------------------------------ Topology.place

    /**
     * 2 DGX A100 nodes: NVLink3 all-reduce busbw 231.6 GB/s (knowledge-base/links.json); IB-HDR 200 Gbit/s at
     * efficiency 0.96 x 8 NICs per node = 8 x 25 x 0.96 = 192 GB/s per node (networks.json; NVIDIA measures
     * 192 GB/s on DGX A100, nccl#812).
     * <ul>
     * <li>8 ranks stride 1: one node, NVLink3, 231.6 GB/s;</li>
     * <li>16 ranks stride 1: 8 per node on 2 nodes, min(231.6, 192 x 8/8) = 192 GB/s, network-bound;</li>
     * <li>2 ranks stride 8: one per node; the 8 such groups share the NICs: 192 x 1/8 = 24 GB/s;</li>
     * <li>4 ranks stride 4: 2 per node; 4 groups share the NICs: 192 x 2/8 = 48 GB/s.</li>
     * </ul>
     */
    @Test
    void placementOnTwoNvlinkNodes() {
        Cluster c = PerfFixtures.dgxA100(2);
        Topology topo = new Topology(c, PerfFixtures.parallel(1, 1, 16, false, 0, 16, 1), dev.trainadvisor.spec.RankOrder.PIPELINE_OUTERMOST);
        double nvlink3Gbps = 231.6, nodeNetworkGbps = 8 * 200 / 8.0 * 0.96;
        assertEquals(192.0, nodeNetworkGbps, 1e-12);

        LinkChoice inNode = topo.place(8, 1);
        assertFalse(inNode.crossesNodes());
        assertTrue(inNode.intraBound());
        assertEquals(nvlink3Gbps, inNode.busbwGbps(), 1e-9);
        assertEquals("NVLink3", inNode.linkKey());

        LinkChoice twoNodes = topo.place(16, 1);
        assertTrue(twoNodes.crossesNodes());
        assertEquals(2, twoNodes.nodesSpanned());
        assertEquals(8, twoNodes.membersPerNode());
        assertEquals(Math.min(nvlink3Gbps, nodeNetworkGbps), twoNodes.busbwGbps(), 1e-9);
        assertEquals("IB-HDR", twoNodes.linkKey());

        LinkChoice onePerNode = topo.place(2, 8);
        assertTrue(onePerNode.crossesNodes());
        assertEquals(1, onePerNode.membersPerNode());
        assertEquals(nodeNetworkGbps / 8, onePerNode.busbwGbps(), 1e-9);

        LinkChoice twoPerNode = topo.place(4, 4);
        assertEquals(2, twoPerNode.membersPerNode());
        assertEquals(nodeNetworkGbps * 2 / 8, twoPerNode.busbwGbps(), 1e-9);
    }

    /**
     * The motivating case's nodes: PCIe4 busbw 20 GB/s (links.json); 2 x HDR100 per node:
     * 2 x 100/8 x 0.96 = 24 GB/s. A 16-rank ring across the two nodes is bound by min(20, 24 x 8/8) = 20 GB/s,
     * the intra-node PCIe (the diagnosis of InternLM issue 22); one rank per node gets 24/8 = 3 GB/s.
     */
    @Test
    void placementOnTwoPcieNodesIsBoundByPcie() {
        Cluster c = PerfFixtures.a100Pcie(2);
        Topology topo = new Topology(c, PerfFixtures.parallel(1, 1, 16, false, 1, 16, 1), dev.trainadvisor.spec.RankOrder.PIPELINE_OUTERMOST);
        double pcie4Gbps = 20, nodeNetworkGbps = 2 * 100 / 8.0 * 0.96;

        LinkChoice inNode = topo.place(8, 1);
        assertEquals(pcie4Gbps, inNode.busbwGbps(), 1e-9);
        assertFalse(inNode.crossesNodes());

        LinkChoice twoNodes = topo.place(16, 1);
        assertTrue(twoNodes.crossesNodes());
        assertTrue(twoNodes.intraBound(), "16 ranks over 2 PCIe nodes are bound by PCIe, not by 24 GB/s of IB");
        assertEquals(Math.min(pcie4Gbps, nodeNetworkGbps), twoNodes.busbwGbps(), 1e-9);
        assertEquals("PCIe4", twoNodes.linkKey());

        LinkChoice onePerNode = topo.place(2, 8);
        assertFalse(onePerNode.intraBound());
        assertEquals(nodeNetworkGbps / 8, onePerNode.busbwGbps(), 1e-9);
        assertEquals(3.0, onePerNode.busbwGbps(), 1e-9);
    }

    /**
     * Groups of the layout land where the framework's numbering puts them, TP innermost then CP. Megatron-Core's
     * RankGenerator (megatron/core/parallel_state.py, its docstring's equation (1) for order tp-dp-pp: global_rank =
     * tp_rank + dp_rank x tp + pp_rank x tp x dp) puts the replicas inside each stage; --use-tp-pp-dp-mapping the stages
     * inside each replica (its docstring: 8 GPUs, tp-pp-dp of 2-2-2, dp groups [0, 4], [1, 5], ...).
     */
    @Test
    void layoutStridesFollowTheFrameworksRankOrder() {
        Parallel p = new Parallel(2, 2, 4, 2, 1, false, 0, 4, 1, true, false);
        Topology stages = new Topology(PerfFixtures.dgxA100(4), p, dev.trainadvisor.spec.RankOrder.PIPELINE_OUTERMOST);
        assertEquals(1, stages.tpStride());
        assertEquals(2, stages.cpStride());        // tp
        assertEquals(4, stages.dpStride());        // tp x cp
        assertEquals(16, stages.ppStride());       // tp x cp x dp
        Topology replicas = new Topology(PerfFixtures.dgxA100(4), p, dev.trainadvisor.spec.RankOrder.DATA_OUTERMOST);
        assertEquals(2, replicas.cpStride());
        assertEquals(4, replicas.ppStride());      // tp x cp
        assertEquals(8, replicas.dpStride());      // tp x cp x pp
        // the docstring's example: tp 2, pp 2, dp 2 numbered tp-pp-dp; rank 0's data-parallel group is [0, 4]
        Parallel small = new Parallel(2, 2, 2, 1, 1, false, 0, 2, 1, true, false);
        assertEquals(4, new Topology(PerfFixtures.dgxA100(1), small, dev.trainadvisor.spec.RankOrder.DATA_OUTERMOST).dpStride());
        // and numbered tp-dp-pp by equation (1): [0, 2], and the pipeline's [0, 4]
        Topology megatron = new Topology(PerfFixtures.dgxA100(1), small, dev.trainadvisor.spec.RankOrder.PIPELINE_OUTERMOST);
        assertEquals(2, megatron.dpStride());
        assertEquals(4, megatron.ppStride());
    }

    // ------------------------------------------------------------------ ZeRO volumes, section 7

    private static StepPrediction predictZero(int stage) {
        Model m = PerfFixtures.internlm7b();
        // bf16 gradient reduction, so gradient and parameter buffers are both 2 bytes per parameter
        Training t = PerfFixtures.training(2048, 2, 1, Recompute.NONE, Precision.BF16, true);
        Parallel p = PerfFixtures.parallel(1, 1, 8, false, stage, 8, 1);
        return StepModel.predict(PerfFixtures.dgxA100(1), PerfFixtures.run(m, p, t));
    }

    /**
     * ZeRO paper section 7: plain data parallelism all-reduces the gradients, 2 Psi per step; ZeRO-1/2 replace
     * it by a reduce-scatter of gradients (Psi) and an all-gather of parameters (Psi), 2 Psi in all; ZeRO-3
     * all-gathers the parameters in forward and again in backward and reduce-scatters the gradients, 3 Psi.
     * The paper's volumes are per GPU for large n: a ring reduce-scatter or all-gather of a Psi-byte buffer sends
     * exactly (n-1)/n x Psi per GPU (nccl-tests' factor), an all-reduce 2 (n-1)/n x Psi. So for n = 8 the volume in
     * units of Psi is sum(bytes x factor) / (Psi_bytes x 7/8), micro_batches = 1.
     * InternLM-7B: Psi = 32 x 202,395,648 + 2 x 4096 x 103168 + 4096 = 7,321,817,088 parameters,
     * Psi_bytes = 2 x Psi = 14,643,634,176.
     */
    @Test
    void zeroCommunicationVolumesMatchSection7() {
        double psiBytes = 2 * 7_321_817_088.0;
        double ringShare = 7.0 / 8;
        int[] stages = {0, 1, 2, 3};
        double[] expectedPsiUnits = {2, 2, 2, 3};
        List<List<CollectiveKind>> expectedKinds = List.of(
                List.of(CollectiveKind.ALL_REDUCE),
                List.of(CollectiveKind.REDUCE_SCATTER, CollectiveKind.ALL_GATHER),
                List.of(CollectiveKind.REDUCE_SCATTER, CollectiveKind.ALL_GATHER),
                List.of(CollectiveKind.REDUCE_SCATTER, CollectiveKind.ALL_GATHER, CollectiveKind.ALL_GATHER));
        for (int i = 0; i < stages.length; i++) {
            StepPrediction pred = predictZero(stages[i]);
            double weightedBytes = 0;
            for (Collective c : pred.collectives()) {
                weightedBytes += c.bytesPerStep() * c.kind().factor(c.groupSize());
                assertEquals(8, c.groupSize(), c.name());
            }
            assertEquals(expectedKinds.get(i), pred.collectives().stream().map(Collective::kind).sorted().toList(),
                    "collectives of ZeRO stage " + stages[i]);
            assertEquals(expectedPsiUnits[i], weightedBytes / (psiBytes * ringShare), 1e-9,
                    "volume of ZeRO stage " + stages[i] + " in units of Psi");
        }
    }

    /**
     * One collective timed by hand: t = calls x alpha + factor x bytes / busbw. PCIe node (PCIe4: 20 GB/s,
     * alpha 42.6 us), InternLM-7B, ZeRO-1 over 8, fp32 gradient reduction:
     * <pre>
     *   reduce-scatter: 4 x 7,321,817,088 = 29,287,268,352 bytes in ceil(29,287,268,352 / 25e6) = 1172 buckets
     *                   1172 x 42.6e-6 + 0.875 x 29,287,268,352 / 20e9 = 0.0499272 + 1.2813179904 = 1.3312451904 s
     *   all-gather:     2 x 7,321,817,088 = 14,643,634,176 bytes in ceil(585.75) = 586 buckets
     *                   586 x 42.6e-6 + 0.875 x 14,643,634,176 / 20e9 = 0.0249636 + 0.6406589952 = 0.6656225952 s
     * </pre>
     * The all-gather is not overlapped (overlap_param_gather false): all of it is exposed.
     */
    @Test
    void zeroOneCollectiveTimesByHand() {
        Model m = PerfFixtures.internlm7b();
        Training t = PerfFixtures.training(2048, 2, 4, Recompute.NONE, Precision.FP32, true);
        Parallel p = PerfFixtures.parallel(1, 1, 8, false, 1, 8, 1);
        StepPrediction pred = StepModel.predict(PerfFixtures.a100Pcie(1), PerfFixtures.run(m, p, t));
        Collective rs = byKind(pred, CollectiveKind.REDUCE_SCATTER);
        Collective ag = byKind(pred, CollectiveKind.ALL_GATHER);
        assertEquals(0, rel(rs.seconds(), 1.3312451904), 1e-9, "reduce-scatter seconds");
        assertEquals(0, rel(ag.seconds(), 0.6656225952), 1e-9, "all-gather seconds");
        assertEquals(ag.seconds(), ag.exposedSeconds(), 1e-12, "all-gather fully exposed");
        assertTrue(rs.exposedSeconds() <= rs.seconds());
    }

    private static Collective byKind(StepPrediction pred, CollectiveKind kind) {
        List<Collective> found = pred.collectives().stream().filter(c -> c.kind() == kind).toList();
        assertEquals(1, found.size(), "one " + kind + " in " + pred.collectives());
        return found.get(0);
    }

    // ------------------------------------------------------------------ invariants

    private record Case(String name, Cluster cluster, RunMetrics run) {}

    private static List<Case> cases() {
        Model internlm = PerfFixtures.internlm7b();
        Model gpt3 = PerfFixtures.gpt3_175b();
        Training t = PerfFixtures.training(2048, 2, 4, Recompute.NONE, Precision.FP32, true);
        Training tFull = PerfFixtures.training(2048, 1, 16, Recompute.FULL, Precision.BF16, false);
        Training tSel = PerfFixtures.training(2048, 1, 8, Recompute.SELECTIVE, Precision.BF16, true);
        return List.of(
                new Case("internlm zero1 pcie 2 nodes", PerfFixtures.a100Pcie(2),
                        PerfFixtures.run(internlm, PerfFixtures.parallel(1, 1, 16, false, 1, 16, 1), t)),
                new Case("internlm zero1 in-node shards, 2 replicas", PerfFixtures.a100Pcie(2),
                        PerfFixtures.run(internlm, PerfFixtures.parallel(1, 1, 16, false, 1, 8, 1), t)),
                new Case("internlm plain dp nvlink", PerfFixtures.dgxA100(2),
                        PerfFixtures.run(internlm, PerfFixtures.parallel(1, 1, 16, false, 0, 16, 1), t)),
                new Case("internlm zero3 nvlink", PerfFixtures.dgxA100(2),
                        PerfFixtures.run(internlm, PerfFixtures.parallel(1, 1, 16, false, 3, 16, 1), tSel)),
                new Case("internlm tp2 sp pp2 interleaved", PerfFixtures.dgxA100(2),
                        PerfFixtures.run(internlm, PerfFixtures.parallel(2, 2, 4, true, 1, 4, 2), tSel)),
                new Case("gpt3 tp8 pp8 full recompute", PerfFixtures.dgxA100(8),
                        PerfFixtures.run(gpt3, PerfFixtures.parallel(8, 8, 1, true, 0, 1, 1), tFull)),
                new Case("internlm tp16 across nodes", PerfFixtures.a100Pcie(2),
                        PerfFixtures.run(internlm, PerfFixtures.parallel(16, 1, 1, false, 0, 1, 1), t)));
    }

    /** docs/model.md / StepPrediction: the exposed seconds of the breakdown add up to the step time. */
    @Test
    void exposedSecondsSumToStepTime() {
        for (Case c : cases()) {
            StepPrediction pred = StepModel.predict(c.cluster(), c.run());
            double sumExposedS = pred.phases().stream().mapToDouble(Phase::exposedSeconds).sum();
            assertTrue(pred.stepTimeS() > 0, c.name());
            assertEquals(0, rel(sumExposedS, pred.stepTimeS()), 1e-9, c.name());
            for (Phase ph : pred.phases()) {
                assertTrue(ph.exposedSeconds() >= 0 && ph.exposedSeconds() <= ph.seconds() * (1 + 1e-12),
                        c.name() + ": " + ph);
            }
        }
    }

    /**
     * More intra-node bandwidth never predicts a slower step: sweep the measured busbw from 5 to 640 GB/s.
     * The sweep must also matter where the intra-node link binds: the runs on PCIe nodes must get strictly faster
     * between 5 and 640 GB/s.
     */
    @Test
    void moreIntraNodeBandwidthIsNeverSlower() {
        double[] busbwGbps = {5, 10, 20, 40, 80, 160, 320, 640};
        for (Case c : cases()) {
            double previousStepS = Double.POSITIVE_INFINITY;
            double firstStepS = Double.NaN;
            for (double bw : busbwGbps) {
                double stepS = StepModel.predict(PerfFixtures.withIntraBusbw(c.cluster(), bw), c.run()).stepTimeS();
                assertTrue(stepS <= previousStepS * (1 + 1e-12),
                        c.name() + ": " + bw + " GB/s gives " + stepS + " s, slower than " + previousStepS + " s");
                if (Double.isNaN(firstStepS)) firstStepS = stepS;
                previousStepS = stepS;
            }
            if (!c.cluster().intraNode().isNvlink()) {
                assertTrue(previousStepS < firstStepS, c.name() + ": bandwidth made no difference");
            }
        }
    }
}
