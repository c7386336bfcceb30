package dev.trainadvisor.ingest;

import org.junit.jupiter.api.Test;

import static dev.trainadvisor.ingest.Samples.metric;
import static org.junit.jupiter.api.Assertions.*;

/** torchtitan samples, values read by hand; old wps format, colours and per-rank duplicates. */
class TorchtitanLogTest {
    final TorchtitanLog parser = new TorchtitanLog();
    static final double GIB = 1.073741824;

    @Test
    void torchtitan1WithTflopsAndNonMetricLines() {
        ParsedLog p = Samples.parse(parser, "torchtitan-1.log");
        // steps 200, 210, ..., 250 (n=6): the log begins at step 200, past 10 logging intervals (10 x 10): an excerpt
        // of a run under way, no warm-up by iteration number. Pace = tps; step 200: 5856 against the median of the 5
        // after it (5593, 5868, 5869, 5864, 5862 -> 5864) is 0.14% off: settled, kept. All 6 steady.
        assertEquals(6, p.steps());
        assertEquals(6, p.steadySteps());
        assertEquals(0, p.history().warmupSteps());
        // tps sorted: 5593, 5856, 5862, 5864, 5868, 5869 -> (5862 + 5864) / 2 (thousands separators read)
        assertEquals(5863.0, metric(p, "tokens_per_gpu_per_s"));
        // tflops sorted: 323.92, 339.16, 339.48, 339.59, 339.82, 339.88 -> (339.48 + 339.59) / 2
        assertEquals(339.535, metric(p, "tflops_per_gpu"), 1e-9);
        assertEquals("torchtitan", p.tflopsConvention());
        // mfu sorted: 32.75%, 34.29%, 34.33%, 34.34%, 34.36%, 34.37% -> 34.335% -> 0.34335
        assertEquals(0.34335, metric(p, "mfu"), 1e-12);
        // memory: 49.66GiB(52.28%) -> 49.66 x 1.073741824 GB
        assertEquals(49.66 * GIB, metric(p, "peak_memory_gb"), 1e-9);
        assertEquals(250.0, metric(p, "steps"));
        assertFalse(p.metrics().containsKey("step_time_s"), "torchtitan prints no step time");
    }

    @Test
    void torchtitan2WithGradNorm() {
        ParsedLog p = Samples.parse(parser, "torchtitan-2.log");
        // steps 14..21 (n=8): begins at step 14, past 10 intervals of 1: no warm-up by number; step 14: 7282 against
        // the median of 15..19 (7334, 7313, 7282, 7322, 7309 -> 7313) is 0.4% off: kept. All 8 steady.
        assertEquals(8, p.steps());
        assertEquals(8, p.steadySteps());
        // tps sorted: 7272, 7282, 7282, 7304, 7309, 7313, 7322, 7334 -> (7304 + 7309) / 2
        assertEquals(7306.5, metric(p, "tokens_per_gpu_per_s"));
        // tflops: 0.52 seven times, 0.53 once -> 0.52
        assertEquals(0.52, metric(p, "tflops_per_gpu"), 1e-12);
        assertEquals(0.0017, metric(p, "mfu"), 1e-12, "mfu: 0.17%");
        assertEquals(9.46 * GIB, metric(p, "peak_memory_gb"), 1e-9);
        assertEquals(21.0, metric(p, "steps"));
    }

    // Lines built from the formats of docs/logs.md (torchtitan); numbers made up.

    @Test
    void oldWpsFormatColoursAndRankDuplicates() {
        String red = "\u001B[31m", green = "\u001B[32m", reset = "\u001B[39m";
        StringBuilder log = new StringBuilder();
        for (int step = 1; step <= 4; step++) {
            for (int rank = 0; rank < 2; rank++) {
                log.append("[titan] 2024-10-01 10:00:0").append(step).append(",000 - root - INFO - ")
                        .append(red).append("step: ").append(step).append("  ").append(green)
                        .append("loss:  7.1234  memory: 30.00GiB(40.00%)  wps: ").append(rank == 0 ? "10,050" : "10,090")
                        .append("  mfu: 40.00%").append(reset).append('\n');
            }
        }
        log.append("[titan] step: 5  loss:  7.0  memory: 31.00GiB(41.00%)  tps: 12,000  tflops: 1,234.56  mfu: N/A\n");
        ParsedLog p = parser.parse(log.toString());
        assertEquals(5, p.steps(), "rank 1's duplicates merged");
        assertEquals(10050.0, metric(p, "tokens_per_gpu_per_s"), "rank 0's values (printed first) kept");
        assertEquals(0.40, metric(p, "mfu"), 1e-12, "N/A is skipped");
        assertEquals(1234.56, metric(p, "tflops_per_gpu"), 1e-9, "only step 5 has tflops");
        assertEquals(31.0 * GIB, metric(p, "peak_memory_gb"), 1e-9);
    }

