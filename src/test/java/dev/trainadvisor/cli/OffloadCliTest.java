package dev.trainadvisor.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/** A run file asking for an offload its layout cannot run is bad input: exit 2, the field named, no stack trace. */
class OffloadCliTest {

    @TempDir
    Path dir;

    @Test
    void aBadOffloadExitsTwoNamingTheField() throws IOException {
        Path f = dir.resolve("bad.yaml");
        Files.writeString(f, """
                cluster: {preset: dgx-a100-80gb, nodes: 1}
                model: llama-2-7b
                parallel: {zero_stage: 1}
                training: {seq_len: 4096, micro_batch_size: 1, offload: {optimizer: cpu, parameters: cpu}}
                """);
        CliTest.Result r = CliTest.run("advise", f.toString());
        assertEquals(Main.BAD_INPUT, r.code());
        assertTrue(r.err().contains(f + ": field 'training.offload.parameters'"), r.err());
        assertTrue(r.err().contains("ZeRO 3"), r.err());
        assertFalse(r.err().contains("\tat "), r.err());
    }
}
