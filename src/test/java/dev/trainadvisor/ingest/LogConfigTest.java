package dev.trainadvisor.ingest;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The configuration a log prints (for {@code advise --log}): training.global_batch_size (sequences per step),
 * training.micro_batch_size, training.micro_batches, training.seq_len, parallel.zero_stage, training.precision and
 * the parallel sizes, where each framework prints them. Sample values are read from shared/samples/logs; the other
 * lines are built from the frameworks' print statements (each test says which), with numbers made up.
 */
class LogConfigTest {

    @Test
    void megatronFromTheIterationLinesWithoutADump() {
        // megatron-1.log: "global batch size:   128" on every iteration line, no argument dump
        Map<String, Object> c = Samples.parse(new MegatronLog(), "megatron-1.log").config();
        assertEquals(128, c.get("training.global_batch_size"));
        assertNull(c.get("training.micro_batch_size"), "not printed");
    }

    @Test
    void megatronFromTheArgumentDump() {
        // MegatronLogTest.DUMP: global_batch_size 256, micro_batch_size 2, use_distributed_optimizer True, bf16 True
        Map<String, Object> c = new MegatronLog().parse(MegatronLogTest.DUMP).config();
        assertEquals(256, c.get("training.global_batch_size"));
        assertEquals(2, c.get("training.micro_batch_size"));
        assertEquals(1, c.get("parallel.zero_stage"), "the distributed optimizer shards the optimizer state: ZeRO-1");
        assertEquals("bf16", c.get("training.precision"));
        assertEquals(2, c.get("parallel.tp"));
        assertEquals(2, c.get("parallel.pp"));
        assertEquals(4, c.get("parallel.dp"));
        assertEquals(8192, c.get("training.seq_len"));
    }

    @Test
    void megatronDeepSpeedAndArgonne() {
        // megatron-deepspeed-1.log: "global batch size:     8", "actual seqlen:  2048"
        Map<String, Object> m = Samples.parse(new MegatronDeepSpeedLog(), "megatron-deepspeed-1.log").config();
        assertEquals(8, m.get("training.global_batch_size"));
        assertEquals(2048, m.get("training.seq_len"));
        // deepspeed-1.log (argonne): "global_batch_size=  256", "actual_seqlen= 4096"
        Map<String, Object> a = Samples.parse(new DeepSpeedLog(), "deepspeed-1.log").config();
        assertEquals(256, a.get("training.global_batch_size"));
        assertEquals(4096, a.get("training.seq_len"));
    }

    @Test
    void deepSpeedConfigurationPrint() {
        // DeepSpeedConfig.print: logger.info("  {} {} {}".format(arg, "." * (29 - len(arg)), value)); a name of 29
        // characters or more gets no dots. The engine's "Creating ... ZeRO stage N optimizer" line.
        String log = """
                [2024-05-01 10:00:00,001] [INFO] [config.py:984:print] DeepSpeedEngine configuration:
                [2024-05-01 10:00:00,002] [INFO] [config.py:988:print]   bfloat16_enabled ............. True
                [2024-05-01 10:00:00,002] [INFO] [config.py:988:print]   fp16_enabled ................. False
                [2024-05-01 10:00:00,002] [INFO] [config.py:988:print]   gradient_accumulation_steps .. 8
                [2024-05-01 10:00:00,003] [INFO] [config.py:988:print]   train_batch_size ............. 512
                [2024-05-01 10:00:00,003] [INFO] [config.py:988:print]   train_micro_batch_size_per_gpu  4
                [2024-05-01 10:00:00,003] [INFO] [config.py:988:print]   zero_optimization_stage ...... 2
                [2024-05-01 10:00:01,000] [INFO] [logging.py:96:log_dist] [Rank 0] step=1, skipped=0, lr=[1e-05], mom=[(0.9, 0.95)]
                [2024-05-01 10:00:02,000] [INFO] [logging.py:96:log_dist] [Rank 0] step=2, skipped=0, lr=[2e-05], mom=[(0.9, 0.95)]
                """;
        ParsedLog p = LogFormats.detectAndParse(log, "ds.log");
        assertEquals("deepspeed", p.format());
        Map<String, Object> c = p.config();
        assertEquals(512, c.get("training.global_batch_size"), "train_batch_size");
        assertEquals(4, c.get("training.micro_batch_size"), "train_micro_batch_size_per_gpu");
        assertEquals(8, c.get("training.micro_batches"), "gradient_accumulation_steps");
        assertEquals(2, c.get("parallel.zero_stage"));
        assertEquals("bf16", c.get("training.precision"));
        assertFalse(p.hasThroughput(), "engine step lines carry no pace");
        String zero3 = "[2024-05-01 10:00:00,500] [INFO] [stage3.py:130:__init__] Creating fp16 ZeRO stage 3 optimizer\n"
                + "[2024-05-01 10:00:01,000] [INFO] [logging.py:96:log_dist] [Rank 0] step=1, skipped=0, lr=[1e-05], mom=[(0.9, 0.95)]\n";
        assertEquals(3, new DeepSpeedLog().parse(zero3).config().get("parallel.zero_stage"));
    }

