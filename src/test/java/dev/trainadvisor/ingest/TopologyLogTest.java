package dev.trainadvisor.ingest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Each {@code nvidia-smi topo -m} sample of shared/samples/logs, with the values read from it by hand,
 * variants the samples do not cover (space-separated, no header, partial NVLink, ANSI codes), and garbage.
 */
class TopologyLogTest {
    static final Path SAMPLES = Path.of("../shared/samples/logs");
    static final TopologyLog PARSER = new TopologyLog();

    static String sample(String name) throws Exception {
        Path p = SAMPLES.resolve(name);
        assumeTrue(Files.exists(p), "shared samples not present");
        return Files.readString(p);
    }

    @Test
    void h100Nv18WithTenNicsCutShort() throws Exception {
        String text = sample("nvidia-smi-topo-1.log");
        // line 2, the header: GPU0 .. GPU7, NIC0 .. NIC9, CPU Affinity, NUMA Affinity, GPU NUMA ID
        // lines 3-10, GPU0 .. GPU7: every off-diagonal GPU cell is NV18; GPUn-NICn is PIX, other NICs SYS
        // lines 11-13: NIC0, NIC1, NIC2 only (the source cut NIC3..NIC9 and the legend)
        assertTrue(PARSER.confidence(text) >= 0.9, "header and matrix rows");
        ParsedLog p = PARSER.parse(text);
        assertEquals("nvidia-smi-topo", p.format());
        assertEquals(8, p.extra().get("gpus"));
        assertEquals("NVLink", p.extra().get("intra_node"));
        assertEquals(18, p.extra().get("nvlink_links"));
        assertEquals(10, p.extra().get("nics"));
        assertFalse(p.extra().containsKey("pcie_paths"), "no GPU pair is joined by PCIe only");
        assertEquals(Map.of("cluster.gpus_per_node", 8, "cluster.intra_node.gpu_path", "NV"), p.config());
        assertEquals(0, p.steps());
        assertTrue(p.metrics().isEmpty());
        assertTrue(p.warnings().stream().anyMatch(w -> w.contains("cut short") && w.contains("3 of 10 NIC rows")), p.warnings().toString());
    }

    @Test
    void fourV100Nv2WithOldNicNameAndLegend() throws Exception {
        String text = sample("nvidia-smi-topo-2.log");
        // line 2, the header: GPU0 GPU1 GPU2 GPU3 mlx5_0 CPU Affinity NUMA Affinity (no GPU NUMA ID)
        // lines 3-6: GPU pairs all NV2, GPU-mlx5_0 NODE; line 7: the mlx5_0 row; then the legend
        assertTrue(PARSER.confidence(text) >= 0.9);
        ParsedLog p = PARSER.parse(text);
        assertEquals(4, p.extra().get("gpus"));
        assertEquals("NVLink", p.extra().get("intra_node"));
        assertEquals(2, p.extra().get("nvlink_links"));
        assertEquals(1, p.extra().get("nics"), "mlx5_0");
        assertFalse(p.extra().containsKey("pcie_paths"));
        assertEquals(4, p.config().get("cluster.gpus_per_node"));
        assertEquals(java.util.List.of(), p.warnings(), "the matrix is complete");
    }

    @Test
    void twoRtx5090OverPhb() throws Exception {
        String text = sample("nvidia-smi-topo-3.log");
        // line 2, the header: GPU0 GPU1 CPU Affinity NUMA Affinity GPU NUMA ID
        // lines 3-4: GPU0-GPU1 is PHB both ways; no NIC rows or columns; then the legend
        assertTrue(PARSER.confidence(text) >= 0.9);
        ParsedLog p = PARSER.parse(text);
        assertEquals(2, p.extra().get("gpus"));
        assertEquals("PCIe", p.extra().get("intra_node"));
        assertEquals("PHB", p.extra().get("pcie_paths"));
        assertEquals(0, p.extra().get("nics"));
        assertFalse(p.extra().containsKey("nvlink_links"));
        assertEquals(2, p.config().get("cluster.gpus_per_node"));
        assertTrue(p.warnings().isEmpty(), p.warnings().toString());
    }

    @Test
    void spaceSeparatedPasteReadsLikeTabs() throws Exception {
        String spaced = sample("nvidia-smi-topo-2.log").replace("\t", "    ");
        assertTrue(PARSER.confidence(spaced) >= 0.9);
        ParsedLog p = PARSER.parse(spaced);
        assertEquals(4, p.extra().get("gpus"));
        assertEquals("NVLink", p.extra().get("intra_node"));
        assertEquals(2, p.extra().get("nvlink_links"));
        assertEquals(1, p.extra().get("nics"), "'CPU Affinity' split in two words is not a device");

        ParsedLog h100 = PARSER.parse(sample("nvidia-smi-topo-1.log").replace("\t", "  "));
        assertEquals(8, h100.extra().get("gpus"));
        assertEquals(10, h100.extra().get("nics"), "'GPU NUMA ID' split in three words is not a device");
    }

