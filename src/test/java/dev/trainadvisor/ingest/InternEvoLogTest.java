package dev.trainadvisor.ingest;

import org.junit.jupiter.api.Test;

import static dev.trainadvisor.ingest.Samples.metric;
import static org.junit.jupiter.api.Assertions.*;

/**
 * InternLM / InternEvo samples, values read by hand. Warm-up rule (StepSeries): with n steps drop the first
 * min(10, max(1, n/10)), then further leading steps while their pace is more than 5% off the median pace of the
 * second half (steps n/2..n-1), never more than n/2 in all; medians over the rest. The pace here is tgs (InternEvo
 * prints no step time).
 */
class InternEvoLogTest {
    final InternEvoLog parser = new InternEvoLog();

    @Test
    void internlm1CommaFormatWithTflops() {
        ParsedLog p = Samples.parse(parser, "internlm-1.log");
        // steps 0..5, one line each; n=6 -> drop 1 (step 0: tgs 1424.64, tflops 63.27 - warm-up)
        // second half steps 3,4,5: tgs 4252.55, 4270.52, 4262.67 -> median 4262.67; step 1: 4274.45 is 0.3% off: kept
        assertEquals(6, p.steps());
        assertEquals(5, p.steadySteps());
        // tgs of steps 1..5: 4274.45, 4300.69, 4252.55, 4270.52, 4262.67 -> sorted middle 4270.52
        assertEquals(4270.52, metric(p, "tokens_per_gpu_per_s"), 1e-9);
        // tflops of steps 1..5: 189.8337, 190.9993, 188.8614, 189.6592, 189.3109 -> middle 189.65918563194305
        assertEquals(189.65918563194305, metric(p, "tflops_per_gpu"), 1e-9);
        assertEquals("internevo", p.tflopsConvention());
        // fwd_bwd_time of steps 1..5: 3.67, 3.66, 3.7, 3.68, 3.69 -> 3.68
        assertEquals(3.68, metric(p, "fwd_bwd_time_s"), 1e-12);
        assertEquals(65536.0, metric(p, "loss_scale"));
        assertEquals(0.0, metric(p, "skipped_steps"), "inf_nan_skip_batches=0 throughout");
        assertEquals(6.0, metric(p, "steps"), "last step 5, counted from 0");
        assertEquals(4, p.config().get("training.micro_batches"), "micro_num=4");
        // num_consumed_tokens 131072, 262144, ... -> 131072 per step (= 2 x 4 x 2048 x 8)
        assertEquals(131072.0, p.extra().get("tokens_per_step"));
        assertFalse(p.metrics().containsKey("step_time_s"), "InternEvo prints no step time");
    }

    @Test
    void internlm2FirstReleaseWithoutTflops() {
        ParsedLog p = Samples.parse(parser, "internlm-2.log");
        // steps 17..22, key "tgs (tokens per gpu per second)"; n=6. The excerpt begins at step 17, past 10 steps of
        // training: no warm-up by iteration number; lr rises through all six (3.8e-06 .. 4.8e-06): the schedule's
        // warm-up does not end inside the log, it says nothing; step 17: 4399.93 against the median of 18..22
        // (4429.13) is 0.7% off: kept. All 6 steady.
        assertEquals(6, p.steps());
        assertEquals(6, p.steadySteps());
        // tgs sorted: 4393.28, 4399.93, 4427.46, 4429.13, 4457.7, 4464.18 -> (4427.46 + 4429.13) / 2
        assertEquals(4428.295, metric(p, "tokens_per_gpu_per_s"), 1e-9);
        // fwd_bwd sorted: 3.52, 3.52, 3.54, 3.55, 3.57, 3.57 -> (3.54 + 3.55) / 2
        assertEquals(3.545, metric(p, "fwd_bwd_time_s"), 1e-12);
        assertFalse(p.metrics().containsKey("tflops_per_gpu"), "the first release printed no tflops");
        assertNull(p.tflopsConvention(), "no printed TFLOPS, no convention");
        assertEquals(23.0, metric(p, "steps"), "last step 22, counted from 0");
        // num_consumed_tokens 2359296 -> 2490368: 131072 per step
        assertEquals(131072.0, p.extra().get("tokens_per_step"));
    }

    @Test
    void internlm3UniscaleSpaceFormatWithGradNormDict() {
        ParsedLog p = Samples.parse(parser, "internlm-3.log");
        // steps 0..5; drop step 0; second half steps 3,4,5: tgs 4176.61, 4185.31, 4179.64 -> 4179.64
        // step 1: 3871.11 is 7.4% below -> dropped as warm-up; step 2: 4189.39 is 0.2% off -> settled
        assertEquals(4, p.steadySteps());
        // tgs of steps 2..5: 4189.39, 4176.61, 4185.31, 4179.64 -> (4179.64 + 4185.31) / 2 = 4182.475
        assertEquals(4182.475, metric(p, "tokens_per_gpu_per_s"), 1e-9);
        // tflops of steps 2..5: 186.0565, 185.4890, 185.8752, 185.6237 -> (185.6236609556878 + 185.8751803758398) / 2
        assertEquals((185.6236609556878 + 185.8751803758398) / 2, metric(p, "tflops_per_gpu"), 1e-9);
        // fwd_bwd of steps 2..5: 3.82, 3.83, 3.82, 3.82 -> 3.82
        assertEquals(3.82, metric(p, "fwd_bwd_time_s"), 1e-12);
        assertEquals(65536.0, metric(p, "loss_scale"));
        assertEquals(0.0, metric(p, "skipped_steps"));
    }

