package dev.trainadvisor.perf;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.trainadvisor.spec.Catalog;
import dev.trainadvisor.spec.LinkKind;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import dev.trainadvisor.spec.Transport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A collective over peer-to-peer slows the compute it hides behind by what its channels' SMs cost a GEMM beside them,
 * as measured (knowledge-base/transports.json, interference_by_link_kind): the catalogue's numbers are worked out again
 * here from the measurements' rows, and the overlap's arithmetic by hand on an FSDP run whose collectives all fit their
 * windows.
 */
class PeerToPeerInterferenceTest {

    static JsonNode measurement(String name) throws IOException {
        // Python's json writes a rate a spinning kernel does not have as NaN (h200-shm-interference.json)
        return JsonMapper.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build()
                .readTree(Path.of("knowledge-base/measurements", name).toFile());
    }

    @Test
    void theCatalogueTakesNvlinksInterferenceFromTheH100MeasurementAndPciesFromTwoSpinningCtas() throws IOException {
        // NVLink: the mean over the four GEMM shapes of the slowdown beside 16 and beside 24 CTAs copying unpaced
        // (NCCL's ring over an NVSwitch node: 16 channels on H800, 24 on HGX A100), the two means averaged
        double[] sum = new double[33];
        int[] n = new int[33];
        for (JsonNode r : measurement("h100-nvlink-interference.json").get("rows")) {
            if (!r.path("part").asText().equals("gemm") || !r.path("mode").asText().equals("copy")) continue;
            int c = r.get("ctas").asInt();
            sum[c] += r.get("slowdown").asDouble();
            n[c]++;
        }
        assertEquals(4, n[16]);
        assertEquals(4, n[24]);
        double nvlink = (sum[16] / n[16] + sum[24] / n[24]) / 2;
        Catalog.Transports t = Catalog.builtIn().transports();
        assertEquals(nvlink, t.interference(Transport.P2P, LinkKind.NVLINK), 0.0025);
        // PCIe: NCCL's two channels, two CTAs spinning beside the two large GEMMs of the H200 measurement
        double pcie = 0;
        int k = 0;
        for (JsonNode r : measurement("h200-shm-interference.json").get("rows")) {
            if (r.path("mode").asText().equals("spin") && r.get("ctas").asInt() == 2 && r.get("m").asInt() >= 8192) {
                pcie += r.get("slowdown").asDouble();
                k++;
            }
        }
        assertEquals(2, k);
        assertEquals(pcie / k, t.interference(Transport.P2P, LinkKind.PCIE), 0.0025);
        // other transports keep their own, whatever the link: shared memory's measured 0.31
        assertEquals(0.31, t.interference(Transport.SHM, LinkKind.NVLINK), 1e-12);
        assertEquals(0.31, t.interference(Transport.SHM, LinkKind.PCIE), 1e-12);
    }

    static RunSpec run(Path dir, String intraNode, int gpus, int microBatchSize) throws IOException {
        // a 13B-shaped model (OLMo 2 13B's layers) under FSDP, 16 micro-batches of sequences of 4096 tokens: gathers
        // and reductions every micro-batch, inside their windows
        Path f = dir.resolve("fsdp.yaml");
        Files.writeString(f, String.join("\n",
                "name: fsdp-interference",
                "cluster: {gpu: H100-SXM5-80GB, nodes: 1, gpus_per_node: " + gpus + ", intra_node: " + intraNode + "}",
                "model: {name: m13b, layers: 40, hidden: 5120, heads: 40, ffn_hidden: 13824, vocab: 100352, gated_mlp: true,",
                "        tied_embeddings: false, qkv_bias: false, norm: rmsnorm, position_embedding: rope}",
                "parallel: {dp: " + gpus + ", zero_stage: 3, overlap_grad_reduce: true, overlap_param_gather: true}",
                "training: {seq_len: 4096, micro_batch_size: " + microBatchSize + ", micro_batches: 16, precision: bf16, framework: pytorch,",
                "           attention_kernel: fa2}", ""));
        return new SpecReader().read(f);
    }

    @Test
    void aHiddenCollectiveLeavesExposedTheShareItsInterferenceSlowsTheComputeBesideIt(@TempDir Path dir) throws IOException {
        // eight GPUs over NVLink at a micro-batch of one; two under one PCIe switch at eight (PCIe's gathers take
        // longer than one sequence's forward)
        for (String intra : new String[]{"{link: NVLink4}", "{link: PCIe5, gpu_path: PIX}"}) {
            boolean nvlink = intra.contains("NVLink");
            RunSpec s = run(dir, intra, nvlink ? 8 : 2, nvlink ? 1 : 8);
            assertEquals(Transport.P2P, s.cluster().intraNode().host().transport(), intra);
            double i = nvlink ? 0.285 : 0.05;
            assertEquals(i, s.cluster().intraNode().interference(), 1e-12, intra);
            StepPrediction p = StepModel.predict(s.cluster(), s.run());
            double forwardWindow = p.compute().forwardSeconds() * 16, backwardWindow = p.compute().backwardSeconds() * 16;
            double forward = 0, backward = 0;
            for (Collective c : p.collectives()) {
                if (c.overlapsWith() == OverlapWindow.FORWARD) forward += c.seconds();
                if (c.overlapsWith() == OverlapWindow.BACKWARD) backward += c.seconds();
            }
            assertTrue(forward > 0 && backward > 0, intra);
            // the run's collectives fit inside 0.8 of their windows (else a share would be exposed regardless)
            assertTrue(forward < 0.8 * forwardWindow && backward < 0.8 * backwardWindow, intra);
            double exposed = 0;
            for (Collective c : p.collectives()) {
                if (c.overlapsWith() != OverlapWindow.FORWARD && c.overlapsWith() != OverlapWindow.BACKWARD) continue;
                // all of it hidden, behind compute that runs 1 / (1 + i) as fast while it runs: the window lasts
                // seconds x i / (1 + i) longer
                assertEquals(c.seconds() * i / (1 + i), c.exposedSeconds(), 1e-9 * c.seconds(), c.name() + " " + intra);
                exposed += c.exposedSeconds();
            }
            // together: the windows' collectives x i / (1 + i), added to the step
            assertEquals((forward + backward) * i / (1 + i), exposed, 1e-9 * exposed, intra);
        }
    }
}
