package dev.trainadvisor.ingest;

import dev.trainadvisor.history.StepHistory;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** ParsedLog.history of each format, from the samples of shared/samples/logs, values read by hand. */
class HistoryTest {
    static final double GIB = 1.073741824;

    static void nan(double[] column, String what) {
        for (double v : column) assertTrue(Double.isNaN(v), what + " is not printed");
    }

    @Test
    void torchtitan() {
        StepHistory h = Samples.parse(new TorchtitanLog(), "torchtitan-1.log").history();
        assertArrayEquals(new long[] {200, 210, 220, 230, 240, 250}, h.steps());
        assertArrayEquals(new double[] {6.1384, 6.0388, 6.0348, 5.9670, 5.8311, 5.8383}, h.loss(), 1e-12);
        assertArrayEquals(new double[] {5856, 5593, 5868, 5869, 5864, 5862}, h.tokensPerGpuPerS(), 1e-12);
        // 22:30:50,322  22:31:04,970  22:31:18,934  22:31:32,895  22:31:46,869  22:32:00,846
        assertArrayEquals(new double[] {0, 14.648, 28.612, 42.573, 56.547, 70.524}, h.timestampS(), 1e-6);
        for (double m : h.memoryGb()) assertEquals(49.66 * GIB, m, 1e-9, "memory: 49.66GiB");
        nan(h.stepTimeS(), "step time");
        nan(h.learningRate(), "learning rate");
        assertTrue(h.timers().isEmpty());
        // torchtitan-2.log prints grad_norm
        StepHistory h2 = Samples.parse(new TorchtitanLog(), "torchtitan-2.log").history();
        assertEquals(0.8319, h2.gradNorm()[0], 1e-12);
        assertEquals(0.6348, h2.gradNorm()[7], 1e-12);
    }

    @Test
    void internEvo() {
        StepHistory h = Samples.parse(new InternEvoLog(), "internlm-1.log").history();
        assertArrayEquals(new long[] {0, 1, 2, 3, 4, 5}, h.steps());
        assertEquals(1, h.warmupSteps(), "step 0 (compile and warm-up), by iteration number");
        assertEquals("iteration number", h.warmupReason());
        assertEquals(4.0000000000000003e-07, h.learningRate()[0], 1e-20);
        assertEquals(1.4000000000000001e-06, h.learningRate()[5], 1e-20);
        assertEquals(11.634403228759766, h.loss()[0], 1e-12);
        assertEquals(63.672620777841004, h.gradNorm()[0], 1e-12);
        assertEquals(65536.0, h.lossScale()[0]);
        assertArrayEquals(new double[] {0, 0, 0, 0, 0, 0}, h.skipped(), "metrics lines are printed for updated steps only");
        // 12:28:57,802  12:29:01,636  12:29:05,451  12:29:09,307  12:29:13,147  12:29:16,994
        assertArrayEquals(new double[] {0, 3.834, 7.649, 11.505, 15.345, 19.192}, h.timestampS(), 1e-6);
        // fwd_bwd_time, printed by the logging rank only: the slowest known, no fastest
        StepHistory.RankTimer fb = h.timer("fwd_bwd_time");
        assertArrayEquals(new double[] {6.48, 3.67, 3.66, 3.7, 3.68, 3.69}, fb.maxS(), 1e-12);
        nan(fb.minS(), "a fastest rank");
        // grad_norm printed as a dict per parameter group: the groups' norm, sqrt(87.3189924662012^2 + 0.0^2)
        StepHistory h4 = Samples.parse(new InternEvoLog(), "internlm-4.log").history();
        assertEquals(87.3189924662012, h4.gradNorm()[0], 1e-9);
    }

