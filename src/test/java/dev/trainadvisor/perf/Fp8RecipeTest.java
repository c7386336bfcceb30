package dev.trainadvisor.perf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.spec.Fp8Recipe;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.SpecReader;
import dev.trainadvisor.spec.SpecWriter;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * fp8 recipes (issue 9, item 7): each GEMM input is cast row-wise and transposed; delayed scaling takes the amax inside
 * the cast (2 + 1 + 1 bytes an element), current scaling reads the tensor once more first (6), block scales cost their
 * amax inside each block (4), MXFP8 adds a scale byte per 32 elements each way (4.0625) and needs Blackwell.
 */
class Fp8RecipeTest {
    static RunSpec read(String preset, Map<String, Object> training) {
        ObjectMapper j = new ObjectMapper();
        ObjectNode t = j.createObjectNode();
        t.putObject("cluster").put("preset", preset);
        t.put("model", "llama-3-8b");
        ObjectNode tr = t.putObject("training").put("seq_len", 8192).put("micro_batch_size", 1);
        training.forEach((k, v) -> tr.set(k, j.valueToTree(v)));
        return new SpecReader().read(t, "run.json");
    }

    static double castBytes(RunSpec s) {
        return StepOperations.of(s.run().model(), s.run().parallel(), s.run().training()).stream()
                .filter(o -> o.name().equals("fp8-casts")).mapToDouble(Operation::bytes).sum();
    }

    /** Llama-3-8B: h 4096, MLP 14336 (x2 gated inputs counted as ffn): per token (3 h + ffn) elements cast, 32 layers. */
    @Test
    void eachRecipeMovesItsBytesPerElement() {
        RunSpec delayed = read("dgx-h100", Map.of("precision", "fp8"));
        RunSpec current = read("dgx-h100", Map.of("precision", "fp8", "fp8_recipe", "current"));
        RunSpec block = read("dgx-h100", Map.of("precision", "fp8", "fp8_recipe", "blockwise"));
        assertEquals(Fp8Recipe.DELAYED, delayed.run().training().fp8Recipe());
        double d = castBytes(delayed);
        assertTrue(d > 0);
        assertEquals(1.5 * d, castBytes(current), d * 1e-12);      // 6 bytes against 4
        assertEquals(d, castBytes(block), d * 1e-12);
        RunSpec mx = read("dgx-b200", Map.of("precision", "fp8", "fp8_recipe", "mxfp8"));
        assertEquals((4 + 2.0 / 32) / 4, castBytes(mx) / castBytes(read("dgx-b200", Map.of("precision", "fp8"))), 1e-12);
        // and the step follows: current scaling is slower than delayed by what its extra pass costs
        assertTrue(StepModel.predict(current.cluster(), current.run()).stepTimeS()
                > StepModel.predict(delayed.cluster(), delayed.run()).stepTimeS());
    }

    @Test
    void mxfp8NeedsBlackwellAndARecipeNeedsFp8() {
        SpecException e = assertThrows(SpecException.class, () -> read("dgx-h100", Map.of("precision", "fp8", "fp8_recipe", "mxfp8")));
        assertTrue(e.getMessage().contains("training.fp8_recipe") && e.getMessage().contains("Blackwell")
                && e.getMessage().contains("Hopper"), e.getMessage());
        e = assertThrows(SpecException.class, () -> read("dgx-h100", Map.of("fp8_recipe", "current")));
        assertTrue(e.getMessage().contains("training.fp8_recipe") && e.getMessage().contains("precision: fp8"), e.getMessage());
    }

    @Test
    void theWriterKeepsTheRecipe() {
        RunSpec current = read("dgx-h100", Map.of("precision", "fp8", "fp8_recipe", "current"));
        var tree = SpecWriter.write(current.cluster(), current.run());
        assertEquals("current", tree.path("training").path("fp8_recipe").asText());
        assertEquals(Fp8Recipe.CURRENT, new SpecReader().read(tree, "again.json").run().training().fp8Recipe());
        RunSpec delayed = read("dgx-h100", Map.of("precision", "fp8"));
        assertTrue(SpecWriter.write(delayed.cluster(), delayed.run()).path("training").path("fp8_recipe").isMissingNode());
    }
}
