package dev.trainadvisor.advice;

import dev.trainadvisor.perf.StepModel;
import dev.trainadvisor.spec.RunChange;
import dev.trainadvisor.spec.RunField;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import dev.trainadvisor.spec.SpecWriter;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/** What-ifs edit the run in run-file terms and go through the same validation as the user's file. */
class WhatIfTest {

    static RunSpec example(String name) { return new SpecReader().read(Path.of("examples", name)); }

    @Test
    void writingAndReadingARunGivesTheSameRun() {
        for (String name : new String[]{"internlm-7b-pcie-1node.yaml", "internlm-7b-pcie-2nodes.yaml", "internlm-7b-nvlink-1node.yaml"}) {
            RunSpec s = example(name);
            RunSpec back = new SpecReader().read(SpecWriter.write(s.cluster(), s.run()), "round trip");
            assertEquals(s.cluster(), back.cluster(), name);
            assertEquals(s.run().model(), back.run().model(), name);
            assertEquals(s.run().parallel(), back.run().parallel(), name);
            assertEquals(s.run().training(), back.run().training(), name);
        }
    }

    @Test
    void nvlinkChangeSwapsGpuAndLinkAndDropsTheMeasuredPcieBandwidth() {
        RunSpec s = example("internlm-7b-pcie-1node.yaml");
        RunSpec measured = s.with(RunChange.of(RunField.INTRA_BUSBW, 9.5));
        assertEquals(9.5, measured.cluster().intraNode().busbwGbps());
        assertTrue(measured.cluster().intraNode().busbwMeasured());

        RunSpec nv = measured.with(RunChange.of(RunField.GPU, "A100-SXM4-80GB").and(RunField.INTRA_LINK, "NVLink3")
                .clear(RunField.INTRA_BUSBW));
        assertEquals("NVLink3", nv.cluster().intraNode().key());
        assertFalse(nv.cluster().intraNode().busbwMeasured());
        assertEquals(231.6, nv.cluster().intraNode().busbwGbps(), 1e-9, "knowledge-base/links.json NVLink3 busbw");
        assertEquals("A100-SXM4-80GB", nv.cluster().gpu().key());
    }

    @Test
    void moreMicroBatchesAmortizeTheOptimizerCollectives() {
        // the ZeRO collectives move the same bytes per step whatever the number of micro-batches, while
        // compute doubles: so tokens/GPU/s rise, but by less than 2x
        RunSpec s = example("internlm-7b-pcie-1node.yaml");
        RunSpec doubled = s.with(RunChange.of(RunField.MICRO_BATCHES, 8));
        double base = StepModel.predict(s.cluster(), s.run()).tokensPerGpuPerS();
        double more = StepModel.predict(doubled.cluster(), doubled.run()).tokensPerGpuPerS();
        assertTrue(more > base && more < 2 * base, base + " -> " + more);
        double commBytes = StepModel.predict(s.cluster(), s.run()).collectives().stream().mapToDouble(c -> c.bytesPerStep()).sum();
        double commBytesDoubled = StepModel.predict(doubled.cluster(), doubled.run()).collectives().stream().mapToDouble(c -> c.bytesPerStep()).sum();
        assertEquals(commBytes, commBytesDoubled, 1e-6 * commBytes);
    }

    @Test
    void aChangeTheLayoutCannotTakeIsDroppedNotRecommended() {
        // 8 GPUs cannot hold tp=3: the what-if fails validation and yields no recommendation
        RunSpec s = example("internlm-7b-pcie-1node.yaml");
        assertThrows(dev.trainadvisor.input.SpecException.class, () -> s.with(RunChange.of(RunField.TP, 3)));
    }
}
