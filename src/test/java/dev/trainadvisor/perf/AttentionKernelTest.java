package dev.trainadvisor.perf;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainadvisor.spec.AttentionKernel;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.SpecReader;
import dev.trainadvisor.spec.SpecWriter;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** training.attention_kernel: which fused attention kernel times the attention core. */
class AttentionKernelTest {

    static RunSpec read(String preset, Map<String, Object> extraTraining) {
        Map<String, Object> training = new LinkedHashMap<>(Map.of("seq_len", 8192, "micro_batch_size", 1));
        training.putAll(extraTraining);
        return new SpecReader().read(new ObjectMapper().valueToTree(Map.of(
                "cluster", Map.of("preset", preset), "model", "llama-2-7b", "training", training)), "run.json");
    }

    @Test
    void theAttentionCoreRunsAtTheCataloguedFa2RateTimesTheInStepFraction() {
        RunSpec s = read("dgx-a100-80gb", Map.of());
        assertEquals(AttentionKernel.FA2, s.run().training().attentionKernel());
        ComputeTime c = StepModel.predict(s.cluster(), s.run()).compute();
        // Llama-2-7B: 32 layers, h 4096. Attention core per token per layer, forward: QK^T and AV, 2 x 2 x s x h
        // = 4 x 8192 x 4096 FLOPs, half of it under the causal mask. Forward + backward = 3 x forward.
        // 8192 tokens per micro-batch; A100 bf16 peak 312 TFLOPS; FlashAttention-2 at 0.50 of peak (catalogue: no
        // measured curve for Ampere) times the in-step fraction 0.85: 132.6 TFLOPS.
        double flops = 3 * 8192.0 * 32 * 4 * 8192 * 4096 * 0.5;
        double seconds = flops / (312e12 * 0.50 * 0.85);
        assertEquals(seconds, c.attentionSeconds(), seconds * 1e-9);
        assertEquals(0.3980, seconds, 1e-4);   // 5.278e13 FLOPs / 132.6e12 FLOPS
    }

    @Test
    void slowerKernelsTakeLongerByTheirPublishedRatio() {
        double fa2 = StepModel.predict(read("dgx-a100-80gb", Map.of()).cluster(),
                read("dgx-a100-80gb", Map.of()).run()).compute().attentionSeconds();
        RunSpec triton = read("dgx-a100-80gb", Map.of("attention_kernel", "triton"));
        RunSpec fa1 = read("dgx-a100-80gb", Map.of("attention_kernel", "fa1"));
        // FlashAttention-2 is ~2x FlashAttention and 1.3-2.5x FlashAttention in Triton (Dao 2023): triton 0.66 of FA2
        assertEquals(2.0 * fa2, StepModel.predict(fa1.cluster(), fa1.run()).compute().attentionSeconds(), fa2 * 1e-9);
        assertEquals(fa2 / 0.66, StepModel.predict(triton.cluster(), triton.run()).compute().attentionSeconds(), fa2 * 1e-9);
        // the GEMMs do not change
        assertEquals(StepModel.predict(read("dgx-a100-80gb", Map.of()).cluster(), read("dgx-a100-80gb", Map.of()).run()).compute().gemmSeconds(),
                StepModel.predict(triton.cluster(), triton.run()).compute().gemmSeconds(), 0);
    }

