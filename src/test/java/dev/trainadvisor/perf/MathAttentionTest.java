package dev.trainadvisor.perf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Attention without flash on PyTorch's math backend (issue 9, item 6): the scores in fp32, the GEMMs on CUDA cores.
 * Measured on an H200 (bench/h200_attention_math.py): seven shapes of one causal attention forward + backward. Its two
 * constants (Efficiency.MATH_ATTENTION_FP32_FRACTION, ElementwiseBytes.MATH_BYTES_PER_SCORE) are the medians of these
 * seven rows, so this checks that each row comes out of them, not a held-out prediction.
 */
class MathAttentionTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One layer of {@code heads} heads of 128, its attention alone timed. */
    static ComputeTime layer(int batch, int seq, int heads, boolean flash) {
        ObjectNode t = JSON.createObjectNode();
        t.putObject("cluster").put("gpu", "H200-SXM-141GB").put("nodes", 1).put("gpus_per_node", 1);
        t.putObject("model").put("name", "one-layer").put("layers", 1).put("hidden", heads * 128).put("heads", heads)
                .put("ffn_hidden", 4 * heads * 128).put("vocab", 32000);
        ObjectNode tr = t.putObject("training").put("seq_len", seq).put("micro_batch_size", batch).put("flash_attention", flash);
        if (!flash) tr.put("attention_kernel", "math");
        RunSpec s = new SpecReader().read(t, "one-layer");
        return ComputeTime.of(s.run().model(), s.run().parallel(), s.run().training(), s.cluster().gpu(),
                Efficiency.defaults(s.cluster().gpu(), s.run()));
    }

    /** The attention core's and the softmax's GPU seconds over a forward + backward. */
    static double attentionSeconds(ComputeTime c) {
        return c.operations().stream().filter(o -> o.operation().name().equals("attention-core")
                || o.operation().name().equals("softmax")).mapToDouble(ComputeTime.Timed::seconds).sum();
    }

    /**
     * The shapes of sequence 2048 and more, within 15%. At 1024 the kernels are short enough for launches to show (98
     * bytes a score where the others move 79-86) and the model, which times the GPU's work here, is 34% short.
     */
    @Test
    void everyMeasuredShapeWithin15Percent() throws IOException {
        JsonNode rows = JSON.readTree(Path.of("knowledge-base/measurements/h200-attention-math.json").toFile()).get("rows");
        for (JsonNode r : rows) {
            int b = r.get("batch").asInt(), s = r.get("seq_len").asInt(), h = r.get("heads").asInt();
            if (s < 2048) continue;
            double predicted = attentionSeconds(layer(b, s, h, false)), measured = r.get("math_fwd_bwd_s").asDouble();
            assertEquals(1, predicted / measured, 0.15, b + " x " + s + ", " + h + " heads: " + predicted + " vs " + measured);
        }
    }

    /**
     * What flash attention gains over the math backend: measured 7-15x on these shapes (one attention layer), the model
     * at least 5x on all of them, so that the FlashAttention-2 remedy is priced as the kernels differ.
     */
    @Test
    void flashGainsWhatWasMeasured() throws IOException {
        JsonNode rows = JSON.readTree(Path.of("knowledge-base/measurements/h200-attention-math.json").toFile()).get("rows");
        for (JsonNode r : rows) {
            int b = r.get("batch").asInt(), s = r.get("seq_len").asInt(), h = r.get("heads").asInt();
            if (s < 2048) continue;   // at 1024 the flash kernel is launch-bound: 3.2x measured
            double gain = attentionSeconds(layer(b, s, h, false)) / attentionSeconds(layer(b, s, h, true));
            double measured = r.get("math_fwd_bwd_s").asDouble() / r.get("flash_fwd_bwd_s").asDouble();
            assertTrue(measured > 7 && gain > 5, b + " x " + s + ", " + h + " heads: model " + gain + ", measured " + measured);
        }
    }

    /** math and unfused are attention without flash; with flash_attention on they are refused, and fa2 without it. */
    @Test
    void theKernelMustAgreeWithFlash() {
        ObjectNode t = JSON.createObjectNode();
        t.putObject("cluster").put("gpu", "H200-SXM-141GB").put("nodes", 1).put("gpus_per_node", 1);
        t.put("model", "gpt3-1.3b");
        t.putObject("training").put("seq_len", 2048).put("micro_batch_size", 1).put("attention_kernel", "math");
        SpecException e = assertThrows(SpecException.class, () -> new SpecReader().read(t, "bad"));
        assertTrue(e.getMessage().contains("training.attention_kernel") && e.getMessage().contains("flash_attention false"),
                e.getMessage());
        ((ObjectNode) t.get("training")).put("flash_attention", false).put("attention_kernel", "fa2");
        SpecException f = assertThrows(SpecException.class, () -> new SpecReader().read(t, "bad"));
        assertTrue(f.getMessage().contains("flash_attention: true"), f.getMessage());
    }
}