    /**
     * How the element-wise work ran, from torchtitan's start-up lines (TorchtitanLog's class comment gives the source
     * lines): the model built with fused_rmsnorm and not compiled is eager_fused_norm; compiled, whatever its norm, is
     * compiled; the loss function compiled alone, or no such line, says nothing. The Building line is train.py's
     * f"Building {model_name} {flavor} with {model_config}" with the dataclass's repr (fields trimmed).
     */
    @Test
    void theStartUpLinesSayHowTheElementwiseWorkRan() {
        String building = "[rank0]:[titan] 2024-12-19 10:00:00,000 - root - INFO - Building llama3 8B with ModelArgs(dim=4096,"
                + " n_layers=32, n_heads=32, n_kv_heads=8, vocab_size=128256, norm_eps=1e-05, rope_theta=500000,"
                + " max_seq_len=8192, depth_init=True, norm_type='fused_rmsnorm')\n";
        String compiled = "[rank0]:[titan] 2024-12-19 10:00:05,000 - root - INFO - Compiling each TransformerBlock with torch.compile\n";
        String loss = "[rank0]:[titan] 2025-06-17 10:00:05,000 - root - INFO - Compiling the loss function with torch.compile\n";
        String step = "[rank0]:[titan] 2024-12-19 10:01:00,000 - root - INFO - step: 10  loss:  7.1234  memory: 30.00GiB(40.00%)"
                + "  tps: 5,000  tflops: 300.00  mfu: 30.00%\n";
        assertEquals("eager_fused_norm", parser.parse(building + step).config().get("training.elementwise_kernels"));
        assertEquals("compiled", parser.parse(building + compiled + step).config().get("training.elementwise_kernels"));
        assertEquals("compiled", parser.parse("[titan] Compiling model with torch.compile\n" + step).config()
                .get("training.elementwise_kernels"), "torchtitan's line of 2024-04");
        assertNull(parser.parse(building.replace("fused_rmsnorm", "rmsnorm") + loss + step).config()
                .get("training.elementwise_kernels"));
    }

    /**
     * Float8 and MX training from torchtitan's start-up lines (TorchtitanLog's class comment gives the source lines):
     * torchao's Float8 of every era, tensor-wise or row-wise, scales each cast from the tensor itself (current); MX
     * is mxfp8, though its converter first prints Float8's line with its recipe's name.
     */
    @Test
    void theStartUpLinesSayFloat8AndItsRecipe() {
        String step = "[rank0]:[titan] 2025-06-17 10:01:00,000 - root - INFO - step: 10  loss:  7.1234  memory: 30.00GiB(40.00%)"
                + "  tps: 9,000  tflops: 500.00  mfu: N/A\n";
        String at = "[rank0]:[titan] 2025-06-17 10:00:05,000 - root - INFO - ";
        for (String line : new String[]{"Float8 training active", "Float8 tensorwise scaled training active",
                "Float8 training active with recipe rowwise", "Float8 training active with recipe tensorwise"}) {
            ParsedLog p = parser.parse(at + line + "\n" + step);
            assertEquals("fp8", p.config().get("training.precision"), line);
            assertEquals("current", p.config().get("training.fp8_recipe"), line);
        }
        for (String lines : new String[]{at + "Float8 training active with recipe mxfp8\n" + at + "Swapped to MXLinear layers\n",
                at + "Converted Linear layers to MXFP8Linear\n"}) {
            ParsedLog p = parser.parse(lines + step);
            assertEquals("fp8", p.config().get("training.precision"), lines);
            assertEquals("mxfp8", p.config().get("training.fp8_recipe"), lines);
        }
        assertNull(parser.parse(step).config().get("training.precision"), "a log without them says nothing of it");
    }

