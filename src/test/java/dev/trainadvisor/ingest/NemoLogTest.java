package dev.trainadvisor.ingest;

import org.junit.jupiter.api.Test;

import java.time.LocalDate;

import static dev.trainadvisor.ingest.Samples.metric;
import static org.junit.jupiter.api.Assertions.*;

/**
 * NeMo. No NeMo log is in shared/samples/logs; the lines below are built from the formats the NeMo code prints them in:
 * ProgressPrinter's {@code format_string} (nemo/lightning/pytorch/callbacks/progress_printer.py: the prefix
 * {@code Training epoch E, iteration n/N}, then {@code " | name: value"}, floats to four significant digits),
 * MegatronProgressBar's {@code bar_format} (progress_bar.py: tqdm without {@code s/it}, the metrics in the postfix, as
 * a NeMo 1.x GPT run printed it: {@code 5/300000 [02:16<2281:40:05, v_num=0, reduced_train_loss=11.00,
 * global_step=4.000, consumed_samples=960.0, train_step_timing in s=10.40, val_loss=11.00]}) and NeMo's logger and
 * megatron_init lines ({@code [NeMo I 2023-09-25 08:43:12 megatron_init:257] Rank 0 has tensor model parallel group:
 * [0]}); the times are made up, and every expected value is worked out by hand beside it.
 */
class NemoLogTest {

    static final String HEADER = """
            [NeMo I 2024-11-05 10:01:02 nemo_logging:393] Experiments will be logged at /results/llama3_8b
            [NeMo I 2024-11-05 10:01:40 megatron_init:314] Rank 0 has data parallel group : [0, 4]
            [NeMo I 2024-11-05 10:01:40 megatron_init:320] All data parallel group ranks with context parallel combined: [[0, 4], [1, 5], [2, 6], [3, 7]]
            [NeMo I 2024-11-05 10:01:40 megatron_init:345] Rank 0 has tensor model parallel group: [0, 1, 2, 3]
            [NeMo I 2024-11-05 10:01:40 megatron_init:349] All tensor model parallel group ranks: [[0, 1, 2, 3], [4, 5, 6, 7]]
            [NeMo I 2024-11-05 10:01:40 megatron_init:380] Rank 0 has pipeline model parallel group: [0]
            [NeMo I 2024-11-05 10:01:40 megatron_init:410] Rank 0 has context parallel group: [0]
            [NeMo I 2024-11-05 10:01:41 num_microbatches_calculator:228] setting number of micro-batches to constant 32
            LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0,1,2,3,4,5,6,7]
            """;

    /** ProgressPrinter's line at step {@code n} of 12, as format_string writes it. */
    static String printed(int n, String seconds, String tflops) {
        return "Training epoch 0, iteration " + n + "/12 | lr: 1.5e-05 | global_batch_size: 64 | global_step: " + n
                + " | reduced_train_loss: 11.03 | train_step_timing in s: " + seconds + " | consumed_samples: " + (64 * n)
                + " | TFLOPS_per_GPU: " + tflops + "\n";
    }

    static final String[] SECONDS = {"30.12", "4.01", "4.02", "3.99", "4", "4.03", "3.98", "4", "4.01", "3.99", "4", "4.02"};

    static String printerLog(String header) {
        StringBuilder b = new StringBuilder(header);
        for (int n = 1; n <= 12; n++) b.append(printed(n, SECONDS[n - 1], n == 1 ? "41.3" : "250"));
        return b.toString();
    }

    /**
     * Rank 0's groups show how the ranks were numbered: tp 2, pp 2, dp 2 on 8 GPUs in Megatron-Core's default order
     * (tp-cp-ep-dp-pp) give data [0, 2] and pipeline [0, 4], the stages outermost; with use_tp_pp_dp_mapping
     * (tp-cp-ep-pp-dp) data [0, 4] and pipeline [0, 2]. A group of one says nothing of the order.
     */
    @Test
    void theGroupsSayHowTheRanksAreNumbered() {
        String groups = """
                [NeMo I 2024-11-05 10:01:40 megatron_init:314] Rank 0 has data parallel group : [0, %s]
                [NeMo I 2024-11-05 10:01:40 megatron_init:345] Rank 0 has tensor model parallel group: [0, 1]
                [NeMo I 2024-11-05 10:01:40 megatron_init:380] Rank 0 has pipeline model parallel group: [0, %s]
                [NeMo I 2024-11-05 10:01:40 megatron_init:410] Rank 0 has context parallel group: [0]
                """;
        ParsedLog stages = LogFormats.detectAndParse(printerLog(String.format(groups, 2, 4)), "nemo.log");
        assertEquals(2, stages.config().get("parallel.pp"));
        assertEquals(2, stages.config().get("parallel.dp"));
        assertEquals("tp-cp-dp-pp", stages.config().get("parallel.rank_order"));
        ParsedLog replicas = LogFormats.detectAndParse(printerLog(String.format(groups, 4, 2)), "nemo.log");
        assertEquals("tp-cp-pp-dp", replicas.config().get("parallel.rank_order"));
        assertNull(LogFormats.detectAndParse(printerLog(HEADER), "nemo.log").config().get("parallel.rank_order"),
                "pipeline group [0]");
    }