    static final String PCIE_2017 = String.join("\n",
            "\tGPU0\tGPU1\tGPU2\tGPU3\tmlx5_0\tCPU Affinity",
            "GPU0\t X \tPIX\tPHB\tSYS\tPIX\t0-9",
            "GPU1\tPIX\t X \tPHB\tSYS\tPIX\t0-9",
            "GPU2\tPHB\tPHB\t X \tSYS\tPHB\t0-9",
            "GPU3\tSYS\tSYS\tSYS\t X \tSYS\t10-19",
            "mlx5_0\tPIX\tPIX\tPHB\tSYS\t X \t",
            "");

    @Test
    void pcieOnlyReportsTheWorstPath() {
        ParsedLog p = PARSER.parse(PCIE_2017);
        assertEquals("PCIe", p.extra().get("intra_node"));
        assertEquals("SYS", p.extra().get("pcie_paths"), "PIX < PHB < SYS");
        assertEquals(4, p.extra().get("gpus"));
        assertEquals(1, p.extra().get("nics"));

        ParsedLog soc = PARSER.parse(PCIE_2017.replace("SYS", "SOC"));
        assertEquals("SYS", soc.extra().get("pcie_paths"), "SOC is the old name of SYS");

        ParsedLog node = PARSER.parse(PCIE_2017.replace("SYS", "NODE").replace("PHB", "PXB"));
        assertEquals("NODE", node.extra().get("pcie_paths"));
    }

    @Test
    void nvlinkBridgedPairsAreMixed() {
        String text = String.join("\n",
                "\tGPU0\tGPU1\tGPU2\tGPU3\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID",
                "GPU0\t X \tNV4\tSYS\tSYS\tPXB\t0-31\t0\t\tN/A",
                "GPU1\tNV4\t X \tSYS\tSYS\tPXB\t0-31\t0\t\tN/A",
                "GPU2\tSYS\tSYS\t X \tNV6\tSYS\t32-63\t1\t\tN/A",
                "GPU3\tSYS\tSYS\tNV6\t X \tSYS\t32-63\t1\t\tN/A",
                "NIC0\tPXB\tPXB\tSYS\tSYS\t X ",
                "",
                "NIC Legend:",
                "",
                "  NIC0: mlx5_0");
        ParsedLog p = PARSER.parse(text);
        assertEquals("mixed", p.extra().get("intra_node"));
        assertEquals("SYS", p.extra().get("pcie_paths"), "the pairs without NVLink cross the sockets");
        assertFalse(p.extra().containsKey("nvlink_links"), "reported only when every pair is NVLink");
        assertEquals(1, p.extra().get("nics"));


        String allNv = String.join("\n",
                "\tGPU0\tGPU1\tGPU2\tGPU3",
                "GPU0\t X \tNV4\tNV4\tNV6",
                "GPU1\tNV4\t X \tNV6\tNV4",
                "GPU2\tNV4\tNV6\t X \tNV6",
                "GPU3\tNV6\tNV4\tNV6\t X ");
        ParsedLog all = PARSER.parse(allNv);
        assertEquals("NVLink", all.extra().get("intra_node"));
        assertEquals(4, all.extra().get("nvlink_links"), "the fewest links of any pair (NV4 < NV6)");
        assertEquals(0, all.extra().get("nics"));
    }

    @Test
    void ansiUnderlineAndLauncherPrefixesAreStripped() throws Exception {
        StringBuilder s = new StringBuilder();
        for (String line : sample("nvidia-smi-topo-3.log").split("\n"))
            s.append("0: ").append(line.startsWith("\tGPU0") ? "\u001B[4m" + line + "\u001B[0m" : line).append("\r\n");
        ParsedLog p = PARSER.parse(s.toString());
        assertTrue(PARSER.confidence(s.toString()) >= 0.9);
        assertEquals(2, p.extra().get("gpus"));
        assertEquals("PHB", p.extra().get("pcie_paths"));
    }

    @Test
    void rowsWithoutHeaderAreReadWithLowerConfidence() throws Exception {
        String text = sample("nvidia-smi-topo-2.log");
        String headless = text.replace("\tGPU0\tGPU1\tGPU2\tGPU3\tmlx5_0\tCPU Affinity\tNUMA Affinity\n", "");
        assertNotEquals(text, headless);
        double c = PARSER.confidence(headless);
        assertTrue(c >= 0.5 && c < 0.9, "rows alone: recognizable but not high: " + c);
        ParsedLog p = PARSER.parse(headless);
        assertEquals(4, p.extra().get("gpus"));
        assertEquals("NVLink", p.extra().get("intra_node"));
        assertEquals(1, p.extra().get("nics"));
        assertTrue(p.warnings().stream().anyMatch(w -> w.contains("no header")), p.warnings().toString());
    }

