package dev.trainadvisor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** batch over a folder of run files and logs; advise --log. */
class BatchLogsTest {
    static final Path SAMPLES = Path.of("../shared/samples/logs");

    static CliTest.Result run(String... args) { return CliTest.run(args); }

    @Test
    void logsJoinRunFilesOfTheSameStemOrRunsYamlAndAnUndescribedLogIsReported(@TempDir Path dir) throws Exception {
        assumeTrue(Files.exists(SAMPLES.resolve("internlm-1.log")));
        Files.copy(SAMPLES.resolve("internlm-1.log"), dir.resolve("a.log"));
        Files.writeString(dir.resolve("a.yaml"), """
                cluster: {preset: dgx-a100-80gb}
                model: internlm-7b
                training: {seq_len: 2048, micro_batch_size: 2}
                """);
        Files.copy(SAMPLES.resolve("torchtitan-1.log"), dir.resolve("b.log"));
        Files.writeString(dir.resolve("runs.yaml"), """
                defaults: {cluster: {preset: dgx-h100}}
                b.log:
                  model: llama-3-8b
                  parallel: {zero_stage: 3}
                  training: {seq_len: 8192, micro_batch_size: 1, recompute: selective}
                """);
        Files.copy(SAMPLES.resolve("megatron-1.log"), dir.resolve("c.log"));
        CliTest.Result r = run("batch", dir.toString(), "--format", "json");
        assertEquals(Main.BAD_INPUT, r.code(), r.err());
        assertTrue(r.err().contains("c.log") && r.err().contains("runs.yaml"), r.err());
        JsonNode arr = new ObjectMapper().readTree(r.out());
        assertEquals(2, arr.size());
        // a.yaml took a.log: internlm-1's median tgs; b.log took its runs.yaml entry: torchtitan-1's median tps
        assertEquals(4270.52, arr.get(0).path("observed").path("tokens_per_gpu_per_s").asDouble(), 1e-6);
        assertEquals("b", arr.get(1).path("run").path("name").asText());
        assertEquals("H100-SXM5-80GB", arr.get(1).path("run").path("cluster").path("gpu").asText());
        assertFalse(r.err().contains("\r"), "no progress bar when not on a terminal");
    }

    @Test
    void adviseALogWithTheClusterAndModelOnTheCommandLine() throws Exception {
        assumeTrue(Files.exists(SAMPLES.resolve("internlm-1.log")));
        CliTest.Result r = run("advise", "--log", SAMPLES.resolve("internlm-1.log").toString(), "--cluster", "dgx-a100-80gb",
                "--model", "internlm-7b", "--seq-len", "2048", "--micro-batch-size", "2", "--zero-stage", "1");
        assertEquals(Main.OK, r.code(), r.err());
        JsonNode a = new ObjectMapper().readTree(r.out());
        assertEquals(4, a.path("run").path("training").path("micro_batches").asInt(), "micro_num from the log");
        assertEquals(4270.52, a.path("observed").path("tokens_per_gpu_per_s").asDouble(), 1e-6);
        CliTest.Result missing = run("advise", "--log", SAMPLES.resolve("internlm-1.log").toString());
        assertEquals(Main.BAD_INPUT, missing.code());
        assertTrue(missing.err().contains("--cluster"), missing.err());
        assertFalse(missing.err().contains("\tat "), missing.err());
    }

    @Test
    void theKernelsOfALogRunComeFromTheCommandLine() throws Exception {
        assumeTrue(Files.exists(SAMPLES.resolve("torchtitan-1.log")));
        String[] base = {"advise", "--log", SAMPLES.resolve("torchtitan-1.log").toString(), "--cluster", "dgx-h100",
                "--model", "llama-3-8b", "--zero-stage", "3", "--seq-len", "8192", "--micro-batch-size", "1"};
        String[] eager = java.util.Arrays.copyOf(base, base.length + 2);
        eager[base.length] = "--elementwise-kernels";
        eager[base.length + 1] = "eager";
        CliTest.Result r = run(eager);
        assertEquals(Main.OK, r.code(), r.err());
        JsonNode a = new ObjectMapper().readTree(r.out());
        assertEquals("eager", a.path("run").path("training").path("elementwise_kernels").asText());
        CliTest.Result fused = run(base);
        assertTrue(new ObjectMapper().readTree(fused.out()).path("run").path("training").path("elementwise_kernels").isMissingNode());
        assertTrue(a.path("prediction").path("step_time_s").asDouble()
                > new ObjectMapper().readTree(fused.out()).path("prediction").path("step_time_s").asDouble(), "eager is slower");

        String[] bad = java.util.Arrays.copyOf(base, base.length + 2);
        bad[base.length] = "--attention-kernel";
        bad[base.length + 1] = "xformers";
        CliTest.Result wrong = run(bad);
        assertEquals(Main.BAD_INPUT, wrong.code());
        assertTrue(wrong.err().contains("training.attention_kernel") && wrong.err().contains("xformers"), wrong.err());
        assertFalse(wrong.err().contains("\tat "), wrong.err());
    }
}
