package dev.trainadvisor.ingest;

import org.junit.jupiter.api.Test;

import static dev.trainadvisor.ingest.Samples.metric;
import static org.junit.jupiter.api.Assertions.*;

/** DeepSpeed samples, values read by hand; the pipeline engine and the legacy timer. */
class DeepSpeedLogTest {
    final DeepSpeedLog parser = new DeepSpeedLog();

    @Test
    void deepspeed1EngineTimersAndArgonneIterations() {
        ParsedLog p = Samples.parse(parser, "deepspeed-1.log");
        // engine steps 2, 3, 4 and argonne iterations 2, 3, 4 (n=3): drop step 2; steady 3, 4
        assertEquals(3, p.steps());
        assertEquals(2, p.steadySteps());
        // elapsed_time_per_iteration_ms=16071.8, 16069.2 -> 16070.5 ms
        assertEquals(16.0705, metric(p, "step_time_s"), 1e-9);
        // tokens_per_gpu_per_second_tgs=8155.393, 8156.733 -> 8156.063
        assertEquals(8156.063, metric(p, "tokens_per_gpu_per_s"), 1e-9);
        // TFLOPs=159.66, 159.68 -> 159.67 (argonne Megatron-DeepSpeed, 2024-04: before PR #371)
        assertEquals(159.67, metric(p, "tflops_per_gpu"), 1e-9);
        assertEquals("megatron-deepspeed", p.tflopsConvention());
        // time (ms) | fwd: 3865.91 | bwd: 11249.43 | ... | step: 888.45   (step 3)
        //           | fwd: 3870.98 | bwd: 11294.43 | ... | step: 865.13   (step 4)
        // fwd+bwd: 15115.34, 15165.41 -> 15140.375 ms; step: 888.45, 865.13 -> 876.79 ms
        assertEquals(15.140375, metric(p, "fwd_bwd_time_s"), 1e-9);
        assertEquals(0.87679, metric(p, "optimizer_time_s"), 1e-9);
        // peak: max of the memory line's max reserved 17240.0 MB (x 2^20 / 1e9 = 18.07745 GB) and the timer's
        // MaxMemAllocated=15.59GB (GiB: 16.74 GB)
        assertEquals(17240.0 * 1048576 / 1e9, metric(p, "peak_memory_gb"), 1e-9);
        assertEquals(65536.0, metric(p, "loss_scale"));
        assertEquals(0.0, metric(p, "skipped_steps"), "skipped=0");
        assertEquals(4.0, metric(p, "steps"));
        assertEquals(4096, p.config().get("training.seq_len"), "actual_seqlen= 4096");
        // RunningAvg/Curr SamplesPerSec ~74.7 against samples_per_second=15.9: the timer is not wall-clock
        // throughput (section 0.4); CurrSamplesPerSec of steps 3 and 4: 74.68528989415996, 74.81160215378233
        assertEquals((74.68528989415996 + 74.81160215378233) / 2, (Double) p.extra().get("timer_samples_per_s"), 1e-9);
        assertTrue(p.warnings().stream().anyMatch(w -> w.contains("ThroughputTimer")));
        assertEquals(15.93, (Double) p.extra().get("samples_per_s"), 1e-9, "samples_per_second=15.929, 15.931");
    }

    @Test
    void deepspeed2FlopsProfilerSummary() {
        ParsedLog p = Samples.parse(parser, "deepspeed-2.log");
        // Profile Summary at step 10: one profiled step
        assertEquals(1, p.steps());
        assertEquals(10.0, metric(p, "steps"));
        assertEquals(0.18473, metric(p, "step_time_s"), 1e-12, "iter latency: 184.73 ms");
        assertEquals(0.07667 + 0.10802, metric(p, "fwd_bwd_time_s"), 1e-12, "fwd latency 76.67 ms + bwd latency 108.02 ms");
        assertEquals(34.09e-6, metric(p, "optimizer_time_s"), 1e-15, "step latency: 34.09 us");
        assertEquals(80, p.config().get("training.micro_batch_size"), "batch size per GPU: 80");
        assertEquals(1, p.config().get("parallel.dp"));
        assertEquals(1, p.config().get("parallel.tp"));
        assertEquals(1, p.extra().get("world_size"));
        // fwd+bwd FLOPS per GPU = 3 * fwd flops per GPU / (fwd+bwd latency): 102.0 TFLOPS -- measured, no convention
        assertEquals(102.0, (Double) p.extra().get("profiler_tflops_per_gpu"), 1e-9);
        assertFalse(p.metrics().containsKey("tflops_per_gpu"));
        assertNull(p.tflopsConvention());
        assertEquals(336.23e6, (Double) p.extra().get("params_per_gpu"), 1);
        assertEquals(433.07, (Double) p.extra().get("samples_per_s"), 1e-9);
    }

    // Lines built from the formats of docs/logs.md (DeepSpeed); numbers made up.

    @Test
    void pipelineEngineAndLegacyTimer() {
        String log = """
                steps: 10 loss: 2.5000 iter time (s): 2.000 samples/sec: 64.000
                0/10, SamplesPerSec=1292.64, MemAllocated=3.5GB, MaxMemAllocated=4.0GB
                steps: 20 loss: 2.4000 iter time (s): 1.000 samples/sec: 128.000
                steps: 30 loss: 2.3000 iter time (s): 1.100 samples/sec: 116.364
                [2024-01-01 00:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 0] step=30, skipped=3, lr=[1e-4], mom=[(0.9, 0.95)]
                """;
        assertTrue(parser.confidence(log) >= 0.9);
        ParsedLog p = parser.parse(log);
        assertEquals(3, p.steps());
        assertEquals(1.05, metric(p, "step_time_s"), 1e-12, "steps 20 and 30 after dropping step 10");
        assertEquals(3.0, metric(p, "skipped_steps"));
        assertEquals(30.0, metric(p, "steps"));
        assertEquals(4.0 * 1.073741824, metric(p, "peak_memory_gb"), 1e-9, "MaxMemAllocated in GiB");
    }

