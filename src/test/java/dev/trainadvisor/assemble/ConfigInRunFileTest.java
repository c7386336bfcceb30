package dev.trainadvisor.assemble;

import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.RunSpec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/** config: an InternEvo configs/*.py fills the model, layout and batch of a run file. */
class ConfigInRunFileTest {
    static final Path FIXTURE = Path.of("src/test/resources/internevo/7B_isp_sft.py");

    @Test
    void theConfigFillsTheRun(@TempDir Path dir) throws Exception {
        Files.copy(FIXTURE, dir.resolve("7B_isp_sft.py"));
        Path run = dir.resolve("run.yaml");
        Files.writeString(run, "cluster: {preset: dgx-a100-80gb}\nconfig: 7B_isp_sft.py\n");
        RunSpec s = RunFiles.read(run);
        // 7B_isp_sft.py: NUM_LAYER 32, HIDDEN_SIZE 4096, SEQ_LEN 2048, micro_bsz 2, micro_num 4,
        // tensor=dict(size=2, mode="isp") -> tp 2 with sequence parallelism; 8 GPUs / 2 -> dp 4
        assertEquals(32, s.run().model().layers());
        assertEquals(4096, s.run().model().hidden());
        assertEquals(2, s.run().parallel().tp());
        assertTrue(s.run().parallel().sequenceParallel());
        assertEquals(4, s.run().parallel().dp());
        assertEquals(2048, s.run().training().seqLen());
        assertEquals(4, s.run().training().microBatches());
    }

    @Test
    void aRunFileValueTheConfigContradictsIsAnError(@TempDir Path dir) throws Exception {
        Files.copy(FIXTURE, dir.resolve("c.py"));
        Path run = dir.resolve("run.yaml");
        Files.writeString(run, "cluster: {preset: dgx-a100-80gb}\nconfig: c.py\nparallel: {tp: 4}\n");
        SpecException e = assertThrows(SpecException.class, () -> RunFiles.read(run));
        assertTrue(e.getMessage().contains("parallel.tp") && e.getMessage().contains("says 4"), e.getMessage());
    }
}