    @Test
    void huggingFaceRunningTrainingBlock() {
        // transformers Trainer._inner_training_loop: logger.info(f"  Instantaneous batch size per device = {...:,}")
        // and the lines after it, through the Trainer's logger ("[INFO|trainer.py:2078] date >> message")
        String log = """
                [INFO|trainer.py:2073] 2024-05-01 10:00:00,000 >> ***** Running training *****
                [INFO|trainer.py:2074] 2024-05-01 10:00:00,000 >>   Num examples = 12,000
                [INFO|trainer.py:2075] 2024-05-01 10:00:00,000 >>   Num Epochs = 3
                [INFO|trainer.py:2076] 2024-05-01 10:00:00,000 >>   Instantaneous batch size per device = 8
                [INFO|trainer.py:2079] 2024-05-01 10:00:00,000 >>   Total train batch size (w. parallel, distributed & accumulation) = 1,024
                [INFO|trainer.py:2080] 2024-05-01 10:00:00,000 >>   Gradient Accumulation steps = 16
                [INFO|trainer.py:2081] 2024-05-01 10:00:00,000 >>   Total optimization steps = 36
                {'loss': 2.1, 'grad_norm': 1.5, 'learning_rate': 1e-05, 'epoch': 0.08}
                {'loss': 1.9, 'grad_norm': 1.25, 'learning_rate': 2e-05, 'epoch': 0.17}
                """;
        ParsedLog p = LogFormats.detectAndParse(log, "hf.log");
        assertEquals("hf-trainer", p.format());
        assertEquals(1024, p.config().get("training.global_batch_size"), "1,024: thousands separator read");
        assertEquals(8, p.config().get("training.micro_batch_size"));
        assertEquals(16, p.config().get("training.micro_batches"));
        assertFalse(p.hasThroughput(), "per-step dicts carry no timing: no pace metric");
        assertEquals(2, p.steps());
    }

