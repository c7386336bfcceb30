package dev.trainadvisor.ingest;

import org.junit.jupiter.api.Test;

import static dev.trainadvisor.ingest.Samples.metric;
import static org.junit.jupiter.api.Assertions.*;

/** Megatron-LM samples, values read by hand; and the argument dump, timers and version clues. */
class MegatronLogTest {
    final MegatronLog parser = new MegatronLog();

    @Test
    void megatron1TimestampThroughputMoeAndMemory() {
        ParsedLog p = Samples.parse(parser, "megatron-1.log");
        // iterations 2, 3, 43, 44, 45 (n=5): drop iteration 2; second half 43,44,45: 5444.9, 5533.8, 5718.6 ms
        // -> median 5533.8; iteration 3: 5410.6 is 2.2% off -> kept
        assertEquals(5, p.steps());
        assertEquals(4, p.steadySteps());
        // elapsed time of 3, 43, 44, 45: 5410.6, 5444.9, 5533.8, 5718.6 -> (5444.9 + 5533.8) / 2 = 5489.35 ms
        assertEquals(5.48935, metric(p, "step_time_s"), 1e-12);
        // throughput per GPU (TFLOP/s/GPU) of 3, 43, 44, 45: 241.4, 239.8, 236.0, 228.4 -> (239.8 + 236.0) / 2
        assertEquals(237.9, metric(p, "tflops_per_gpu"), 1e-9);
        assertEquals("megatron-legacy", p.tflopsConvention(), "2024-04 timestamp without fraction, no version printed");
        assertEquals(1.0, metric(p, "loss_scale"));
        // [Rank 1] (after 1 iterations) memory (MB) | ... | max reserved: 61480.0 -> 61480 x 2^20 / 1e9 GB
        assertEquals(61480.0 * 1048576 / 1e9, metric(p, "peak_memory_gb"), 1e-9);
        assertEquals(64.46645248, metric(p, "peak_memory_gb"), 1e-9);
        assertEquals(0.0, metric(p, "skipped_steps"));
        assertEquals(45.0, metric(p, "steps"), "the last iteration");
        assertFalse(p.metrics().containsKey("tokens_per_gpu_per_s"), "no argument dump: seq length and world size unknown");
        assertEquals(128.0, p.extra().get("global_batch_size"));
    }

    @Test
    void megatron2AllIterationsSkippedAndTimers() {
        ParsedLog p = Samples.parse(parser, "megatron-2.log");
        // one line: iteration 10, elapsed 356.2 ms, loss scale 8388608.0, 10 skipped, no lm loss
        assertEquals(1, p.steps());
        assertEquals(1, p.steadySteps(), "a single step is kept (with a warning)");
        assertEquals(0.3562, metric(p, "step_time_s"), 1e-12);
        assertEquals(8388608.0, metric(p, "loss_scale"));
        assertEquals(10.0, metric(p, "skipped_steps"));
        assertEquals(10.0, metric(p, "steps"));
        // time (ms) | forward-compute: 193.77 | backward-compute: 73.02 | ... | optimizer: 63.01
        assertEquals((193.77 + 73.02) / 1000, metric(p, "fwd_bwd_time_s"), 1e-12);
        assertEquals(0.06301, metric(p, "optimizer_time_s"), 1e-12);
        assertNull(p.tflopsConvention(), "no throughput printed");
        assertTrue(p.warnings().stream().anyMatch(w -> w.contains("every logged iteration was skipped")), p.warnings().toString());
    }

    // The log below is built from the formats of docs/logs.md (Megatron-LM) (argument dump, padded-vocab line,
    // (min, max) timers, memory line, training_log of core >= 0.12 with '.%f' timestamps); numbers made up.
    static final String DUMP = """
            ------------------------ arguments ------------------------
              bf16 ............................................ True
              context_parallel_size ........................... 1
              data_parallel_size .............................. 4
              ffn_hidden_size ................................. 14336
              fp16 ............................................ False
              global_batch_size ............................... 256
              group_query_attention ........................... True
              hidden_size ..................................... 4096
              micro_batch_size ................................ 2
              num_attention_heads ............................. 32
              num_layers ...................................... 32
              num_query_groups ................................ 8
              overlap_grad_reduce ............................. True
              overlap_param_gather ............................ False
              pipeline_model_parallel_size .................... 2
              recompute_granularity ........................... selective
              seq_length ...................................... 8192
              sequence_parallel ............................... True
              swiglu .......................................... True
              tensor_model_parallel_size ...................... 2
              untie_embeddings_and_output_weights ............. True
              use_distributed_optimizer ....................... True
              use_flash_attn .................................. False
              virtual_pipeline_model_parallel_size ............ None
              vocab_size ...................................... 128000
              world_size ...................................... 16
            -------------------- end of arguments ---------------------
            > padded vocab (size: 128000) with 256 dummy tokens (new size: 128256)
            """;

    static String iteration(int it, double ms, double tflops, String stamp) {
        return String.format(java.util.Locale.ROOT, " [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f"
                + " | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: 1.000000E-04 | global batch size:   256 |"
                + " lm loss: 2.000000E+00 | loss scale: 1.0 | grad norm: 0.500 | number of skipped iterations:   0 |"
                + " number of nan iterations:   0 |%n", stamp, it, 1000, it * 256L, ms, tflops);
    }

