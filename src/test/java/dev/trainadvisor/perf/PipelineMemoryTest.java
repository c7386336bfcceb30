package dev.trainadvisor.perf;

import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/** Memory per pipeline stage under 1F1B. */
class PipelineMemoryTest {

    @Test
    void stageSHoldsPpMinusSMicroBatchesAndOnlyTheLastHoldsLogits() {
        // GPT-3 175B, tp 16, pp 8, 8 micro-batches: stage s keeps min(8, 8 - s) micro-batches of activations,
        // so stage s / stage 0 = (8 - s) / 8; logits (tokens x V / tp x 6 bytes) only on stage 7
        RunSpec s = new SpecReader().read(Path.of("src/test/resources/runs/gpt3-tp16.yaml"));
        MemoryEstimate m = StepModel.predict(s.cluster(), s.run()).memory();
        assertEquals(8, m.stages().size());
        double first = m.stages().get(0).activationsGb();
        for (MemoryEstimate.Stage st : m.stages()) {
            assertEquals(first * (8 - st.stage()) / 8.0, st.activationsGb(), 1e-9 * first, "stage " + st.stage());
            double logitsGb = st.stage() == 7 ? 2048.0 * 50257 / 16 * 6 / 1e9 : 0;
            assertEquals(logitsGb, st.logitsGb(), 1e-12, "stage " + st.stage());
        }
        // the embedding (50257 x 12288 / 16 parameters, 2 bytes) sits on stage 0 and, tied, again on stage 7
        double embeddingWeightsGb = 50257.0 * 12288 / 16 * 2 / 1e9;
        assertEquals(embeddingWeightsGb, m.stages().get(0).weightsGb() - m.stages().get(3).weightsGb(), 1e-6);
        assertEquals(m.totalGb(), m.stages().stream().mapToDouble(MemoryEstimate.Stage::totalGb).max().orElseThrow(), 1e-12,
                "the estimate is the peak stage");
    }
}
