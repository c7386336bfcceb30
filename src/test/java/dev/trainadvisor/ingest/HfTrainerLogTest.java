package dev.trainadvisor.ingest;

import org.junit.jupiter.api.Test;

import static dev.trainadvisor.ingest.Samples.metric;
import static org.junit.jupiter.api.Assertions.*;

/** Hugging Face Trainer samples, values read by hand; the final dict in its variants. */
class HfTrainerLogTest {
    final HfTrainerLog parser = new HfTrainerLog();

    @Test
    void hfTrainer1StepDicts() {
        ParsedLog p = Samples.parse(parser, "hf-trainer-1.log");
        // five {'loss': ..., 'grad_norm': ..., 'learning_rate': ..., 'epoch': ...} lines, epochs 1.25 .. 1.32
        assertEquals(5, p.steps());
        assertEquals(0, p.steadySteps(), "no per-step timing in Trainer logs");
        assertEquals(5, p.extra().get("logged_steps"));
        assertEquals(1.32, p.extra().get("last_epoch"));
        assertTrue(p.metrics().isEmpty(), "no final dict: nothing in run-file terms");
        assertNull(p.tflopsConvention());
    }

    // The final dict as log-formats.md section 5.3 quotes it, LLaMA-Factory's quoted variant, tqdm noise and the
    // metrics block (format from trainer_pt_utils.metrics_format; numbers made up).

    @Test
    void finalDictWithTqdmNoise() {
        String log = "{'loss': 2.1, 'learning_rate': 1e-05, 'epoch': 0.5}\n"
                + " 50%|#####     | 1/2 [00:02<00:02,  2.00s/it]\r100%|##########| 2/2 [00:04<00:00,  2.00s/it]"
                + "{'train_runtime': 5.8012, 'train_samples_per_second': 1.207, 'train_steps_per_second': 1.207, 'train_loss': 2.129377910069057, 'epoch': 1.0}\n";
        ParsedLog p = parser.parse(log);
        assertEquals(1, p.steps());
        assertEquals(1 / 1.207, metric(p, "step_time_s"), 1e-12);
        assertEquals(7.0, metric(p, "steps"), "round(5.8012 x 1.207) = round(7.002)");
        assertEquals(5.8012, p.extra().get("train_runtime_s"));
        assertEquals(1.207, p.extra().get("train_samples_per_s"));
        assertFalse(p.metrics().containsKey("tflops_per_gpu"));
    }

    @Test
    void quotedValuesOfLlamaFactory() {
        String log = "{'train_runtime': '2219', 'train_samples_per_second': '3.5', 'train_steps_per_second': '0.11'}\n";
        assertTrue(parser.confidence(log) >= 0.5);
        ParsedLog p = parser.parse(log);
        assertEquals(2219.0, p.extra().get("train_runtime_s"));
        assertEquals(244.0, metric(p, "steps"), "round(2219 x 0.11) = round(244.09)");
    }

    @Test
    void metricsBlock() {
        String log = """
                ***** train metrics *****
                  epoch                    =        1.0
                  total_flos               =     1234GF
                  train_loss               =     2.1294
                  train_runtime            = 0:01:05.80
                  train_samples_per_second =      1.207
                  train_steps_per_second   =       0.15
                """;
        ParsedLog p = LogFormats.detectAndParse(log, "m.log");
        assertEquals("hf-trainer", p.format());
        assertEquals(65.8, (Double) p.extra().get("train_runtime_s"), 1e-9, "0:01:05.80");
        assertEquals(1 / 0.15, metric(p, "step_time_s"), 1e-9);
        assertEquals(10.0, metric(p, "steps"), "round(65.8 x 0.15) = round(9.87)");
    }

    @Test
    void trainerOnDeepSpeedIsATrainerLog() {
        String log = "[2024-05-01 10:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 0] step=10, skipped=0, lr=[1e-05], mom=[(0.9, 0.999)]\n"
                + "[2024-05-01 10:00:00,001] [INFO] [timer.py:260:stop] epoch=0/micro_step=10/global_step=10, RunningAvgSamplesPerSec=12.5, CurrSamplesPerSec=12.4, MemAllocated=3.1GB, MaxMemAllocated=9.8GB\n"
                + "{'loss': 1.2, 'learning_rate': 1e-05, 'epoch': 0.1}\n"
                + "{'train_runtime': 100.0, 'train_samples_per_second': 8.0, 'train_steps_per_second': 0.5, 'epoch': 1.0}\n";
        assertEquals("hf-trainer", LogFormats.detectAndParse(log, "t.log").format());
    }
}
