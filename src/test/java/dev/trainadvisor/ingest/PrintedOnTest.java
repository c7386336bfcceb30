package dev.trainadvisor.ingest;

import org.junit.jupiter.api.Test;

import java.time.LocalDate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The day a log was printed (ParsedLog.printedOn): its first timestamped step line's date, read off the sample logs'
 * own lines (each date below is the one the file's first step line prints), and none where no step line has a dated
 * time: that day bounds which version of its framework can have written the log.
 */
class PrintedOnTest {

    @Test
    void theFirstStepLinesDayInEachLoggersFormat() {
        // torchtitan: "[rank0]:[titan] 2025-06-16 22:30:50,322 - root - INFO - step: 200 ..."
        assertEquals(LocalDate.of(2025, 6, 16), Samples.parse(new TorchtitanLog(), "torchtitan-1.log").printedOn());
        assertEquals(LocalDate.of(2026, 5, 18), Samples.parse(new TorchtitanLog(), "torchtitan-2.log").printedOn());
        // InternLM's logger: "2023-07-07 12:28:57,802\tINFO train.py:323 ...", and uniscale's ISO time with its offset
        assertEquals(LocalDate.of(2023, 7, 7), Samples.parse(new InternEvoLog(), "internlm-1.log").printedOn());
        assertEquals(LocalDate.of(2023, 9, 5), Samples.parse(new InternEvoLog(), "internlm-3.log").printedOn());
        // Megatron with --log-throughput: " [2024-04-06 02:55:45] iteration        2/     100 | ..."
        assertEquals(LocalDate.of(2024, 4, 6), Samples.parse(new MegatronLog(), "megatron-1.log").printedOn());
        // DeepSpeed: "[2024-04-21 02:45:24,651] [INFO] [logging.py:96:log_dist] [Rank 0] step=2, ..."
        assertEquals(LocalDate.of(2024, 4, 21), Samples.parse(new DeepSpeedLog(), "deepspeed-1.log").printedOn());
        // nanotron up to 2024: "01/17/2024 13:47:27 [INFO|DP=0|PP=0|TP=0|...]: iteration: 991 / 1000 | ..."
        assertEquals(LocalDate.of(2024, 1, 17), Samples.parse(new NanotronLog(), "nanotron-1.log").printedOn());
    }

    @Test
    void noDayWhereNoStepLineCarriesADatedTime() {
        // Megatron before 2024 prints no time; the Trainer's dicts none; Megatron-DeepSpeed's iteration lines none
        assertNull(Samples.parse(new MegatronLog(), "megatron-2.log").printedOn());
        assertNull(Samples.parse(new HfTrainerLog(), "hf-trainer-1.log").printedOn());
        assertNull(Samples.parse(new MegatronDeepSpeedLog(), "megatron-deepspeed-1.log").printedOn());
        // nanotron since 2025 prints the month and day without the year: a time, but no day of a known year
        String yearless = """
                01/17 13:47:27 [INFO|DP=0|PP=0|TP=0|ip-26-0-160-225]: iteration: 991 / 1000 | consumed_tokens: 634K | elapsed_time_per_iteration_ms: 45.2 | tokens_per_sec: 14.2K | tokens_per_sec_per_gpu: 1.77K | global_batch_size: 20 | lm_loss: 6.12 | lr: 0.0003 | model_tflops_per_gpu: 0.01 | hardware_tflops_per_gpu: 0.01 | grad_norm: 0.5
                01/17 13:47:28 [INFO|DP=0|PP=0|TP=0|ip-26-0-160-225]: iteration: 992 / 1000 | consumed_tokens: 635K | elapsed_time_per_iteration_ms: 41.0 | tokens_per_sec: 15.6K | tokens_per_sec_per_gpu: 1.95K | global_batch_size: 20 | lm_loss: 6.10 | lr: 0.0003 | model_tflops_per_gpu: 0.01 | hardware_tflops_per_gpu: 0.01 | grad_norm: 0.5
                """;
        ParsedLog p = new NanotronLog().parse(yearless);
        assertEquals(2, p.steps());
        assertNull(p.printedOn());
    }
}
