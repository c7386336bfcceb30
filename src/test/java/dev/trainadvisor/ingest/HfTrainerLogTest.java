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

    // The final dict as docs/logs.md (Hugging Face Trainer) quotes it, LLaMA-Factory's quoted variant, tqdm noise and the
    // metrics block (format from trainer_pt_utils.metrics_format; numbers made up).

    @Test
    void finalDictWithTqdmNoise() {
        String log = "{'loss': 2.1, 'learning_rate': 1e-05, 'epoch': 0.5}\n"
                + " 50%|#####     | 1/2 [00:02<00:02,  2.00s/it]\r100%|##########| 2/2 [00:04<00:00,  2.00s/it]"
                + "{'train_runtime': 5.8012, 'train_samples_per_second': 1.207, 'train_steps_per_second': 1.207, 'train_loss': 2.129377910069057, 'epoch': 1.0}\n";
        ParsedLog p = parser.parse(log);
        // the bar's two refreshes are two steps of 2.00 s each (tqdm's average undone: 0.3 x 2 = 0.6, then
        // (0.51 x 2 - 0.7 x 0.6) / 0.3 = 2.0; 4 s in all, its elapsed 00:04); the whole-run average is not the step
        assertEquals(2, p.steps());
        assertEquals(2.0, metric(p, "step_time_s"), 1e-9);
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

    /**
     * tqdm as it prints, simulated here from its source (tqdm/std.py update: a refresh when mininterval 0.1 s has
     * passed; tqdm/utils.py EMA with smoothing 0.3, corrected by 1 - 0.7^k; the rate printed with two decimals, in
     * s/it below one a second): the step times given are what the parser gives back.
     */
    @Test
    void theBarsSmoothedRateIsUndoneIntoEachStepsSeconds() {
        double[] dt = new double[40];
        for (int i = 0; i < dt.length; i++) dt[i] = i == 0 ? 3.0 : i % 10 == 0 ? 12.5 : 0.8 + 0.01 * (i % 3);
        StringBuilder log = new StringBuilder("  0%|          | 0/40 [00:00<?, ?it/s]");
        double emaDn = 0, emaDt = 0, t = 0;
        for (int i = 0; i < dt.length; i++) {
            t += dt[i];
            emaDn = 0.3 + 0.7 * emaDn;
            emaDt = 0.3 * dt[i] + 0.7 * emaDt;
            double spi = emaDt / emaDn;
            String rate = spi > 1 ? String.format(java.util.Locale.ROOT, "%5.2fs/it", spi)
                    : String.format(java.util.Locale.ROOT, "%5.2fit/s", 1 / spi);
            log.append(String.format(java.util.Locale.ROOT, "\r %d%%|#   | %d/40 [%02d:%02d<00:10, %s]", (i + 1) * 100 / 40,
                    i + 1, (int) t / 60, (int) t % 60, rate));
            if (i % 5 == 4) log.append("\r          \r{'loss': 2.1, 'learning_rate': 1e-05, 'epoch': 0.5}\n");
        }
        ParsedLog p = parser.parse(log.toString());
        assertEquals(40, p.steps());
        var h = p.history();
        double[] got = h.stepTimeS();
        for (int i = 1; i < dt.length; i++)
            // two decimals of a rate near 1.2 it/s are 0.4% of it, and undoing the average multiplies that by
            // (1 + 0.7) / 0.3: 2.4% at worst; after a stall the two decimals are of an average of seconds
            // (3.7 s/it), 0.005 x 1.7 / 0.3 = 0.03 s
            assertEquals(dt[i], got[i], Math.max(0.025 * dt[i], 0.035), "step " + (i + 1));
        // the steady pace is the steps', not the stalls' (0.80-0.82 s)
        assertEquals(0.81, metric(p, "step_time_s"), 0.011);
        assertTrue(p.warnings().stream().anyMatch(w -> w.contains("no final train_runtime summary")), p.warnings().toString());
    }

    /** The H200 Trainer runs (bench/h200_trainer_logs.py): each log's steady step against the callback's. */
    @Test
    void theH200TrainerLogsAreReadAtTheirTrueSteadyStep() throws java.io.IOException {
        java.nio.file.Path dir = java.nio.file.Path.of("src/test/resources/logs/h200-trainer");
        var summary = new com.fasterxml.jackson.databind.ObjectMapper().readTree(dir.resolve("summary.json").toFile()).get("runs");
        int n = 0;
        for (String run : java.util.List.of("plain", "compiled", "checkpoint", "killed", "batch1", "eager", "slowdata", "fp32",
                "adamw", "batch2", "trl")) {
            double truth = summary.get(run).get("steady_step_s").asDouble();
            ParsedLog p = parser.parse(java.nio.file.Files.readString(dir.resolve(run + ".log")));
            assertEquals("hf-trainer".equals(p.format()), true);
            assertEquals(truth, metric(p, "step_time_s"), 0.05 * truth, run);
            boolean killed = summary.get(run).get("exit_code").asInt() != 0;
            assertEquals(killed, p.warnings().stream().anyMatch(w -> w.contains("no final train_runtime summary")), run);
            n++;
        }
        assertEquals(11, n);
        // with log_level="info" the Trainer says where it saved: checkpoint-10 ... checkpoint-60, events of the history;
        // at the default level (checkpoint.log) it says nothing
        ParsedLog saves = parser.parse(java.nio.file.Files.readString(dir.resolve("checkpoint60.log")));
        assertEquals(java.util.Set.of(10L, 20L, 30L, 40L, 50L, 60L),
                saves.history().stepsOf(dev.trainadvisor.history.StepHistory.Kind.CHECKPOINT));
        assertTrue(parser.parse(java.nio.file.Files.readString(dir.resolve("checkpoint.log"))).history().events().isEmpty());
        // TRL's SFTTrainer adds entropy, num_tokens and mean_token_accuracy to the Trainer's dicts: all 30 steps read
        ParsedLog trl = parser.parse(java.nio.file.Files.readString(dir.resolve("trl.log")));
        assertEquals(30, trl.history().stepTimeS().length);
        // the checkpoint saves, 12.84 and 16.55 s in the callback's times, are steps 11 and 21 of the history
        ParsedLog c = parser.parse(java.nio.file.Files.readString(dir.resolve("checkpoint.log")));
        double[] s = c.history().stepTimeS();
        assertEquals(12.838, s[10], 0.02 * 12.838);
        assertEquals(16.55, s[20], 0.02 * 16.55);
    }
}
