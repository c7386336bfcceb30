package dev.trainadvisor.perf;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainadvisor.spec.AttentionKernel;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecException;
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
        // 8192 tokens per micro-batch; A100 bf16 peak 312 TFLOPS; FlashAttention-2 at 0.50 of peak (catalogue)
        // times the in-step fraction 0.825: 128.7 TFLOPS.
        double flops = 3 * 8192.0 * 32 * 4 * 8192 * 4096 * 0.5;
        double seconds = flops / (312e12 * 0.50 * 0.825);
        assertEquals(seconds, c.attentionSeconds(), seconds * 1e-9);
        assertEquals(0.4101, seconds, 1e-4);   // 5.278e13 FLOPs / 128.7e12 FLOPS
    }

    @Test
    void slowerKernelsTakeLongerByTheirPublishedRatio() {
        double fa2 = StepModel.predict(read("dgx-a100-80gb", Map.of()).cluster(),
                read("dgx-a100-80gb", Map.of()).run()).compute().attentionSeconds();
        RunSpec triton = read("dgx-a100-80gb", Map.of("attention_kernel", "triton"));
        RunSpec fa1 = read("dgx-a100-80gb", Map.of("attention_kernel", "fa1"));
        // FlashAttention-2 is ~2x FlashAttention and 1.3-2.5x FlashAttention in Triton (Dao 2023): triton 0.70 of FA2
        assertEquals(2.0 * fa2, StepModel.predict(fa1.cluster(), fa1.run()).compute().attentionSeconds(), fa2 * 1e-9);
        assertEquals(fa2 / 0.70, StepModel.predict(triton.cluster(), triton.run()).compute().attentionSeconds(), fa2 * 1e-9);
        // the GEMMs do not change
        assertEquals(StepModel.predict(read("dgx-a100-80gb", Map.of()).cluster(), read("dgx-a100-80gb", Map.of()).run()).compute().gemmSeconds(),
                StepModel.predict(triton.cluster(), triton.run()).compute().gemmSeconds(), 0);
    }

    @Test
    void flashAttention3IsOneAndAHalfTimesFa2OnHopper() {
        RunSpec fa2 = read("dgx-h100", Map.of());
        RunSpec fa3 = read("dgx-h100", Map.of("attention_kernel", "fa3"));
        double t2 = StepModel.predict(fa2.cluster(), fa2.run()).compute().attentionSeconds();
        assertEquals(t2 / 1.5, StepModel.predict(fa3.cluster(), fa3.run()).compute().attentionSeconds(), t2 * 1e-9);
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
        assertTrue(e.getMessage().contains("[fa2, fa1, triton, fa3, unfused, math]") && e.getMessage().contains("'xformers'"), e.getMessage());
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