    @Test
    void headerAloneIsNotEnough() {
        String text = "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\n";
        assertTrue(PARSER.confidence(text) < 0.5);
        ParsedLog p = PARSER.parse(text);
        assertEquals(2, p.extra().get("gpus"));
        assertFalse(p.extra().containsKey("intra_node"), "no rows, no link");
    }

    @Test
    void rowCutMidwayJudgesFromTheCellsPrinted() {
        String text = String.join("\n",
                "\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity",
                "GPU0\t X \tNV12\tNV12\tNV12\t0-63",
                "GPU1\tNV12\t X \tNV12\tNV12\t0-63",
                "GPU2\tNV12\tNV12\t X ");   // cut here: no GPU2-GPU3 cell, no GPU3 row
        ParsedLog p = PARSER.parse(text);
        assertEquals(4, p.extra().get("gpus"));
        assertEquals("NVLink", p.extra().get("intra_node"), "GPU2-GPU3 is unknown; the five other pairs are NV12");
        assertEquals(12, p.extra().get("nvlink_links"));
        assertTrue(p.warnings().stream().anyMatch(w -> w.contains("1 of 6 GPU pairs")), p.warnings().toString());
        assertTrue(p.warnings().stream().anyMatch(w -> w.contains("3 of 4 GPU rows")), p.warnings().toString());
    }

    @Test
    void oneGpuHasNoIntraNodeLink() {
        ParsedLog p = PARSER.parse("\tGPU0\tCPU Affinity\tNUMA Affinity\nGPU0\t X \t0-15\t0\n");
        assertEquals(1, p.extra().get("gpus"));
        assertFalse(p.extra().containsKey("intra_node"));
        assertEquals(1, p.config().get("cluster.gpus_per_node"));
    }

    @Test
    void secondMatrixIsIgnored() throws Exception {
        String one = sample("nvidia-smi-topo-3.log");
        ParsedLog p = PARSER.parse(one + "\n" + sample("nvidia-smi-topo-1.log"));
        assertEquals(2, p.extra().get("gpus"), "the first matrix");
        assertTrue(p.warnings().stream().anyMatch(w -> w.contains("second")), p.warnings().toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "\n\n\n", "GPU0", "GPU0\tX", "Legend:\n  X    = Self", "\tGPU0\tGPU1",
            "NV#  = Connection traversing a bonded set of # NVLinks", "X X X\nX X X", "GPU0 NV18\nGPU1 NV99999999999999 X",
            "Epoch1 X loss\nEpoch2 X loss\n", "\u0000\u0001\u0002", "GPU0\t\t\t\n\t\t", "\tGPU0\tGPU1\nGPU0\nGPU1\t"})
    void garbageNeverThrowsAndIsNotHighConfidence(String text) {
        double c = assertDoesNotThrow(() -> PARSER.confidence(text));
        ParsedLog p = assertDoesNotThrow(() -> PARSER.parse(text));
        assertEquals("nvidia-smi-topo", p.format());
        assertTrue(c < 0.9, "no header with rows under it: " + c);
    }

    @Test
    void randomBytesNeverThrow() {
        Random r = new Random(7);
        String[] pieces = {"GPU0", "GPU1", "NIC0", "mlx5_0", " X ", "NV18", "PIX", "SYS", "\t", " ", "\n", "CPU Affinity", "\r",
                "\u001B[4m", "0:", "NV", "NV-1", "GPU", ""};
        for (int i = 0; i < 2000; i++) {
            StringBuilder s = new StringBuilder();
            int n = r.nextInt(60);
            for (int k = 0; k < n; k++) {
                if (r.nextInt(5) == 0) s.append((char) r.nextInt(0x3000));
                else s.append(pieces[r.nextInt(pieces.length)]);
            }
            String text = s.toString();
            assertDoesNotThrow(() -> PARSER.confidence(text), text);
            ParsedLog p = assertDoesNotThrow(() -> PARSER.parse(text), text);
            assertNotNull(p.extra());
        }
        assertDoesNotThrow(() -> PARSER.confidence(null));
        assertDoesNotThrow(() -> PARSER.parse((String) null));
    }

    @Test
    void otherSamplesAreNotTopology() throws Exception {
        assumeTrue(Files.isDirectory(SAMPLES), "shared samples not present");
        try (Stream<Path> files = Files.list(SAMPLES)) {
            for (Path f : files.filter(f -> !f.getFileName().toString().startsWith("nvidia-smi-topo")).sorted().toList()) {
                String text = Files.readString(f);
                assertTrue(PARSER.confidence(text) < 0.5, () -> f.getFileName() + " is not a topology");
            }
        }
    }
}
