package dev.trainadvisor.assemble;

import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.RunSpec;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** log: in a run file: the log's steady medians and printed configuration join the run. */
class LogInRunFileTest {
    @TempDir
    Path dir;

    @BeforeEach
    void copySample() throws Exception {
        Path sample = Path.of("../shared/samples/logs/internlm-1.log");
        assumeTrue(Files.exists(sample));
        Files.copy(sample, dir.resolve("train.log"));
    }

    RunSpec read(String yaml) throws Exception {
        Path run = dir.resolve("run.yaml");
        Files.writeString(run, yaml);
        return RunFiles.read(run);
    }

    @Test
    void theLogsMediansAndMicroNumJoinTheRun() throws Exception {
        RunSpec s = read("""
                cluster: {preset: dgx-a100-80gb}
                model: internlm-7b
                training: {seq_len: 2048, micro_batch_size: 2}
                log: train.log
                """);
        // internlm-1.log, steps 1-5 after dropping warm-up step 0: tgs 4274.45, 4300.69, 4252.55, 4270.52, 4262.67
        // -> median 4270.52; fwd_bwd 3.67, 3.66, 3.70, 3.68, 3.69 -> 3.68; micro_num=4
        assertEquals(4270.52, s.run().measured().tokensPerGpuPerS(), 1e-9);
        assertEquals(3.68, s.run().measured().fwdBwdTimeS(), 1e-9);
        assertEquals("internevo", s.run().measured().tflopsConvention());
        assertEquals(4, s.run().training().microBatches(), "micro_num from the log");
    }

    @Test
    void aRunFileValueTheLogContradictsIsAnError() throws Exception {
        SpecException e = assertThrows(SpecException.class, () -> read("""
                cluster: {preset: dgx-a100-80gb}
                model: internlm-7b
                training: {seq_len: 2048, micro_batch_size: 2, micro_batches: 8}
                log: train.log
                """));
        assertTrue(e.getMessage().contains("training.micro_batches") && e.getMessage().contains("the run file says 8")
                && e.getMessage().contains("says 4"), e.getMessage());
    }

    @Test
    void aMissingLogIsBadInputNamingTheRunFileAndField() {
        SpecException e = assertThrows(SpecException.class, () -> read("""
                cluster: {preset: dgx-a100-80gb}
                model: internlm-7b
                training: {seq_len: 2048, micro_batch_size: 2}
                log: nowhere.log
                """));
        assertTrue(e.getMessage().contains("run.yaml") && e.getMessage().contains("'log'") && e.getMessage().contains("does not exist"),
                e.getMessage());
    }
}
