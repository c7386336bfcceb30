package dev.trainadvisor.report;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The headline of a run whose measurements cannot be right says by how much they exceed the hardware. */
class VerdictTest {
    @Test
    void anImplausibleRunsHeadlineSaysByHowMuch() {
        // torchtitan-2.log read as Llama-2-7B at 2048 tokens on A100s: an MFU of 100.379%, just over the peak
        AdviceView.CheckView mfu = new AdviceView.CheckView("mfu-above-peak", "tokens_per_gpu_per_s", 1.00379, 1, 1.00379);
        assertEquals("The run's measurements cannot be right (tokens_per_gpu_per_s is 1.004x what the hardware allows), so"
                + " the model was not fitted to them.", AdviceView.verdict(null, null, List.of(mfu), List.of(), List.of()));
        AdviceView.CheckView tflops = new AdviceView.CheckView("mfu-above-peak", "tflops_per_gpu", 3.83, 1, 3.8312);
        assertEquals("The run's measurements cannot be right (tflops_per_gpu is 3.83x what the hardware allows), so the"
                + " model was not fitted to them.", AdviceView.verdict(null, null, List.of(tflops), List.of(), List.of()));
    }
}
