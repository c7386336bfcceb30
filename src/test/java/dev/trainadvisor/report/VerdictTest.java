package dev.trainadvisor.report;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The headline of a run whose measurements cannot be right says by how much, and against what. */
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

    /**
     * A check that compares two measurements says what it compared: megatron-1.log read as Mixtral 8x7B at 4096 tokens
     * (the log prints no sequence length) printed 237.9 TFLOPS where its tokens/s times Megatron's count give 495.
     */
    @Test
    void eachCheckSaysWhatItComparedWith() {
        AdviceView.CheckView printed = new AdviceView.CheckView("printed-tflops-mismatch", "tflops_per_gpu", 237.9, 495,
                237.9 / 495);
        assertEquals("The run's measurements cannot be right (tflops_per_gpu is 0.481x what the measured tokens/s times the"
                + " framework's own FLOPs per token give), so the model was not fitted to them.",
                AdviceView.verdict(null, null, List.of(printed), List.of(), List.of()));
        AdviceView.CheckView timer = new AdviceView.CheckView("timer-exceeds-step", "fwd_bwd_time_s", 6.6, 6, 1.1);
        assertEquals("fwd_bwd_time_s is 1.1x the step it is part of", timer.sentence());
        AdviceView.CheckView step = new AdviceView.CheckView("step-below-peak-compute", "step_time_s", 0.5, 0.8, 0.625);
        assertEquals("step_time_s is 0.625x the least its FLOPs take at the GPU's peak", step.sentence());
    }
}
