package dev.trainadvisor.perf;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.SpecReader;
import dev.trainadvisor.spec.Training;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** recompute: full with recompute_fraction f: f of the layers recompute, the rest keep their activations. */
class RecomputeFractionTest {
    // GPT shape: l 24, h 2048, plain MLP 4h, s 2048, V 51200
    static final Model GPT = new Model("gpt", 24, 2048, 16, 16, 8192, 51200, false, true, false, null, 4.0);

    static Training training(Recompute r, double fraction) {
        return new Training(2048, 1, 1, r, Precision.BF16, Precision.BF16, true, fraction);
    }

    @Test
    void halfTheLayersAddHalfAForward() {
        // per layer forward: 24 h^2 + 4 s h = 24 x 2048^2 + 4 x 2048 x 2048 = 117,440,512 FLOPs per token;
        // half of 24 layers recompute: + 12 x 117,440,512 = 1,409,286,144 FLOPs per token over no recompute
        double none = FlopsPerToken.of(GPT, training(Recompute.NONE, 1)).hardware();
        double half = FlopsPerToken.of(GPT, training(Recompute.FULL, 0.5)).hardware();
        double full = FlopsPerToken.of(GPT, training(Recompute.FULL, 1)).hardware();
        assertEquals(1_409_286_144.0, half - none, 1e-3);
        assertEquals(2 * (half - none), full - none, 1e-3);
        assertEquals(none, FlopsPerToken.of(GPT, training(Recompute.FULL, 0.5)).model(), 0, "model FLOPs never count recompute");
    }

    @Test
    void activationsAreTheMixOfBoth() {
        var spec = new SpecReader().read(new ObjectMapper().valueToTree(java.util.Map.of(
                "cluster", java.util.Map.of("preset", "dgx-a100-80gb"),
                "model", "gpt3-1.3b",
                "training", java.util.Map.of("seq_len", 2048, "micro_batch_size", 1, "recompute", "full",
                        "recompute_fraction", 0.5))), "t");
        assertEquals(0.5, spec.run().training().fullRecomputeShare());
        Model m = spec.run().model();
        // one micro-batch in flight, no pipeline: every layer holds 0.5 x (full-recompute bytes) + 0.5 x (no-recompute bytes)
        double full = ActivationMemory.perLayerBytes(m, 2048, 1, 1, false, Recompute.FULL, true, false);
        double none = ActivationMemory.perLayerBytes(m, 2048, 1, 1, false, Recompute.NONE, true, false);
        double expectedGb = m.layers() * (0.5 * full + 0.5 * none) / 1e9;
        assertEquals(expectedGb, StepModel.predict(spec.cluster(), spec.run()).memory().activationsGb(), 1e-9);
    }

    @Test
    void aFractionWithoutFullRecomputeIsBadInput() {
        SpecException e = assertThrows(SpecException.class, () -> new SpecReader().read(new ObjectMapper().valueToTree(java.util.Map.of(
                "cluster", java.util.Map.of("preset", "dgx-a100-80gb"), "model", "gpt3-1.3b",
                "training", java.util.Map.of("seq_len", 2048, "micro_batch_size", 1, "recompute", "selective",
                        "recompute_fraction", 0.5))), "run.json"));
        assertTrue(e.getMessage().contains("training.recompute_fraction") && e.getMessage().contains("recompute: full"), e.getMessage());
    }
}
