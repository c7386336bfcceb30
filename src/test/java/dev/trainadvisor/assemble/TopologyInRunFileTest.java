package dev.trainadvisor.assemble;

import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.RunSpec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Top-level topology: and nccl_tests: in a run file. */
class TopologyInRunFileTest {
    static final Path SAMPLES = Path.of("../shared/samples/logs");

    Path write(Path dir, String cluster) throws Exception {
        assumeTrue(Files.exists(SAMPLES.resolve("nvidia-smi-topo-1.log")));
        Files.copy(SAMPLES.resolve("nvidia-smi-topo-1.log"), dir.resolve("topo.txt"));
        Files.copy(SAMPLES.resolve("nccl-tests-2.log"), dir.resolve("allreduce.txt"));
        Path run = dir.resolve("run.yaml");
        Files.writeString(run, "cluster: " + cluster + "\nmodel: internlm-7b\n"
                + "training: {seq_len: 2048, micro_batch_size: 2, micro_batches: 4}\n"
                + "topology: topo.txt\nnccl_tests: allreduce.txt\n");
        return run;
    }

    @Test
    void anNvlinkTopologyAgreesWithAnNvlinkClusterAndTheNcclTestsMeasureTheLink(@TempDir Path dir) throws Exception {
        RunSpec s = RunFiles.read(write(dir, "dgx-a100-80gb"));
        // nvidia-smi-topo-1.log: 8 GPUs, NV18 between every pair; nccl-tests-2.log: 25.95 GB/s at 1 GiB
        assertEquals(8, s.cluster().gpusPerNode());
        assertEquals(25.95, s.cluster().intraNode().busbwGbps());
        assertTrue(s.cluster().intraNode().busbwMeasured());
    }

    @Test
    void aPcieClusterContradictsAnNvlinkTopology(@TempDir Path dir) throws Exception {
        Path run = write(dir, "a100-80gb-pcie-8x");   // outside assertThrows: a missing sample skips, not fails
        SpecException e = assertThrows(SpecException.class, () -> RunFiles.read(run));
        assertTrue(e.getMessage().contains("cluster.intra_node.link") && e.getMessage().contains("NV18")
                && e.getMessage().contains("PCIe4"), e.getMessage());
    }
}