    @Test
    void internlm4TgsStatisticsAndTwoGroupGradNorm() {
        ParsedLog p = Samples.parse(parser, "internlm-4.log");
        // the tgs/* running statistics (tgs/last_tgs_1=965.37 ...) must not be taken for tgs
        // steps 0..5; drop step 0 (tgs 246.32); second half steps 3,4,5: 1025.42, 1024.85, 1016.03 -> 1024.85
        // step 1: 965.36 is 5.8% below -> warm-up; step 2: 1024.65 -> settled
        assertEquals(4, p.steadySteps());
        // tgs of steps 2..5: 1024.65, 1025.42, 1024.85, 1016.03 -> (1024.65 + 1024.85) / 2 = 1024.75
        assertEquals(1024.75, metric(p, "tokens_per_gpu_per_s"), 1e-9);
        // tflops of steps 2..5: 127.0218, 127.1170, 127.0467, 125.9524 -> (127.02177898638753 + 127.046731454726) / 2
        assertEquals((127.02177898638753 + 127.046731454726) / 2, metric(p, "tflops_per_gpu"), 1e-9);
        // fwd_bwd of steps 2..5: 3.43, 3.44, 3.44, 3.48 -> 3.44
        assertEquals(3.44, metric(p, "fwd_bwd_time_s"), 1e-12);
        // num_consumed_tokens 65536, 131072, ... -> 65536 per step
        assertEquals(65536.0, p.extra().get("tokens_per_step"));
    }

    // Lines below are built from the formats of docs/logs.md (InternLM / InternEvo) (prefixes and keys as documented); the numbers
    // are made up for the test.

    @Test
    void deepLinkPrefixRealTgsMoeGradNormAndSkippedSteps() {
        String prefix = "INFO [record_metrics.py, line 341, in record_current_batch_training_metrics] - pid=293 : ";
        StringBuilder log = new StringBuilder();
        for (int step = 0; step < 6; step++) {
            if (step == 3) {
                log.append("2024-08-01 10:00:03,000\tWARNING train.py:99 in main -- Warning: skip parameter update at step 3.\n");
                continue;
            }
            double tgs = step == 0 ? 900 : 3000 + step;
            log.append(prefix).append("tflops=").append(step == 0 ? 50 : 150 + step)
                    .append(" step=").append(step).append(" loss=2.5 real_tgs=").append(tgs - 100)
                    .append(" tgs (tokens/gpu/second)=").append(tgs)
                    .append(" tgs/last_tgs_1=1.0 tgs/tgs_all=2.0 lr=1e-05 loss_scale=32768.0")
                    .append(" grad_norm={'0_default': 1.5, '1_fp32': 0.0, '2_moe_ep_size_4': 2.25} moe_loss=0.01")
                    .append(" micro_num=8 num_consumed_tokens=").append(1048576L * (step + 1))
                    .append(" inf_nan_skip_batches=").append(step > 3 ? 1 : 0)
                    .append(" fwd_bwd_time=4.5 bwd_time=3.0 acc=0.5 \n");
        }
        ParsedLog p = parser.parse(log.toString());
        assertEquals("internevo", p.format());
        assertEquals(6, p.steps(), "5 metric lines and the skipped step 3");
        // metric steps 0,1,2,4,5 (n=5): drop step 0; steady 1,2,4,5: tgs 3001, 3002, 3004, 3005 -> 3003
        assertEquals(4, p.steadySteps());
        assertEquals(3003.0, metric(p, "tokens_per_gpu_per_s"), 1e-9);
        assertEquals(2903.0, (Double) p.extra().get("real_tokens_per_gpu_per_s"), 1e-9);
        assertEquals(153.0, metric(p, "tflops_per_gpu"), 1e-9);     // 151, 152, 154, 155 -> 153
        assertEquals(1.0, metric(p, "skipped_steps"), "one skip line, and inf_nan_skip_batches reaches 1");
        assertEquals(6.0, metric(p, "steps"));
        assertEquals(32768.0, metric(p, "loss_scale"));
        assertEquals(8, p.config().get("training.micro_batches"));
        assertEquals(4.5, metric(p, "fwd_bwd_time_s"));
    }

    @Test
    void standardLoggerWithSpacesInsteadOfTab() {
        String line = "2024-03-21 14:48:31,587      INFO pipeline.py:463 in record_current_batch_training_metrics -- "
                + "tflops=186.6 step=%d loss=2.0 tgs (tokens/gpu/second)=3917.95 lr=3e-4 loss_scale=65536.0 "
                + "grad_norm={'0_default': 0.9} micro_num=4 num_consumed_tokens=262144 inf_nan_skip_batches=0 fwd_bwd_time=3.9 \n";
        ParsedLog p = parser.parse(String.format(line, 0) + String.format(line, 1) + String.format(line, 1));
        assertEquals(2, p.steps(), "the duplicate step 1 (another rank) is merged");
        assertEquals(3917.95, metric(p, "tokens_per_gpu_per_s"));
    }

    @Test
    void notAnInternEvoLog() {
        assertEquals(0.0, parser.confidence("iteration 10/100 | elapsed time per iteration (ms): 1.0 |\n"));
        ParsedLog p = parser.parse("hello\nworld\n");
        assertEquals(0, p.steps());
        assertTrue(p.metrics().isEmpty());
    }
}
