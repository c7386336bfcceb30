package dev.trainadvisor.assemble;

import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.RunSpec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** intra_node: {nccl_tests: FILE} stands in for the catalogue's bus bandwidth. */
class NcclTestsInRunFileTest {
    static final String RUN = """
            cluster: {preset: a100-80gb-pcie-8x, intra_node: {link: PCIe4, %s}}
            model: internlm-7b
            training: {seq_len: 2048, micro_batch_size: 2, micro_batches: 4}
            """;

    @Test
    void theBusbwAtTheLargestSizeBecomesTheLinksMeasuredBandwidth(@TempDir Path dir) throws Exception {
        Path sample = Path.of("../shared/samples/logs/nccl-tests-2.log");
        assumeTrue(Files.exists(sample));
        Files.copy(sample, dir.resolve("allreduce.log"));
        Path run = dir.resolve("run.yaml");
        Files.writeString(run, RUN.formatted("nccl_tests: allreduce.log"));
        RunSpec s = RunFiles.read(run);
        // nccl-tests-2.log: the 1 GiB all-reduce row reads 25.95 GB/s busbw
        assertEquals(25.95, s.cluster().intraNode().busbwGbps());
        assertTrue(s.cluster().intraNode().busbwMeasured());
    }

    @Test
    void aMissingOrEmptyOutputIsBadInput(@TempDir Path dir) throws Exception {
        Path run = dir.resolve("run.yaml");
        Files.writeString(run, RUN.formatted("nccl_tests: nowhere.log"));
        SpecException e = assertThrows(SpecException.class, () -> RunFiles.read(run));
        assertTrue(e.getMessage().contains("cluster.intra_node.nccl_tests") && e.getMessage().contains("does not exist"), e.getMessage());
        Files.writeString(dir.resolve("empty.log"), "# nThread 1 nGpus 8\n");
        Files.writeString(run, RUN.formatted("nccl_tests: empty.log"));
        e = assertThrows(SpecException.class, () -> RunFiles.read(run));
        assertTrue(e.getMessage().contains("at least one result row"), e.getMessage());
        Files.writeString(run, RUN.formatted("nccl_tests: empty.log, busbw_gbps: 10"));
        e = assertThrows(SpecException.class, () -> RunFiles.read(run));
        assertTrue(e.getMessage().contains("not both"), e.getMessage());
    }
}
