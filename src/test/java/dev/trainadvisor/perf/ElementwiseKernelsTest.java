package dev.trainadvisor.perf;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainadvisor.spec.ElementwiseKernels;
import dev.trainadvisor.spec.Norm;
import dev.trainadvisor.spec.PositionEmbedding;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.SpecReader;
import dev.trainadvisor.spec.SpecWriter;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** training.elementwise_kernels and the model's norm and position embedding: the bytes of the element-wise work. */
class ElementwiseKernelsTest {

    static RunSpec read(Object model, Map<String, Object> extraTraining) {
        Map<String, Object> training = new LinkedHashMap<>(Map.of("seq_len", 8192, "micro_batch_size", 1));
        training.putAll(extraTraining);
        return new SpecReader().read(new ObjectMapper().valueToTree(Map.of(
                "cluster", Map.of("preset", "dgx-h100"), "model", model, "training", training)), "run.json");
    }

    static double memorySeconds(RunSpec s) { return StepModel.predict(s.cluster(), s.run()).compute().memorySeconds(); }

    /** Bytes one layer moves per token and pass at the traffic factor, on the H100 SXM's 3.35 TB/s x 0.85. */
    static double seconds(double elementsPerTokenPerLayer) {
        return 3 * 8192.0 * 32 * 2 * elementsPerTokenPerLayer * Efficiency.ELEMENTWISE_TRAFFIC / (3350e9 * 0.85);
    }

    @Test
    void eagerCompositesMoveTheirCountedBytes() {
        RunSpec fused = read("llama-3-8b", Map.of());
        RunSpec eager = read("llama-3-8b", Map.of("elementwise_kernels", "eager"));
        assertEquals(ElementwiseKernels.FUSED, fused.run().training().elementwiseKernels());
        // Llama-3-8B, h 4096, kv 8 x 128 = 1024, SwiGLU ffn 14336, elements per token per layer (read + write):
        //   fused: norms 4h 16384, residual adds 6h 24576, rotary 2(h + kv) 10240, SiLU x gate 3 ffn 43008 = 94208
        //   eager: norms x 36/4 = 147456, residual 24576, rotary x 20/4 = 51200, SiLU x gate x 10/6 = 71680 = 294912
        // forward + backward = 3 passes, 8192 tokens, 32 layers, 2 bytes an element; cross-entropy is the same in both
        double expected = seconds(294912 - 94208);
        assertEquals(expected, memorySeconds(eager) - memorySeconds(fused), expected * 1e-9);
    }

    /**
     * torchtitan's fused_rmsnorm: RMSNorm one Triton kernel each way, rotary and SwiGLU still eager composites. Of the
     * eager run's 294,912 elements a token and layer (above) the norms' 147,456 become the fused 16,384: 163,840, so
     * 69,632 over the fused run and 131,072 under the eager one.
     */
    @Test
    void aFusedNormBesideEagerCompositesMovesTheNormOnce() {
        RunSpec fused = read("llama-3-8b", Map.of());
        RunSpec eager = read("llama-3-8b", Map.of("elementwise_kernels", "eager"));
        RunSpec fusedNorm = read("llama-3-8b", Map.of("elementwise_kernels", "eager_fused_norm"));
        assertEquals(ElementwiseKernels.EAGER_FUSED_NORM, fusedNorm.run().training().elementwiseKernels());
        assertEquals(seconds(163840 - 94208), memorySeconds(fusedNorm) - memorySeconds(fused), seconds(69632) * 1e-9);
        assertEquals(seconds(294912 - 163840), memorySeconds(eager) - memorySeconds(fusedNorm), seconds(131072) * 1e-9);
        // kernels a layer launches: eager RMSNorm 8 forward and 10 backward a norm, fused 1 and 2; two norms a layer,
        // 32 layers; the rest alike (a full recomputation would run the forward's again: none here)
        double launches = StepModel.predict(eager.cluster(), eager.run()).compute().launches()
                - StepModel.predict(fusedNorm.cluster(), fusedNorm.run()).compute().launches();
        assertEquals(32 * 2 * ((8 + 10) - (1 + 2)), launches, 0);
        // written as read: the report's run reads back as the run advised
        var tree = SpecWriter.write(fusedNorm.cluster(), fusedNorm.run());
        assertEquals("eager_fused_norm", tree.path("training").path("elementwise_kernels").asText());
        assertEquals(fusedNorm.run().training(), new SpecReader().read(tree, "again.json").run().training());
    }

    @Test
    void learnedPositionsHaveNoRotaryPassAndLayerNormNoEagerPenalty() {
        Map<String, Object> gpt = new LinkedHashMap<>(Map.of("layers", 32, "hidden", 4096, "heads", 32, "ffn_hidden", 16384,
                "vocab", 50304, "gated_mlp", false, "norm", "layernorm"));
        Map<String, Object> gptRope = new LinkedHashMap<>(gpt);
        gptRope.put("position_embedding", "rope");
        gpt.put("position_embedding", "learned");
        RunSpec learned = read(gpt, Map.of());
        assertEquals(PositionEmbedding.LEARNED, learned.run().model().positionEmbedding());
        assertEquals(Norm.LAYERNORM, learned.run().model().norm());
        // rotary over q and k, 2(h + kv) = 2 x (4096 + 4096) elements per token per layer, only with rope
        assertEquals(seconds(16384), memorySeconds(read(gptRope, Map.of())) - memorySeconds(learned), seconds(16384) * 1e-9);
        // LayerNorm and GELU are single native kernels: eager changes nothing without rotary, RMSNorm or a gate
        assertEquals(memorySeconds(learned), memorySeconds(read(gpt, Map.of("elementwise_kernels", "eager"))), 0);
    }

    @Test
    void unknownKindsNameTheChoices() {
        SpecException e = assertThrows(SpecException.class, () -> read("llama-3-8b", Map.of("elementwise_kernels", "inductor")));
        assertTrue(e.getMessage().contains("training.elementwise_kernels") && e.getMessage().contains("[fused, compiled, eager, eager_fused_norm]")
                && e.getMessage().contains("'inductor'"), e.getMessage());
        Map<String, Object> bad = new LinkedHashMap<>(Map.of("layers", 2, "hidden", 64, "heads", 4, "ffn_hidden", 256,
                "vocab", 1000, "norm", "batchnorm"));
        SpecException n = assertThrows(SpecException.class, () -> read(bad, Map.of()));
        assertTrue(n.getMessage().contains("model.norm") && n.getMessage().contains("[rmsnorm, layernorm]"), n.getMessage());
    }

    @Test
    void theWriterKeepsThem() {
        RunSpec eager = read("mpt-7b", Map.of("elementwise_kernels", "eager"));
        var tree = SpecWriter.write(eager.cluster(), eager.run());
        assertEquals("eager", tree.path("training").path("elementwise_kernels").asText());
        assertEquals("layernorm", tree.path("model").path("norm").asText());
        assertEquals("learned", tree.path("model").path("position_embedding").asText());
        RunSpec again = new SpecReader().read(tree, "again.json");
        assertEquals(eager.run().model(), again.run().model());
        assertEquals(eager.run().training(), again.run().training());
    }
}