    @Test
    void internEvoSkippedSteps() {
        String line = "2023-07-07 12:29:%02d,000\tINFO train.py:323 in record_current_batch_training_metrics -- tflops=189.8,"
                + "step=%d,loss=11.6,tgs (tokens/gpu/second)=4274.45,lr=6e-07,loss_scale=65536.0,grad_norm=65.1,"
                + "micro_num=4,num_consumed_tokens=%d,inf_nan_skip_batches=%d,fwd_bwd_time=3.67%n";
        String log = String.format(java.util.Locale.ROOT, line, 1, 1, 131072, 0)
                + "2023-07-07 12:29:05,000\tWARNING train.py:300 in main -- Warning: skip parameter update at step 2.\n"
                + String.format(java.util.Locale.ROOT, line, 9, 3, 262144, 1);
        StepHistory h = new InternEvoLog().parse(log).history();
        assertArrayEquals(new long[] {1, 2, 3}, h.steps());
        assertArrayEquals(new double[] {0, 1, 0}, h.skipped());
        assertArrayEquals(new double[] {0, 4, 8}, h.timestampS(), 1e-9, "the skip line's time too");
        assertTrue(Double.isNaN(h.tokensPerGpuPerS()[1]), "a skipped step prints no metrics");
    }

    @Test
    void megatronOlderTimersLineIsOneRank() {
        StepHistory h = Samples.parse(new MegatronLog(), "megatron-2.log").history();
        assertArrayEquals(new long[] {10}, h.steps());
        assertEquals(1.0, h.skipped()[0], "10 skipped of the 10 iterations the line covers");
        assertEquals(8388608.0, h.lossScale()[0]);
        assertTrue(Double.isNaN(h.loss()[0]), "no lm loss printed while every step is skipped");
        // time (ms) | forward-compute: 193.77 | backward-compute: 73.02 | ... | optimizer: 63.01 | batch-generator: 25.27
        assertEquals(10, h.timers().size());
        assertEquals(0.19377, h.timer("forward-compute").maxS()[0], 1e-12);
        assertEquals(0.02527, h.timer("batch-generator").maxS()[0], 1e-12);
        assertTrue(Double.isNaN(h.timer("forward-compute").minS()[0]), "one rank's timers: no fastest rank");
    }

    @Test
    void megatronWithTimestampsAndMemory() {
        StepHistory h = Samples.parse(new MegatronLog(), "megatron-1.log").history();
        assertArrayEquals(new long[] {2, 3, 43, 44, 45}, h.steps());
        // 02:55:45, 02:55:50, 02:59:36, 02:59:41, 02:59:47
        assertArrayEquals(new double[] {0, 5, 231, 236, 242}, h.timestampS(), 1e-9);
        assertArrayEquals(new double[] {2.021530, 2.003316, 1.825991, 1.875063, 1.834162}, h.loss(), 1e-12);
        assertArrayEquals(new double[] {4e-7, 6e-7, 8.6e-6, 8.8e-6, 9e-6}, h.learningRate(), 1e-18);
        assertArrayEquals(new double[] {6.895, 6.603, 1.426, 1.327, 1.611}, h.gradNorm(), 1e-12);
        // the memory line is "after 1 iterations", and iteration 1 is not in the excerpt: no step to carry it
        nan(h.memoryGb(), "memory of a logged step");
        assertEquals(1, h.warmupSteps(), "iteration 2, near the start of training");
    }

    @Test
    void deepSpeedEngineAndBreakdown() {
        StepHistory h = Samples.parse(new DeepSpeedLog(), "deepspeed-1.log").history();
        assertArrayEquals(new long[] {2, 3, 4}, h.steps());
        // the engine lines: lr=[1.0066311829174689e-07, ...], [1.5099467743762034e-07, ...], [2.0132623658349378e-07, ...]
        assertArrayEquals(new double[] {1.0066311829174689e-07, 1.5099467743762034e-07, 2.0132623658349378e-07},
                h.learningRate(), 1e-22);
        assertArrayEquals(new double[] {0, 0, 0}, h.skipped());
        // engine lines at 02:45:24,651, 02:45:40,722, 02:45:56,791
        assertArrayEquals(new double[] {0, 16.071, 32.14}, h.timestampS(), 1e-6);
        assertArrayEquals(new double[] {11.208171, 11.205435, 11.205074}, h.loss(), 1e-12, "lm loss=");
        assertArrayEquals(new double[] {16.0306, 16.0718, 16.0692}, h.stepTimeS(), 1e-12);
        // [Rank 0] time (ms) | fwd: 3859.30 | bwd: 11267.97 | ... after step=2; one rank: no fastest
        StepHistory.RankTimer fwd = h.timer("fwd");
        assertArrayEquals(new double[] {3.8593, 3.86591, 3.87098}, fwd.maxS(), 1e-12);
        nan(fwd.minS(), "a fastest rank");
        assertEquals(11.26797, h.timer("bwd").maxS()[0], 1e-12);
        // MaxMemAllocated=15.59GB at global_step=3 and 4 (GiB)
        assertTrue(Double.isNaN(h.memoryGb()[0]));
        assertEquals(15.59 * GIB, h.memoryGb()[1], 1e-9);
    }