    @Test
    void argumentDumpGivesTheConfigurationAndTokens() {
        StringBuilder log = new StringBuilder(DUMP);
        double[] ms = {9000, 4100, 4000, 4050, 3950};
        for (int i = 0; i < ms.length; i++) {
            log.append(iteration(i + 1, ms[i], 400, "2026-02-01 10:00:0" + i + ".123456"));
            log.append("(min, max) time across ranks (ms):\n")
                    .append("    forward-backward ...............................: (3500.00, 3600.00)\n")
                    .append("    optimizer ......................................: (100.00, 120.00)\n");
        }
        log.append("[Rank 0] (after 5 iterations) memory (MB) | allocated: 30000.0 | max allocated: 50000.0 | reserved: 60000.0 | max reserved: 62000.0\n");
        ParsedLog p = parser.parse(log.toString());
        var c = p.config();
        assertEquals(32, c.get("model.layers"));
        assertEquals(4096, c.get("model.hidden"));
        assertEquals(32, c.get("model.heads"));
        assertEquals(8, c.get("model.kv_heads"), "num_query_groups under group_query_attention");
        assertEquals(14336, c.get("model.ffn_hidden"));
        assertEquals(128256, c.get("model.vocab"), "the padded size");
        assertEquals(true, c.get("model.gated_mlp"));
        assertEquals(false, c.get("model.tied_embeddings"));
        assertEquals(2, c.get("parallel.tp"));
        assertEquals(2, c.get("parallel.pp"));
        assertEquals(1, c.get("parallel.cp"));
        assertEquals(4, c.get("parallel.dp"));
        assertEquals(1, c.get("parallel.virtual_stages"));
        assertEquals(true, c.get("parallel.sequence_parallel"));
        assertEquals(1, c.get("parallel.zero_stage"), "use_distributed_optimizer");
        assertEquals(true, c.get("parallel.overlap_grad_reduce"));
        assertEquals(8192, c.get("training.seq_len"));
        assertEquals(2, c.get("training.micro_batch_size"));
        assertEquals(32, c.get("training.micro_batches"), "256 / (2 x 4)");
        assertEquals("selective", c.get("training.recompute"));
        assertEquals("bf16", c.get("training.precision"));
        assertEquals(false, c.get("training.flash_attention"));
        assertEquals(16, p.extra().get("world_size"));
        // 5 iterations: drop 1 (9000 ms); steady 4100, 4000, 4050, 3950 -> 4025 ms
        assertEquals(4.025, metric(p, "step_time_s"), 1e-12);
        // tokens/GPU/s per step = 256 x 8192 / (t x 16); median over the steady steps = at the median times
        double t1 = 256.0 * 8192 / (4.0 * 16), t2 = 256.0 * 8192 / (4.05 * 16);
        assertEquals((t1 + t2) / 2, metric(p, "tokens_per_gpu_per_s"), 1e-6);
        assertEquals(3.6, metric(p, "fwd_bwd_time_s"), 1e-12, "the max across ranks");
        assertEquals(0.12, metric(p, "optimizer_time_s"), 1e-12);
        assertEquals(62000.0 * 1048576 / 1e9, metric(p, "peak_memory_gb"), 1e-9);
        assertEquals("megatron", p.tflopsConvention(), "'.%f' timestamps exist only after core 0.12");
    }

    /**
     * --use-tp-pp-dp-mapping (Megatron-LM's megatron/training/initialize.py: order 'tp-cp-ep-pp-dp' rather than its
     * default 'tp-cp-ep-dp-pp') numbers the pipeline stages inside each replica: the run says so; printed False, or not
     * printed (before the flag existed), the framework's order stands.
     */
    @Test
    void theTpPpDpMappingIsTheRanksOrder() {
        String mapped = DUMP.replace("  use_distributed_optimizer",
                "  use_tp_pp_dp_mapping ............................ True\n  use_distributed_optimizer");
        assertNotEquals(DUMP, mapped);
        String log = iteration(1, 4000, 400, "2026-02-01 10:00:01.123456") + iteration(2, 4000, 400, "2026-02-01 10:00:05.123456");
        assertEquals("tp-cp-pp-dp", parser.parse(mapped + log).config().get("parallel.rank_order"));
        assertNull(parser.parse(mapped.replace("mapping ............................ True", "mapping ............................ False")
                + log).config().get("parallel.rank_order"));
        assertNull(parser.parse(DUMP + log).config().get("parallel.rank_order"));
    }

    @Test
    void versionLineSelectsTheConvention() {
        String it = iteration(1, 1000, 300, "2025-06-01 10:00:00") + iteration(2, 1000, 300, "2025-06-01 10:00:01");
        assertEquals("megatron", parser.parse("megatron-core==0.13.1\n" + it).tflopsConvention());
        assertEquals("megatron-legacy", parser.parse("Megatron-Core version: 0.11.0\n" + it).tflopsConvention());
        ParsedLog undated = parser.parse(it);
        assertEquals("megatron-legacy", undated.tflopsConvention());
        assertTrue(undated.warnings().stream().anyMatch(w -> w.contains("2025-06-01")), "dated after the change: warned");
    }

    @Test
    void classicGptDumpWithCheckpointActivationsAndFp16() {
        String log = """
                ------------------------ arguments ------------------------
                  checkpoint_activations .......................... True
                  fp16 ............................................ True
                  bf16 ............................................ False
                  num_layers ...................................... 24
                  num_attention_heads ............................. 16
                  hidden_size ..................................... 1024
                  tensor_model_parallel_size ...................... 1
                  pipeline_model_parallel_size .................... 1
                  world_size ...................................... 8
                  micro_batch_size ................................ 4
                  global_batch_size ............................... 96
                -------------------- end of arguments ---------------------
                """;
        ParsedLog p = parser.parse(log);
        assertEquals("full", p.config().get("training.recompute"));
        assertEquals("fp16", p.config().get("training.precision"));
        assertEquals(16, p.config().get("model.kv_heads"), "no GQA: as many KV heads as heads");
        assertEquals(8, p.config().get("parallel.dp"), "world / (tp x pp x cp)");
        assertEquals(3, p.config().get("training.micro_batches"), "96 / (4 x 8)");
    }
}