    @Test
    void torchtitanTrainingStartsLine() {
        // torchtitan train.py: logger.info(f"Training starts at step {step + 1}, with local batch size {b}, global
        // batch size {g}, sequence length {s}, total steps {n} (warmup {w})"), then step lines of torchtitan-1.log's format
        StringBuilder log = new StringBuilder("[rank0]:[titan] 2025-06-16 22:00:00,000 - root - INFO - Training starts at"
                + " step 1, with local batch size 2, global batch size 16, sequence length 8192, total steps 1000 (warmup 4)\n");
        int[] tps = {3000, 5800, 5850, 5860, 5870, 5855, 5862, 5858, 5861, 5866};
        for (int i = 0; i < tps.length; i++)
            log.append(String.format(java.util.Locale.ROOT, "[rank0]:[titan] 2025-06-16 22:00:%02d,000 - root - INFO - step: %2d"
                    + "  loss:  6.1384  memory: 49.66GiB(52.28%%)  tps: %,d  tflops: 339.16  mfu: 34.29%%%n", 10 + i, i + 1, tps[i]));
        ParsedLog p = LogFormats.detectAndParse(log.toString(), "tt.log");
        assertEquals("torchtitan", p.format());
        assertEquals(16, p.config().get("training.global_batch_size"));
        assertEquals(2, p.config().get("training.micro_batch_size"));
        assertEquals(8192, p.config().get("training.seq_len"));
        // (warmup 4): steps 1-4 are the learning-rate warm-up (the iteration-number rule alone would drop step 1)
        assertEquals(4, p.history().warmupSteps());
        assertEquals("learning-rate warm-up", p.history().warmupReason());
        // tps of steps 5..10: 5870, 5855, 5862, 5858, 5861, 5866 -> sorted 5855 5858 5861 5862 5866 5870 -> 5861.5
        assertEquals(5861.5, Samples.metric(p, "tokens_per_gpu_per_s"));
    }

    @Test
    void internEvoLaunchAndDataInfo() {
        // InternEvo launch.py ("Distributed environment is initialized, ...") and the Data Info block of
        // training_internlm.py's args check, as the standard logger prints them; then internlm-1.log's metrics lines
        String head = """
                2023-07-07 12:26:58,293\tINFO launch.py:228 in launch -- Distributed environment is initialized, data parallel size: 8, pipeline parallel size: 1, tensor parallel size: 1
                2023-07-07 12:26:58,301\tINFO utils.py:87 in args_sanity_check -- +++++++++++++++ Data Info +++++++++++++++
                2023-07-07 12:26:58,301\tINFO utils.py:88 in args_sanity_check -- seq_len: 2048
                2023-07-07 12:26:58,301\tINFO utils.py:89 in args_sanity_check -- micro_num: 4
                2023-07-07 12:26:58,301\tINFO utils.py:90 in args_sanity_check -- micro_bsz: 2
                """;
        ParsedLog p = new InternEvoLog().parse(head + Samples.text("internlm-1.log"));
        Map<String, Object> c = p.config();
        assertEquals(8, c.get("parallel.dp"));
        assertEquals(1, c.get("parallel.pp"));
        assertEquals(1, c.get("parallel.tp"));
        assertEquals(2048, c.get("training.seq_len"));
        assertEquals(2, c.get("training.micro_batch_size"), "micro_bsz: sequences packed per micro-batch");
        assertEquals(4, c.get("training.micro_batches"));
        // micro_bsz x micro_num x dp = 2 x 4 x 8 = 64, as num_consumed_tokens' 131072 per step / 2048 says too
        assertEquals(64, c.get("training.global_batch_size"));
    }

    @Test
    void nanotronIterationLines() {
        // nanotron-1.log: "global_batch_size: 20" on every iteration line
        assertEquals(20, Samples.parse(new NanotronLog(), "nanotron-1.log").config().get("training.global_batch_size"));
    }

    @Test
    void logsWithoutThroughput() {
        assertFalse(Samples.parse(new NcclTestsLog(), "nccl-tests-2.log").hasThroughput());
        assertFalse(Samples.parse(new TopologyLog(), "nvidia-smi-topo-1.log").hasThroughput());
        assertFalse(Samples.parse(new HfTrainerLog(), "hf-trainer-1.log").hasThroughput());
        assertFalse(new MegatronLog().parse(MegatronLogTest.DUMP).hasThroughput(), "an argument dump alone");
        assertTrue(Samples.parse(new MegatronLog(), "megatron-1.log").hasThroughput());
        assertTrue(Samples.parse(new TorchtitanLog(), "torchtitan-1.log").hasThroughput());
    }
}