    @Test
    void engineBannerIsNotAProfile() {
        String log = "[2023-08-15 06:31:35,566] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Flops Profiler Enabled: False\n"
                + "[2023-08-15 06:31:35,631] [INFO] [logging.py:96:log_dist] [Rank 0] step=0, skipped=0, lr=[0.0, 0.0], mom=[(0.9, 0.95), (0.9, 0.95)]\n";
        ParsedLog p = parser.parse(log);
        assertEquals(1, p.steps());
        assertFalse(p.extra().containsKey("profiler_tflops_per_gpu"));
    }

    /** The engine's config print of zero_config, as DeepSpeed 0.14 writes it (the repr of DeepSpeedZeroConfig). */
    static String zeroConfig(int stage, String param, String optimizer) {
        return "[2024-07-10 16:18:04,390] [INFO] [config.py:1000:print]   zero_config .................. stage=" + stage
                + " contiguous_gradients=True reduce_scatter=True reduce_bucket_size=500,000,000 overlap_comm=False "
                + "load_from_fp32_weights=True elastic_checkpoint=False offload_param=" + param + " offload_optimizer="
                + optimizer + " sub_group_size=1,000,000,000 cpu_offload_param=None cpu_offload=None\n"
                + "[2024-07-10 16:18:04,390] [INFO] [config.py:1000:print]   zero_optimization_stage ...... " + stage + "\n"
                + "[2024-07-10 16:18:10,000] [INFO] [logging.py:96:log_dist] [Rank 0] step=10, skipped=0, lr=[1e-4], mom=[(0.9, 0.95)]\n";
    }

    @Test
    void theOffloadDeepSpeedPrintsIsTheRunsOffload() {
        String cpuOpt = "DeepSpeedZeroOffloadOptimizerConfig(device='cpu', nvme_path=None, buffer_count=4, pin_memory=True, "
                + "pipeline=False, pipeline_read=False, pipeline_write=False, fast_init=False, ratio=1.0)";
        String cpuParam = "DeepSpeedZeroOffloadParamConfig(device='cpu', nvme_path=None, buffer_count=5, "
                + "buffer_size=100,000,000, max_in_cpu=1,000,000,000, pin_memory=True)";
        // ZeRO-Offload at stage 2: the optimizer, its master weights and the gradients on the host; offload_param is
        // read at stage 3 only, so the parameters stay
        var c2 = parser.parse(zeroConfig(2, cpuParam, cpuOpt)).config();
        assertEquals("cpu", c2.get("training.offload.optimizer"));
        assertEquals("cpu", c2.get("training.offload.master_weights"));
        assertEquals("cpu", c2.get("training.offload.gradients"));
        assertNull(c2.get("training.offload.parameters"));
        assertNull(c2.get("training.offload.ratio"), "ratio=1.0 is the default");
        // ZeRO-Infinity at stage 3: parameters on NVMe with their path, a partial optimizer share (ZeRO-Offload++)
        var c3 = parser.parse(zeroConfig(3, "DeepSpeedZeroOffloadParamConfig(device='nvme', nvme_path=PosixPath('/local_nvme'), "
                + "buffer_count=5, pin_memory=True)", cpuOpt.replace("ratio=1.0", "ratio=0.4"))).config();
        assertEquals("nvme", c3.get("training.offload.parameters"));
        assertEquals("/local_nvme", c3.get("training.offload.nvme_path"));
        assertEquals(0.4, c3.get("training.offload.ratio"));
        assertEquals(3, c3.get("parallel.zero_stage"));
        // nothing offloaded: None, or device 'none'
        var none = parser.parse(zeroConfig(3, "None", cpuOpt.replace("'cpu'", "'none'"))).config();
        assertTrue(none.keySet().stream().noneMatch(k -> k.startsWith("training.offload")), none.toString());
    }

    /**
     * deepspeed.initialize prints the release that runs on rank 0 (deepspeed/__init__.py: "DeepSpeed info: version={},
     * git-hash={}, git-branch={}"): kept as deepspeed_version, a local build's "+hash" left off; a log without the line
     * states none.
     */
    @Test
    void theReleaseDeepSpeedPrintsAtInitialize() {
        String log = Samples.text("deepspeed-1.log");
        String head = "[2024-04-21 02:40:00,100] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=%s, "
                + "git-hash=3dd3d514, git-branch=master\n";
        ParsedLog p = parser.parse(head.formatted("0.14.1+3dd3d514") + log);
        assertEquals("0.14.1", p.release());
        assertEquals("0.14.1", p.extra().get(DeepSpeedLog.RELEASE));
        assertEquals("0.10.3", parser.parse(head.formatted("0.10.3") + log).release());
        assertNull(Samples.parse(parser, "deepspeed-1.log").release());
        // the same line in a Megatron-DeepSpeed log, which DeepSpeedLog's reading serves too
        assertEquals("0.12.3", new MegatronDeepSpeedLog().parse(head.formatted("0.12.3")
                + Samples.text("megatron-deepspeed-1.log")).release());
        assertNull(DeepSpeedLog.release("version=unknown", 8));
    }
}