    @Test
    void deepSpeedTimersOverRanks() {
        String log = """
                [2024-05-01 10:00:01,000] [INFO] [logging.py:96:log_dist] [Rank 0] step=1, skipped=0, lr=[1e-05], mom=[(0.9, 0.95)]
                [2024-05-01 10:00:01,001] [INFO] [logging.py:96:log_dist] [Rank 0] time (ms) | fwd: 100.00 | bwd: 200.00 | step: 10.00
                [2024-05-01 10:00:01,002] [INFO] [logging.py:96:log_dist] [Rank 1] time (ms) | fwd: 130.00 | bwd: 190.00 | step: 11.00
                [2024-05-01 10:00:02,000] [INFO] [logging.py:96:log_dist] [Rank 0] step=2, skipped=1, lr=[2e-05], mom=[(0.9, 0.95)]
                [2024-05-01 10:00:02,001] [INFO] [logging.py:96:log_dist] [Rank 0] time (ms) | fwd: 101.00 | bwd: 201.00 | step: 12.00
                """;
        StepHistory h = new DeepSpeedLog().parse(log).history();
        StepHistory.RankTimer fwd = h.timer("fwd");
        assertEquals(0.100, fwd.minS()[0], 1e-12, "ranks 0 and 1 printed step 1: fastest 100 ms");
        assertEquals(0.130, fwd.maxS()[0], 1e-12, "slowest 130 ms");
        assertTrue(Double.isNaN(fwd.minS()[1]), "step 2: rank 0 only");
        assertEquals(0.101, fwd.maxS()[1], 1e-12);
        assertArrayEquals(new double[] {0, 1}, h.skipped(), "skipped=0, then 1: step 2 was skipped");
    }

    @Test
    void nanotron() {
        StepHistory h = Samples.parse(new NanotronLog(), "nanotron-1.log").history();
        assertArrayEquals(new long[] {991, 992, 993}, h.steps());
        assertArrayEquals(new double[] {0.045, 0.0412, 0.0394}, h.stepTimeS(), 1e-12);
        assertArrayEquals(new double[] {1780, 1940, 2030}, h.tokensPerGpuPerS(), 1e-9, "1.78K, 1.94K, 2.03K");
        assertArrayEquals(new double[] {0.515, 0.507, 0.514}, h.gradNorm(), 1e-12);
        assertArrayEquals(new double[] {1e-05, 1e-05, 1e-05}, h.learningRate(), 1e-18);
        assertArrayEquals(new double[] {0, 0, 0}, h.timestampS(), 1e-9, "all at 01/17/2024 13:47:27");
        assertEquals(0.547, h.memoryGb()[0], 1e-12, "cuda_max_memory_reserved: 547M bytes");
        assertTrue(Double.isNaN(h.memoryGb()[1]));
    }

    @Test
    void huggingFaceTrainerDicts() {
        StepHistory h = Samples.parse(new HfTrainerLog(), "hf-trainer-1.log").history();
        assertArrayEquals(new long[] {1, 2, 3, 4, 5}, h.steps(), "the dicts, counted: the Trainer prints no step numbers");
        assertArrayEquals(new double[] {0.0499, 0.039, 0.0506, 0.0276, 0.0421}, h.loss(), 1e-12);
        assertEquals(3.591337215792852e-05, h.learningRate()[0], 1e-20);
        assertEquals(7.697287947328512, h.gradNorm()[4], 1e-12);
        nan(h.stepTimeS(), "step time");
        assertEquals(0, h.warmupSteps(), "no timed step, nothing to drop");
    }

    @Test
    void logsWithoutStepsHaveAnEmptyHistory() {
        assertTrue(Samples.parse(new NcclTestsLog(), "nccl-tests-3.log").history().isEmpty());
        assertTrue(Samples.parse(new TopologyLog(), "nvidia-smi-topo-2.log").history().isEmpty());
    }
}
