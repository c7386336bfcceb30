package dev.trainadvisor.ingest;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static dev.trainadvisor.ingest.Samples.metric;
import static org.junit.jupiter.api.Assertions.*;

/** PyTorch Lightning logs: the H200 run's Rich bar, and a TQDMProgressBar as tqdm prints it, epoch by epoch. */
class LightningLogTest {
    final LightningLog parser = new LightningLog();

    @Test
    void theH200LightningRunIsReadAtItsSteadyStep() throws Exception {
        String log = Files.readString(Path.of("src/test/resources/logs/h200-trainer/lightning.log"));
        assertEquals("lightning", LogFormats.detectAndParse(log, "lightning.log").format());
        ParsedLog p = parser.parse(log);
        // "Epoch 0/-2 ━━━ 30/30 0:00:06 • 0:00:00 5.47it/s": 1 / 5.47 s a step, against 0.18284 s the callback timed
        assertEquals(1 / 5.47, metric(p, "step_time_s"), 1e-9);
        assertEquals(0.18284, metric(p, "step_time_s"), 0.05 * 0.18284);
        assertEquals(30.0, metric(p, "steps"));
        assertEquals("bf16", p.config().get("training.precision"), "Using bfloat16 Automatic Mixed Precision (AMP)");
    }

    @Test
    void aTqdmBarPerEpochIsOneRunOfSteps() {
        // two epochs of 5 steps, 0.5 s each but the fourth of each epoch 2 s; Lightning's bar prints the rate since it
        // started (smoothing=0: n / elapsed), with two decimals, then again with its postfix; restarted for the second
        StringBuilder log = new StringBuilder("GPU available: True (cuda), used: True\nLOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0]\n");
        for (int epoch = 0; epoch < 2; epoch++) {
            double t = 0;
            for (int i = 1; i <= 5; i++) {
                t += i == 4 ? 2.0 : 0.5;
                String bar = String.format(java.util.Locale.ROOT, "\rEpoch %d:  %d%%|##  | %d/5 [00:%02d<00:02, %.2fit/s",
                        epoch, i * 20, i, (int) t, i / t);
                log.append(bar).append("]").append(bar).append(", v_num=0, loss=10.8]");
            }
            log.append('\n');
        }
        log.append("`Trainer.fit` stopped: `max_epochs=2` reached.\n");
        ParsedLog p = parser.parse(log.toString());
        assertEquals(10.0, metric(p, "steps"), "the second epoch's steps follow the first's");
        assertEquals(0.5, metric(p, "step_time_s"), 0.01);
        double[] s = p.history().stepTimeS();
        assertEquals(2.0, s[3], 0.03, "the slow step of the first epoch");
        assertEquals(2.0, s[8], 0.03, "and of the second");
    }

    @Test
    void theH200LightningRunWithItsTqdmBarIsReadAtItsSteadyStep() throws Exception {
        String log = Files.readString(Path.of("src/test/resources/logs/h200-trainer/lightning_tqdm.log"));
        ParsedLog p = parser.parse(log);
        double truth = new com.fasterxml.jackson.databind.ObjectMapper().readTree(
                Path.of("src/test/resources/logs/h200-trainer/lightning_tqdm.truth.json").toFile()).get("steady_step_s").asDouble();
        assertEquals(truth, metric(p, "step_time_s"), 0.05 * truth);
        assertEquals(30.0, metric(p, "steps"));
    }

    /**
     * Trainer(profiler="simple") ends the log with its report: [_TrainingEpochLoop].train_dataloader_next's mean, 0.061865
     * s over 30 calls with samples of 15 ms and no workers (4 x 15 = 60 ms a batch), 0.00053219 with fast ones, kept as the
     * history's mean batch-generator timer; a log without the report has none.
     */
    @Test
    void theSimpleProfilersWaitForTheNextBatchIsKept() throws Exception {
        Path dir = Path.of("src/test/resources/logs/h200-trainer");
        var slow = parser.parse(Files.readString(dir.resolve("lightning_profiled_slowdata.log"))).history()
                .meanTimer(dev.trainadvisor.history.StepHistory.BATCH_GENERATOR);
        assertEquals(0.061865, slow.meanS(), 1e-9);
        assertEquals(30, slow.calls());
        assertEquals("Lightning's SimpleProfiler, [_TrainingEpochLoop].train_dataloader_next", slow.source());
        assertEquals(0.00053219, parser.parse(Files.readString(dir.resolve("lightning_profiled.log"))).history()
                .meanTimer(dev.trainadvisor.history.StepHistory.BATCH_GENERATOR).meanS(), 1e-12);
        assertNull(parser.parse(Files.readString(dir.resolve("lightning.log"))).history()
                .meanTimer(dev.trainadvisor.history.StepHistory.BATCH_GENERATOR));
    }
}