    @Test
    void progressPrinterLinesGiveTheStepTimeTheLayoutAndTheDay() {
        String log = printerLog(HEADER);
        // Megatron-LM's parser also claims "iteration n/N | ..." lines (0.9), Lightning its banner (0.92): NeMo's are NeMo's
        ParsedLog p = LogFormats.detectAndParse(log, "nemo.log");
        assertEquals("nemo", p.format());
        assertEquals(12, p.steps());
        // steps 2-12 after the 30 s first step: 3.98 3.99 3.99 4.00 4.00 4.00 4.01 4.01 4.02 4.02 4.03, the median 4.00
        // (and 4.00 again if the warm-up rule also leaves out step 2: the middle pair of the other ten is 4.00, 4.00)
        assertEquals(4.00, metric(p, "step_time_s"), 1e-12);
        assertEquals(250.0, metric(p, "tflops_per_gpu"), 1e-12, "FLOPsMeasurementCallback's TFLOPS_per_GPU");
        // printed on 2024-11-05, before 6251117 (2025-08-09) began counting causal attention at half
        assertEquals(LocalDate.of(2024, 11, 5), p.printedOn());
        assertEquals("megatron-legacy", p.tflopsConvention());
        // rank 0's groups: tensor [0, 1, 2, 3] -> 4, pipeline [0] -> 1, data [0, 4] -> 2, context [0] -> 1
        assertEquals(4, p.config().get("parallel.tp"));
        assertEquals(1, p.config().get("parallel.pp"));
        assertEquals(2, p.config().get("parallel.dp"));
        assertEquals(1, p.config().get("parallel.cp"));
        assertEquals(64, p.config().get("training.global_batch_size"));
        assertEquals(32, p.config().get("training.micro_batches"), "64 sequences / (1 a micro-batch x dp 2)");
        assertEquals(11.03, p.history().loss()[11], 1e-12, "reduced_train_loss of step 12");
        assertEquals(1.5e-5, p.history().learningRate()[11], 1e-18);
        assertEquals(4.02, p.history().stepTimeS()[11], 1e-12);
        assertTrue(p.warnings().isEmpty(), p.warnings().toString());
    }

    @Test
    void aLogIntervalAveragesAndTheDayChoosesTheTflopsCount() {
        // log_interval 10: each line the mean of the ten steps before it; printed on 2025-09-02, after 6251117
        StringBuilder b = new StringBuilder("[NeMo I 2025-09-02 08:00:00 nemo_logging:393] Experiments will be logged at /r\n");
        String[] means = {"9.5", "2.5", "2.51", "2.49", "2.5", "2.52", "2.48", "2.5", "2.5", "2.51"};
        for (int k = 1; k <= 10; k++)
            b.append("Training epoch 0, iteration ").append(10 * k).append("/100 | global_step: ").append(10 * k)
                    .append(" | train_step_timing in s: ").append(means[k - 1]).append(" | TFLOPS_per_GPU: 400\n");
        ParsedLog p = new NemoLog().parse(b.toString());
        assertEquals(100.0, metric(p, "steps"), "the last step");
        // the lines after the first: 2.48 2.49 2.5 2.5 2.5 2.5 2.51 2.51 2.52 -> 2.5
        assertEquals(2.5, metric(p, "step_time_s"), 1e-12);
        assertEquals(LocalDate.of(2025, 9, 2), p.printedOn());
        assertEquals("megatron", p.tflopsConvention());
    }

    @Test
    void megatronProgressBarRefreshesGiveEachStepsTime() {
        // the bar refreshes in place: carriage returns, one refresh per step, a checkpoint message after the bracket
        StringBuilder b = new StringBuilder("LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0,1,2,3,4,5,6,7]\n");
        String[] t = {"68.75", "10.4", "10.38", "10.41", "10.4", "10.42", "10.39", "10.4"};
        for (int n = 1; n <= 8; n++)
            b.append("Epoch 0: :   0%|          | ").append(n).append("/300000 [0").append(n).append(":16<2281:40:05, v_num=0, ")
                    .append("reduced_train_loss=11.00, global_step=").append(n - 1).append(".000, consumed_samples=")
                    .append(192 * n).append(".0, train_step_timing in s=").append(t[n - 1]).append("]")
                    .append(n == 5 ? "Epoch 0, global step 5: 'val_loss' reached 10.95736 (best 10.95736), saving model" : "")
                    .append('\r');
        b.append('\n');
        ParsedLog p = LogFormats.detectAndParse(b.toString(), "bar.log");
        assertEquals("nemo", p.format(), "not Lightning's: its bar has no rate, its metrics are NeMo's");
        assertEquals(8, p.steps());
        // steps 2-8: 10.38 10.39 10.4 10.4 10.4 10.41 10.42 -> 10.4
        assertEquals(10.4, metric(p, "step_time_s"), 1e-12);
        assertNull(p.printedOn(), "no dated line");
        // no global batch printed: consumed_samples grows by 192 a step (192 x n printed at step n)
        assertEquals(192, p.config().get("training.global_batch_size"));
        assertNull(p.tflopsConvention(), "no TFLOPS printed, no convention kept");
        assertTrue(p.warnings().stream().anyMatch(w -> w.contains("NeMo 1.x and NeMo 2.0 alike")), p.warnings().toString());
    }

    @Test
    void nemoLinesWithoutTrainingLinesAreNotClaimedOverOtherFormats() {
        NemoLog parser = new NemoLog();
        assertEquals(0.55, parser.confidence(HEADER), 1e-12, "NeMo's logger lines alone: barely");
        // an old NeMo 1.x log, before MegatronProgressBar (PR 7374): Lightning's bar with a rate, read as Lightning's
        String old = HEADER + "Epoch 0:   5%| | 3225/60082 [1:20:11<23:33:44,  1.49s/it, loss=0.722, v_num=u5g0, "
                + "reduced_train_loss=0.719, global_step=2174.0]\n";
        assertEquals("lightning", LogFormats.detect(LogSource.of(old, "old.log")).format());
        assertEquals(0.0, parser.confidence("iteration 10/100 | consumed samples: 640 | elapsed time per iteration (ms): 2500.1\n"));
    }
}
