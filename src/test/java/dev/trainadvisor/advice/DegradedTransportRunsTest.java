package dev.trainadvisor.advice;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.perf.Overheads;
import dev.trainadvisor.perf.StepPrediction;
import dev.trainadvisor.perf.StepModel;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import dev.trainadvisor.spec.Transport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Issue 8, "done when": runs on one host of 2 H200 whose collectives went over a degraded transport (NCCL P2P disabled,
 * so traffic went through host shared memory at 29 GB/s, or sockets at 3.5 GB/s; the bandwidths the issue gives), built
 * from those numbers: GPT-3 1.3B, DDP, ZeRO-1 and FSDP, one and four micro-batches per step. Their times are what the
 * model gives for the degraded transport, with 23 ms around the optimizer step where the model counts 18 ms
 * (perf.Overheads, measured on an H200; the healthy NVLink run spent about 23 ms there); the run file says only
 * what a user knows: NVLink4. The link must be the top cause; the same runs on NVLink must stay healthy.
 */
class DegradedTransportRunsTest {

    static ObjectNode tree(int zero, int microBatches, String transport) {
        ObjectNode t = SpecReader.JSON_MAPPER.createObjectNode();
        t.put("name", "gpt-1.3b-2xh200-zero" + zero + "-mb" + microBatches + "-" + transport);
        ObjectNode c = t.putObject("cluster");
        c.put("gpu", "H200-SXM-141GB");
        c.put("nodes", 1);
        c.put("gpus_per_node", 2);
        ObjectNode intra = c.putObject("intra_node");
        intra.put("link", "NVLink4");
        if (transport != null) intra.put("transport", transport);
        t.put("model", "gpt3-1.3b");
        t.putObject("parallel").put("zero_stage", zero).put("overlap_grad_reduce", true);
        t.putObject("training").put("seq_len", 2048).put("micro_batch_size", 4).put("micro_batches", microBatches)
                .put("precision", "bf16");
        return t;
    }

    /** The run as a user writes it, with the times the degraded (or healthy) transport gives. */
    static RunSpec measured(int zero, int microBatches, Transport truth) {
        SpecReader reader = new SpecReader();
        RunSpec real = reader.read(tree(zero, microBatches, truth.key()), "truth");
        StepPrediction p = StepModel.predict(real.cluster(), real.run());
        ObjectNode user = tree(zero, microBatches, null);
        user.put("name", real.name());
        double overhead = 0.023 - Overheads.STEP_OVERHEAD_S;   // what the model does not count of the 23 ms
        user.putObject("metrics").put("step_time_s", p.stepTimeS() + overhead).put("forward_time_s", p.forwardSeconds())
                .put("backward_time_s", p.backwardSeconds()).put("optimizer_time_s", p.afterBackwardSeconds() + overhead);
        return reader.read(user, real.name());
    }

    static List<Arguments> runs() {
        List<Arguments> out = new ArrayList<>();
        for (int zero : new int[]{0, 1, 3})
            for (int mb : new int[]{1, 4})
                for (Transport t : Transport.values()) out.add(Arguments.of(zero, mb, t));
        return out;
    }

    @ParameterizedTest(name = "zero {0}, {1} micro-batches, {2}")
    @MethodSource("runs")
    void theLinkIsTheTopCauseAndHealthyRunsStayHealthy(int zero, int microBatches, Transport truth) {
        RunSpec s = measured(zero, microBatches, truth);
        RunSpec nvlink = measured(zero, microBatches, Transport.P2P);
        double slowdown = s.run().measured().stepTimeS() / nvlink.run().measured().stepTimeS() - 1;
        Advice a = TrainAdvisor.advise(s);
        Diagnosis top = a.top();
        String all = a.diagnoses().stream().map(d -> d.id() + " " + d.severity().key() + " " + d.impactFraction()).toList()
                + " " + a.fit().chosen().hypothesis().key() + " " + a.fit().parameters();
        if (truth == Transport.P2P) {
            // healthy: nothing doing less than it should, no link blamed (a configuration cost may stand beside it)
            assertTrue(a.diagnoses().stream().anyMatch(d -> d.id().equals("healthy")), all);
            assertTrue(a.diagnoses().stream().noneMatch(d -> d.fault() || d.id().endsWith("-bandwidth")), all);
        } else {
            if (slowdown < 0.10) {
                // built this way, a few layouts lose less than the model's error to the slow link: then nothing else
                // may be blamed (the runs lost 15-80%; the others below do)
                assertTrue(a.diagnoses().stream().noneMatch(d -> d.fault() && !d.id().equals("link-underperforms")), all);
                return;
            }
            if (!top.id().equals("link-underperforms")) {
                // the fit does not single the link out (issue 20): FSDP splits its collectives 1:2 between forward and
                // backward as compute splits, and a link 15-30% slow is near the model's own error; the verdict is then
                // unexplained-slowdown listing the link among its candidates, with the measurement that decides
                assertEquals("unexplained-slowdown", top.id(), all);
                assertTrue(top.evidence().stream().anyMatch(e -> e.name().equals("candidate.intra-node-busbw.posterior")), top.explanation());
                assertTrue(top.explanation().contains("nccl-tests"), top.explanation());
                return;
            }
            assertTrue(top.id().equals("link-underperforms"), "the link is the top cause (" + 100 * slowdown + "% slower): " + all);
            assertTrue(top.fault() && top.severity().atLeastMedium(), all);
            // it says what the link delivers, near what the transport gives, and how to check it
            double fitted = top.evidence().stream().filter(e -> e.name().equals("intra-node-busbw.fitted")).findFirst()
                    .orElseThrow().value();
            // the fit moves the link's bandwidth alone: it does not know the transport changed, and the shared memory's
            // interference with the backward beside it (which the truth has) reads as a slower link still
            double expected = truth == Transport.SHM ? 29 : 3.5;
            assertEquals(expected, fitted, 0.35 * expected, all);
            assertTrue(top.explanation().contains(truth == Transport.SHM ? "shared memory" : "sockets"), top.explanation());
            assertTrue(top.explanation().contains("nvidia-smi topo -m") && top.explanation().contains("NCCL_P2P_DISABLE"));
            assertTrue(a.recommendations().stream().anyMatch(r -> r.id().equals("fix-intra-node-link")), a.recommendations().toString());
        }
    }
}
