package dev.trainadvisor.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainadvisor.perf.Efficiency;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Consumer and workstation GPUs (issue 21, item 4): measured matmul ceilings with their sources, the RTX 6000 Ada, and
 * a GeForce node's collectives through host memory (no peer-to-peer over PCIe).
 */
class WorkstationGpusTest {

    static Gpu gpu(String key) {
        return Catalog.builtIn().gpu(key, "t", "cluster.gpu");
    }

    /**
     * The published mamf-finder results (mag-/gpu_benchmark's README at 93322b7, the fastest of 100 bf16 torch.mm after
     * 50 warm-up): RTX 4090 178.8, RTX 3090 78.0, L40S 252.0, RTX 6000 Ada 278.5 TFLOPS, each with its source.
     */
    @Test
    void eachCardCarriesItsMeasuredCeilingAndWhereItWasPublished() throws IOException {
        Map<String, Double> published = Map.of("RTX-4090", 178.8, "RTX-3090", 78.0, "L40S", 252.0, "RTX-6000-Ada", 278.5);
        JsonNode gpus = new ObjectMapper().readTree(Path.of("knowledge-base/gpus.json").toFile()).get("gpus");
        int seen = 0;
        for (JsonNode g : gpus) {
            Double mamf = published.get(g.get("key").asText());
            if (mamf == null) continue;
            seen++;
            assertEquals(mamf, gpu(g.get("key").asText()).mamfTflopsBf16(), 1e-9, g.get("key").asText());
            String src = g.get("mamf_source").asText();
            assertTrue(src.contains("https://github.com/mag-/gpu_benchmark/blob/93322b7") && src.contains(String.valueOf(mamf)), src);
        }
        assertEquals(4, seen);
    }

    /**
     * A workstation card's GEMMs run at its MAMF over its peak times the in-step share; a GeForce card's published
     * burst figure lies above its datasheet peak (the board boosts past its rated clock) and a step runs at it: the
     * fraction of the datasheet's peak is above one.
     */
    @Test
    void theGemmRateIsTheMeasuredCeilingEvenAboveTheDatasheetPeak() {
        double inStep = Efficiency.TRAINING_FRACTION_OF_BENCHMARK;
        assertEquals(252.0 / 362 * inStep, Efficiency.gemmFraction(gpu("L40S")), 1e-12);
        assertEquals(278.5 / 364.2 * inStep, Efficiency.gemmFraction(gpu("RTX 6000 Ada")), 1e-12);
        assertTrue(178.8 > gpu("RTX-4090").peakTflops(Precision.BF16) && 78.0 > gpu("RTX-3090").peakTflops(Precision.BF16));
        assertEquals(178.8 / 165.2 * inStep, Efficiency.gemmFraction(gpu("RTX-4090")), 1e-12);
        assertEquals(78.0 / 71 * inStep, Efficiency.gemmFraction(gpu("RTX-3090")), 1e-12);
    }

    /** 142 SMs x 2.505 GHz x 1024 dense bf16 FLOPs a clock (full rate, as the L40S; a GeForce AD102 does 512). */
    @Test
    void theRtx6000AdaPeakFollowsFromItsSmsAndClock() {
        Gpu g = gpu("NVIDIA RTX 6000 Ada Generation");
        assertEquals(142 * 2.505e9 * 1024 / 1e12, g.peakTflops(Precision.BF16), 0.05);
        assertEquals(128 * 2.52e9 * 512 / 1e12, gpu("RTX-4090").peakTflops(Precision.BF16), 0.05);
        assertEquals("Ada Lovelace", g.architecture());
        assertEquals(48, g.hbmGb(), 0);
        assertTrue(g.pcieP2p(), "no GeForce restriction");
        assertFalse(gpu("RTX-4090").pcieP2p());
        assertFalse(gpu("RTX-3090").pcieP2p());
    }

    static Cluster cluster(String gpu, String path) {
        String intra = path == null ? "{link: PCIe4}" : "{link: PCIe4, gpu_path: " + path + "}";
        String yaml = "cluster: {gpu: " + gpu + ", nodes: 1, gpus_per_node: 4, intra_node: " + intra + "}\n"
                + "model: llama-2-7b\ntraining: {seq_len: 2048, micro_batch_size: 1}\n";
        try {
            return new SpecReader().read(new ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree(yaml), "r.yaml").cluster();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Four GPUs under one PCIe switch (PXB): NCCL's own rule gives peer-to-peer, which a workstation card has; a GeForce
     * card has none, so NCCL stages through host memory: the Gen4 shared-memory bus bandwidth (transports.json), and the
     * reason named.
     */
    @Test
    void aGeForceNodeDefaultsToHostMemoryWhereAWorkstationNodeHasPeerToPeer() {
        Cluster pro = cluster("RTX-6000-Ada", "PXB");
        Cluster geforce = cluster("RTX-4090", "PXB");
        assertEquals(Transport.P2P, pro.intraNode().transport());
        assertEquals(Transport.SHM, geforce.intraNode().transport());
        assertEquals(16.6, geforce.intraNode().busbwGbps(), 1e-9);
        assertTrue(geforce.intraNode().host().origin().contains("RTX-4090 has no peer-to-peer over PCIe"), geforce.intraNode().host().origin());
        assertEquals(Transport.SHM, cluster("RTX-3090", null).intraNode().transport());
    }
}
