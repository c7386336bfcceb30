package dev.trainadvisor.advice;

import dev.trainadvisor.facts.Cause;
import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.spec.ReferenceRun;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The verdict a user reads for a published context-parallel run: torchtitan's CP runs on 8 H100
 * (knowledge-base/reference-runs/torchtitan.json) ran, so their advice must not lead with a memory overflow. Before the
 * context-parallel ranks shared ZeRO's sharding (perf.DataParallel.shardGroup), fsdp2-cp4 and fsdp1-cp8 were predicted
 * at 109 and 180 GB of a 96 GB H100 and the report's headline was HIGH memory-overflow.
 */
class ContextParallelVerdictTest {

    @Test
    void publishedContextParallelRunsAreNotToldTheyCannotStart() {
        int checked = 0;
        for (ReferenceRun rr : ReferenceRun.builtIn()) {
            if (!rr.id().startsWith("torchtitan-h100") || rr.spec().run().parallel().cp() <= 1) continue;
            Advice a = TrainAdvisor.advise(rr.spec());
            for (Diagnosis d : a.diagnoses())
                assertNotEquals(Cause.MEMORY_OVERFLOW, d.cause(), rr.id() + ": " + d.explanation());
            // the first line of every report
            String verdict = dev.trainadvisor.report.AdviceView.of(a).verdict();
            assertFalse(verdict.contains("memory exceeds"), rr.id() + ": " + verdict);
            checked++;
        }
        assertEquals(6, checked);
    }
}
