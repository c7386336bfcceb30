package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Catalog;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.Training;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Dense GEMMs of a small inner dimension (issue 9, item 1): on Hopper they run at the rate measured on an H200 by K
 * (knowledge-base/gemm-efficiency.json: 0.80 of large ones at K 768, 0.90 at 1024), on an architecture without a
 * curve at the large GEMMs' rate.
 */
class GemmEfficiencyTest {
    static Training t = new Training(2048, 4, 1, Recompute.NONE, Precision.BF16, Precision.FP32, true);

    static Map<String, Operation> ops(dev.trainadvisor.spec.Model m) {
        return StepOperations.of(m, PerfFixtures.parallel(1, 1, 1, false, 0, 1, 1), t).stream()
                .collect(Collectors.toMap(Operation::name, Function.identity()));
    }

    /** GPT-2 small (h 768, 3072 MLP): QKV's inner dimension is the hidden, MLP down's the MLP width. */
    @Test
    void theInnerDimensionFollowsFromTheOperation() {
        var m = new dev.trainadvisor.spec.Model("gpt2", 12, 768, 12, 12, 3072, 50257, false, true, true, null, 4.0);
        Map<String, Operation> o = ops(m);
        assertEquals(768, o.get("qkv").innerDimension(), 1e-9);
        assertEquals(3072, o.get("mlp-down").innerDimension(), 1e-9);
        assertEquals(768, o.get("logits").innerDimension(), 1e-9);
    }

    /** On an H100 a K-768 GEMM takes 1 / 0.80 of its waves' time; on an A100, no curve, exactly its waves' time. */
    @Test
    void smallInnerDimensionsRunSlowerOnHopperOnly() {
        var m = new dev.trainadvisor.spec.Model("gpt2", 12, 768, 12, 12, 3072, 50257, false, true, true, null, 4.0);
        Operation qkv = ops(m).get("qkv"), down = ops(m).get("mlp-down");
        var h100 = Catalog.builtIn().gpu("H100-SXM5-80GB", "gpus.json", "key");
        var a100 = Catalog.builtIn().gpu("A100-SXM4-80GB", "gpus.json", "key");
        Efficiency eh = new Efficiency(0.7, 0.3, 0.85, 0.8, 2), ea = eh;
        Roofline rh = new Roofline(h100, t, eh), ra = new Roofline(a100, t, ea);
        double atWavesH = qkv.flops() / (989e12 * 0.7 * rh.waveEfficiency(qkv));
        assertEquals(atWavesH / 0.80, rh.forwardSeconds(qkv), atWavesH * 1e-9);
        // K 3072: the curve's plateau
        assertEquals(down.flops() / (989e12 * 0.7 * rh.waveEfficiency(down)), rh.forwardSeconds(down), 1e-15);
        double atWavesA = qkv.flops() / (312e12 * 0.7 * ra.waveEfficiency(qkv));
        assertEquals(atWavesA, ra.forwardSeconds(qkv), atWavesA * 1e-9);
        assertNull(Catalog.builtIn().gemmCurve("Ampere"));
        // K 1536 lies between 1024 and 2048: 0.90 + log2(1.5) x (0.985 - 0.90)
        assertEquals(0.90 + Math.log(1.5) / Math.log(2) * 0.085, Catalog.builtIn().gemmCurve("Hopper").at(1536), 1e-12);
    }
}