    /**
     * On Hopper the kernels run at their measured curves (knowledge-base/attention-kernels.json, H200): at sequence
     * 8192 FlashAttention-2 (PyTorch SDPA's flash backend) reaches 0.255 of the bf16 peak forward + backward, cuDNN's
     * fused attention (Transformer Engine's choice) 0.465, FlashAttention-3 cuDNN's rate.
     */
    @Test
    void onHopperEachKernelRunsAtItsMeasuredCurve() {
        RunSpec fa2 = read("dgx-h100", Map.of());
        RunSpec fa3 = read("dgx-h100", Map.of("attention_kernel", "fa3"));
        RunSpec cudnn = read("dgx-h100", Map.of("attention_kernel", "cudnn"));
        double flops = 3 * 8192.0 * 32 * 4 * 8192 * 4096 * 0.5;
        double t2 = StepModel.predict(fa2.cluster(), fa2.run()).compute().attentionSeconds();
        assertEquals(flops / (989e12 * 0.255 * 0.85), t2, t2 * 1e-9);
        double tc = StepModel.predict(cudnn.cluster(), cudnn.run()).compute().attentionSeconds();
        assertEquals(flops / (989e12 * 0.465 * 0.85), tc, tc * 1e-9);
        assertEquals(tc, StepModel.predict(fa3.cluster(), fa3.run()).compute().attentionSeconds(), tc * 1e-9);
        // between measured lengths, linear in log(seq): 12288 lies 0.585 of the way from 8192 to 16384
        RunSpec mid = read("dgx-h100", Map.of("seq_len", 12288));
        double w = Math.log(1.5) / Math.log(2);
        double f = 0.255 + w * (0.273 - 0.255);
        // micro-batch 1 of 12288 tokens, each attending causally over 12288
        double expected = 3 * 12288.0 * 32 * 4 * 12288 * 4096 * 0.5 / (989e12 * f * 0.85);
        assertEquals(expected, StepModel.predict(mid.cluster(), mid.run()).compute().attentionSeconds(), expected * 1e-9);
    }

    /**
     * Context parallelism runs the attention as a ring: the curve at the chunk each rank holds (seq / cp), slowed by
     * ring attention's remote steps (Efficiency.RING_ATTENTION_OVERHEAD x (cp - 1) / cp).
     */
    @Test
    void ringAttentionRunsAtTheChunksCurveAndPaysItsSteps() {
        var s = new SpecReader().read(new ObjectMapper().valueToTree(Map.of(
                "cluster", Map.of("preset", "dgx-h100"), "model", "llama-2-7b", "parallel", Map.of("cp", 4),
                "training", Map.of("seq_len", 32768, "micro_batch_size", 1, "attention_kernel", "cudnn"))), "run.json");
        // 32768 / 4 = 8192 a rank: cudnn 0.465; ring factor 1 + 0.475 x 3/4 = 1.35625
        assertEquals(0.465 * 0.85 / (1 + Efficiency.RING_ATTENTION_OVERHEAD * 3 / 4),
                Efficiency.defaults(s.cluster().gpu(), s.run()).attentionFractionOfPeak(), 1e-12);
        assertEquals(1.35625, Efficiency.ringFactor(4), 1e-12);
    }

    @Test
    void flashAttention3OnAnAmpereGpuIsBadInput() {
        SpecException e = assertThrows(SpecException.class, () -> read("dgx-a100-80gb", Map.of("attention_kernel", "fa3")));
        assertTrue(e.getMessage().contains("training.attention_kernel") && e.getMessage().contains("Hopper")
                && e.getMessage().contains("Ampere"), e.getMessage());
    }

    @Test
    void aKernelWithoutFlashAttentionIsBadInput() {
        SpecException e = assertThrows(SpecException.class, () -> read("dgx-a100-80gb",
                Map.of("attention_kernel", "triton", "flash_attention", false)));
        assertTrue(e.getMessage().contains("training.attention_kernel") && e.getMessage().contains("flash_attention: true"),
                e.getMessage());
    }

    @Test
    void anUnknownKernelNamesTheChoices() {
        SpecException e = assertThrows(SpecException.class, () -> read("dgx-a100-80gb", Map.of("attention_kernel", "xformers")));
        assertTrue(e.getMessage().contains("[fa2, fa1, triton, flex, fa3, cudnn, unfused, math, eager]") && e.getMessage().contains("'xformers'"), e.getMessage());
    }

    @Test
    void theWriterKeepsTheKernel() {
        RunSpec triton = read("dgx-a100-80gb", Map.of("attention_kernel", "triton"));
        var tree = SpecWriter.write(triton.cluster(), triton.run());
        assertEquals("triton", tree.path("training").path("attention_kernel").asText());
        assertEquals(AttentionKernel.TRITON, new SpecReader().read(tree, "again.json").run().training().attentionKernel());
        assertTrue(SpecWriter.write(read("dgx-a100-80gb", Map.of()).cluster(), read("dgx-a100-80gb", Map.of()).run()).path("training").path("attention_kernel").isMissingNode(),
                "the default is left out");
    }
}
