package dev.trainadvisor.advice;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.Severity;
import dev.trainadvisor.perf.CollectiveOp;
import dev.trainadvisor.perf.ConventionFlops;
import dev.trainadvisor.perf.LinkScope;
import dev.trainadvisor.spec.FlopsConvention;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import dev.trainadvisor.spec.Transport;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The acceptance case (InternLM issue 22, https://github.com/InternLM/InternLM/issues/22; docs/model.md, "The motivating case"): InternLM-7B logged 188.03 TFLOPS per GPU on an
 * NVLink node, 99.10 on a PCIe node and 93.48 on two PCIe nodes (InternEvo's own FLOPs count). Predictions are
 * converted to that count before comparing. Issue 17: InternLM's own code all-reduces the bf16 gradients in the last
 * micro-batch's backward and then broadcasts each rank's updated shard, which nothing hides
 * (knowledge-base/frameworks/internevo.json); with that, the PCIe node written as a user would (no preset, no sockets,
 * no framework: its tflops_convention names InternEvo) is headlined by the intra-node link, predicted within 10% of 99,
 * and its NVLink what-if and the NVLink run itself within 10% of 188.
 */
class MotivatingCaseTest {
    static final double NVLINK_MEASURED_TFLOPS = 188.03;
    static final double PCIE_MEASURED_TFLOPS = 99.10;

    static RunSpec spec(String path) { return new SpecReader().read(Path.of(path)); }

    /** Tokens/GPU/s times InternEvo's FLOPs per token: TFLOPS as InternEvo would print them. */
    static double internEvoTflops(RunSpec s, double tokensPerGpuPerS) {
        return tokensPerGpuPerS * ConventionFlops.perToken(FlopsConvention.INTERNEVO, s.run().model(), s.run().training()) / 1e12;
    }

    static Recommendation rec(Advice a, String id) {
        return a.recommendations().stream().filter(r -> r.id().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + id + " in " + a.recommendations()));
    }

    @Test
    void theRunAsAUserWritesItIsHeadlinedByTheLinkAndPredictedWithinTenPercent() {
        RunSpec s = spec("src/test/resources/runs/internlm-7b-pcie-as-a-user-writes-it.yaml");
        // 8 PCIe GPUs default to two sockets, and NCCL stages traffic across them through host memory: 10 GB/s, the
        // socket link of a Gen4 host (knowledge-base/transports.json), below the 16.6 GB/s of shared memory on Gen4
        assertEquals(2, s.cluster().intraNode().host().sockets());
        assertEquals(Transport.SHM, s.cluster().intraNode().transport());
        assertEquals(10.0, s.cluster().intraNode().busbwGbps(), 1e-9);
        // no framework written: the printed TFLOPS' convention names InternEvo, and the run says so
        assertEquals("internevo", s.run().training().framework().key());
        assertEquals("metrics.tflops_convention (internevo)", s.run().training().implementation().origin());
        Advice a = TrainAdvisor.advise(s);
        assertEquals("intra-node-bandwidth", a.top().id(), a.diagnoses().toString());
        assertEquals(Severity.HIGH, a.top().severity());
        // the times are explained with compute as the catalogue has it: the link, not the GPUs, is slow
        assertEquals(dev.trainadvisor.perf.FitHypothesis.NOMINAL, a.fit().chosen().hypothesis());
        double predicted = internEvoTflops(s, a.expected().tokensPerGpuPerS());
        assertEquals(PCIE_MEASURED_TFLOPS, predicted, 0.10 * PCIE_MEASURED_TFLOPS, "PCIe prediction within 10% of 99: " + predicted);
        Recommendation nv = rec(a, "nvlink-nodes");
        double nvTflops = internEvoTflops(s, nv.predictedTokensPerGpuPerS());
        assertEquals(NVLINK_MEASURED_TFLOPS, nvTflops, 0.10 * NVLINK_MEASURED_TFLOPS, "NVLink what-if within 10% of 188: " + nvTflops);
        // the what-if is priced from the fitted step, and predicts more than the run already does
        assertEquals(a.fitted().stepTimeS(), nv.baselineStepS(), 1e-12);
        assertTrue(nv.predictedTokensPerGpuPerS() > a.observed().tokensPerGpuPerS());
        assertTrue(nv.speedupLow() <= nv.speedup() && nv.speedup() <= nv.speedupHigh());
    }

    @Test
    void internEvoAllReducesTheBf16GradientsAndBroadcastsEachShard() {
        RunSpec s = spec("src/test/resources/runs/internlm-7b-pcie-as-a-user-writes-it.yaml");
        var p = dev.trainadvisor.perf.StepModel.predict(s.cluster(), s.run());
        // InternLM-7B by hand: 32 layers x (4 h^2 + 3 h ffn + 4 h of attention biases + 2 h of norms) + 2 V h + h
        // = 32 x (67,108,864 + 135,266,304 + 16,384 + 8,192) + 845,152,256 + 4,096 = 7,321,948,160 parameters
        double psi = 32 * (4.0 * 4096 * 4096 + 3.0 * 4096 * 11008 + 4 * 4096 + 2 * 4096) + 2.0 * 103168 * 4096 + 4096;
        var ar = p.collectives().stream().filter(c -> c.op() == CollectiveOp.ZERO_GRAD_ALL_REDUCE).findFirst().orElseThrow();
        var bc = p.collectives().stream().filter(c -> c.op() == CollectiveOp.ZERO_PARAM_BROADCAST).findFirst().orElseThrow();
        assertEquals(2 * psi, ar.bytesPerStep(), 0.005 * 2 * psi, "bf16 gradients, all of them, once a step");
        assertEquals(8, ar.groupSize());
        // the all-reduce moves 2 (n - 1) / n of them, at the 10 GB/s the link gives: 2.56 s, behind the last backward
        assertEquals(2 * 7.0 / 8 * 2 * psi / 10e9, ar.seconds() - ar.latencySeconds(), 0.01);
        assertEquals(dev.trainadvisor.perf.OverlapWindow.LAST_BACKWARD, ar.overlapsWith());
        // eight broadcasts of a shard each, 2 psi / 8 bytes, all of them exposed: 1.46 s
        assertEquals(8, bc.calls());
        assertEquals(2 * psi, bc.bytesPerStep(), 0.005 * 2 * psi);
        assertEquals(2 * psi / 10e9, bc.seconds() - bc.latencySeconds(), 0.01);
        assertEquals(bc.seconds(), bc.exposedSeconds(), 1e-12);
        // nothing is reduce-scattered or all-gathered
        assertTrue(p.collectives().stream().noneMatch(c -> c.op() == CollectiveOp.ZERO_GRAD_REDUCE_SCATTER
                || c.op() == CollectiveOp.ZERO_PARAM_ALL_GATHER));
    }

    @Test
    void pcieNodeIsDiagnosedIntraNodeBoundAndNvlinkIsRecommended() {
        RunSpec s = spec("examples/internlm-7b-pcie-1node.yaml");
        Advice a = TrainAdvisor.advise(s);
        Diagnosis top = a.top();
        assertEquals("intra-node-bandwidth", top.id());
        assertEquals(Severity.HIGH, top.severity());
        double predicted = internEvoTflops(s, a.expected().tokensPerGpuPerS());
        assertEquals(PCIE_MEASURED_TFLOPS, predicted, 0.10 * PCIE_MEASURED_TFLOPS, "PCIe prediction within 10%");
        Recommendation nv = rec(a, "nvlink-nodes");
        double nvTflops = internEvoTflops(s, nv.predictedTokensPerGpuPerS());
        assertEquals(NVLINK_MEASURED_TFLOPS, nvTflops, 0.10 * NVLINK_MEASURED_TFLOPS, "NVLink what-if within 10% of 188");
        assertTrue(nv.addresses().contains("intra-node-bandwidth"));
        assertEquals("nvlink-nodes", a.recommendations().get(0).id(), "NVLink nodes give the largest gain");
    }

    @Test
    void nvlinkNodeIsPredictedWithinTenPercentAndItsFirstFlashAttentionNoticed() {
        RunSpec s = spec("examples/internlm-7b-nvlink-1node.yaml");
        Advice a = TrainAdvisor.advise(s);
        double predicted = internEvoTflops(s, a.expected().tokensPerGpuPerS());
        assertEquals(NVLINK_MEASURED_TFLOPS, predicted, 0.10 * NVLINK_MEASURED_TFLOPS, "NVLink run within 10% of 188: " + predicted);
        // InternLM's code of July 2023 ran FlashAttention 1.0.5 (internevo.json, version 2023): the one cost worth
        // naming on a run that is otherwise as fast as the model says
        assertEquals("slow-attention-kernel", a.top().id(), a.diagnoses().toString());
        assertTrue(a.diagnoses().stream().noneMatch(d -> d.severity() == Severity.HIGH), a.diagnoses().toString());
        assertTrue(a.diagnoses().stream().anyMatch(d -> d.id().equals("healthy")), a.diagnoses().toString());
        assertEquals("flash-attention-2", a.recommendations().get(0).id());
    }

    @Test
    void twoPcieNodesAreIntraNodeBoundToo() {
        RunSpec s = spec("examples/internlm-7b-pcie-2nodes.yaml");
        Advice a = TrainAdvisor.advise(s);
        assertEquals("intra-node-bandwidth", a.top().id());
        // the 16-rank rings run at min(shared memory across sockets 10 GB/s, 2 x 100 Gbit/s x 0.96 / 8 = 24 GB/s): the
        // intra-node side binds every data-parallel collective
        assertTrue(a.expected().collectives().stream().filter(c -> c.group().dataParallel())
                .allMatch(c -> c.link().scope() == LinkScope.INTRA_NODE));
        assertTrue(a.expected().collectives().stream().anyMatch(c -> c.op() == CollectiveOp.ZERO_GRAD_ALL_REDUCE));
        double predicted = internEvoTflops(s, a.expected().tokensPerGpuPerS());
        assertEquals(93.48, predicted, 0.10 * 93.48, "two PCIe nodes within 10% of 93.48: " + predicted);
        assertTrue(a.recommendations().size() >= 3, a.recommendations().toString());
    }
}
