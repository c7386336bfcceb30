package dev.trainadvisor.perf;

import dev.trainadvisor.spec.FlopsConvention;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static dev.trainadvisor.perf.PerfFixtures.rel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The motivating case (https://github.com/InternLM/InternLM/issues/22; docs/model.md, "The motivating case"): the step model's
 * predictions for the example run files against what the InternLM maintainers measured. These are the
 * project's acceptance numbers: NVLink node within 15% of 188.03 TFLOPS, PCIe node within 25% of 99.10.
 */
class ExamplesTest {

    private static RunSpec read(String file) {
        return new SpecReader().read(Path.of("examples", file));
    }

    private static StepPrediction predict(RunSpec spec) {
        return StepModel.predict(spec.cluster(), spec.run());
    }

    /**
     * The measured 188.03 is InternEvo's count (44,411,387,904 FLOPs/token, see FlopsTest) at 4233.73 tokens/GPU/s.
     * The house count of InternLM-7B is 3 x (32 x (QKV 100,663,296 + out 33,554,432 + MLP 270,532,608
     * + core 33,554,432) + logits 845,152,256) = 44,612,714,496 FLOPs/token, 0.45% more, so the house TFLOPS and
     * the InternEvo TFLOPS of one prediction differ by that much. Both, and the predicted tokens/GPU/s, must lie
     * within the tolerance of the measurement.
     */
    private static void assertWithin(String file, double measuredTflops, double measuredTgs, double tolerance) {
        RunSpec spec = read(file);
        StepPrediction pred = predict(spec);
        double internEvoFlopsPerToken = ConventionFlops.perToken(FlopsConvention.INTERNEVO, spec.run().model(),
                spec.run().training());
        assertEquals(0, rel(internEvoFlopsPerToken, 44_411_387_904.0), 1e-12, file + ": InternEvo FLOPs/token");
        assertEquals(0, rel(pred.flopsPerToken().model(), 44_612_714_496.0), 1e-12, file + ": house FLOPs/token");

        double predictedInternEvoTflops = internEvoFlopsPerToken * pred.tokensPerGpuPerS() / 1e12;
        String got = String.format("%s: predicted %.2f house TFLOPS, %.2f InternEvo TFLOPS, %.1f tokens/GPU/s"
                        + " (step %.3f s); measured %.2f TFLOPS, %.2f tokens/GPU/s",
                file, pred.tflopsPerGpu(), predictedInternEvoTflops, pred.tokensPerGpuPerS(), pred.stepTimeS(),
                measuredTflops, measuredTgs);
        assertTrue(rel(pred.tflopsPerGpu(), measuredTflops) <= tolerance, got);
        assertTrue(rel(predictedInternEvoTflops, measuredTflops) <= tolerance, got);
        assertTrue(rel(pred.tokensPerGpuPerS(), measuredTgs) <= tolerance, got);
    }

    @Test
    void nvlinkNodeWithin15PercentOf188() {
        assertWithin("internlm-7b-nvlink-1node.yaml", 188.03, 4233.73, 0.15);
    }

    @Test
    void pcieNodeWithin25PercentOf99() {
        assertWithin("internlm-7b-pcie-1node.yaml", 99.10, 2231.46, 0.25);
    }

    /**
     * The examples describe 2048 x 2 x 4 = 16,384 tokens per GPU per step (tp = pp = 1), and the MFU is the
     * house TFLOPS over the A100's dense bf16 peak of 312 TFLOPS.
     */
    @Test
    void examplesStepTokensAndMfu() {
        for (String file : new String[]{"internlm-7b-nvlink-1node.yaml", "internlm-7b-pcie-1node.yaml",
                "internlm-7b-pcie-2nodes.yaml"}) {
            StepPrediction pred = predict(read(file));
            assertEquals(0, rel(pred.tokensPerGpuPerS() * pred.stepTimeS(), 16_384), 1e-12, file);
            assertEquals(0, rel(pred.mfu(), pred.tflopsPerGpu() / 312), 1e-12, file);
        }
    }

    /**
     * Measured order of the three runs: NVLink node 188.03 > PCIe node 99.10 > two PCIe nodes 93.48 TFLOPS.
     * The model must rank them the same way, and put the PCIe node well below the NVLink node (measured ratio
     * 99.10 / 188.03 = 0.53; require below 0.75).
     */
    @Test
    void predictionsRankTheThreeRunsAsMeasured() {
        double nvlinkTflops = predict(read("internlm-7b-nvlink-1node.yaml")).tflopsPerGpu();
        double pcieTflops = predict(read("internlm-7b-pcie-1node.yaml")).tflopsPerGpu();
        double pcie2NodesTflops = predict(read("internlm-7b-pcie-2nodes.yaml")).tflopsPerGpu();
        String got = "nvlink " + nvlinkTflops + ", pcie " + pcieTflops + ", pcie 2 nodes " + pcie2NodesTflops;
        assertTrue(nvlinkTflops > pcieTflops && pcieTflops > pcie2NodesTflops, got);
        assertTrue(pcieTflops / nvlinkTflops < 0.75, got);
    }
}