    /**
     * The line bench/multigpu_training_sweep.py prints (issue 24), from its dry run on one H200
     * (src/test/resources/logs/multigpu-sweep/README.md): torchtitan's step line and the start line with the
     * gradient-accumulation clause, "[rank0]:" from torchrun --tee. Its truth file times every step outside the log.
     */
    @Test
    void multiGpuSweepLogAgreesWithItsTruth() throws java.io.IOException {
        java.nio.file.Path dir = java.nio.file.Path.of("src/test/resources/logs/multigpu-sweep");
        String name = "pytorch-1xh200-tiny-llama-pp-p2p-b2x8";
        ParsedLog p = parser.parse(java.nio.file.Files.readString(dir.resolve(name + ".log")));
        assertEquals("torchtitan", p.format());
        assertEquals(10, p.steps());
        // "with local batch size 2, global batch size 16, gradient accumulation steps 8, sequence length 2048"
        assertEquals(2, p.config().get("training.micro_batch_size"));
        assertEquals(8, p.config().get("training.micro_batches"));
        assertEquals(2048, p.config().get("training.seq_len"));
        assertEquals(16, p.config().get("training.global_batch_size"));
        // step 1 (tps 35,667) is the warm-up; steps 2..10 printed tps 206,461 212,497 218,956 215,248 215,211
        // 231,103 245,077 256,378 229,157 -> sorted, the fifth: 218,956
        assertEquals(9, p.steadySteps());
        assertEquals(218956.0, metric(p, "tokens_per_gpu_per_s"));
        // tflops of steps 2..10: 10.09 10.38 10.70 10.52 10.52 11.29 11.98 12.53 11.20 -> 10.70; mfu 1.08%
        assertEquals(10.70, metric(p, "tflops_per_gpu"), 1e-12);
        assertEquals(0.0108, metric(p, "mfu"), 1e-12);
        assertEquals(1.04 * GIB, metric(p, "peak_memory_gb"), 1e-9, "memory:  1.04GiB at most");
        // The truth over the same steps: the median of the intervals from one step's end to the next (steps 2..10),
        // 2 x 8 x 2048 tokens each; the script's tps divides the same tokens by the time since its last line, which
        // leaves out only the synchronize and bookkeeping after the print
        com.fasterxml.jackson.databind.JsonNode truth = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(dir.resolve(name + ".truth.json").toFile());
        double[] ends = new double[truth.get("step_ends").size()];
        for (int i = 0; i < ends.length; i++) ends[i] = truth.get("step_ends").get(i).asDouble();
        assertEquals(10, ends.length);
        double[] iv = new double[ends.length - 1];
        for (int i = 1; i < ends.length; i++) iv[i - 1] = ends[i] - ends[i - 1];
        java.util.Arrays.sort(iv);
        double trueTokens = 2 * 8 * 2048 / iv[iv.length / 2];
        assertEquals(1.0, metric(p, "tokens_per_gpu_per_s") / trueTokens, 0.01,
                "the log's tokens/GPU/s against the truth's " + trueTokens);
    }

    /**
     * torchtitan's printed tflops and mfu changed count on 2025-10-29 (5a090f2): a log is read with the count of its
     * day, and the day is the one its profile's version 2025-10 begins on (knowledge-base/frameworks/torchtitan.json).
     */
    @Test
    void thePrintedCountIsTheOneOfTheLogsDay() throws java.io.IOException {
        assertEquals("torchtitan", Samples.parse(parser, "torchtitan-1.log").tflopsConvention());    // 2025-06-16
        // torchtitan-2.log (2026-05-18) prints tflops too: the count from 5a090f2
        assertEquals("torchtitan-2025-10", Samples.parse(parser, "torchtitan-2.log").tflopsConvention());
        assertEquals("torchtitan", TorchtitanLog.convention(java.time.LocalDate.of(2025, 10, 28)));
        assertEquals("torchtitan-2025-10", TorchtitanLog.convention(java.time.LocalDate.of(2025, 10, 29)));
        // undated: the current torchtitan's, as its profile's default version counts
        assertEquals("torchtitan-2025-10", TorchtitanLog.convention(null));
        com.fasterxml.jackson.databind.JsonNode profile = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(java.nio.file.Path.of("knowledge-base/frameworks/torchtitan.json").toFile());
        assertEquals(TorchtitanLog.HALVED_ATTENTION.toString(),
                profile.path("versions").path("2025-10").path("since").path("value").asText());
        assertEquals("torchtitan-2025-10", profile.path("flops_convention").path("value").asText());
        assertEquals("torchtitan", profile.path("versions").path("before-2025-10").path("facts").path("flops_convention")
                .path("value").asText());
    }
}
