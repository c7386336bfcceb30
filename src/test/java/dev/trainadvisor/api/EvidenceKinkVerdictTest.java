package dev.trainadvisor.api;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The verdict a user reads where the fit's evidence decides it: two runs of bench/fleet.py's 10,000
 * (src/test/resources/runs/evidence-kink: Llama-2 70B and 13B under FSDP over 96 H100 on 8 x RoCE-100G a node) whose
 * network fault has a probability near the severities' threshold, so that the evidence's integral along the network's
 * bandwidth, which has a kink where the collectives start to hide, sets the severity. The expected verdicts are the
 * ones the same model gives with that integral on 641 evenly spaced points (a probe build of the 52nd stop,
 * `batch --format csv` over the fleet; 161 points give the same): run-09028 MEDIUM at 14% of the step, run-06445 HIGH
 * at 23%. On 41 evenly spaced points, as before that stop, the two came out the other way round (HIGH at 27%, MEDIUM
 * at 15%); the 41 points placed where the line bends (perf.LineIntegral) give the reference's.
 */
class EvidenceKinkVerdictTest {

    private static Advice advise(String run) {
        return TrainAdvisor.create().advise(TrainAdvisor.readRunFile(Path.of("src/test/resources/runs/evidence-kink", run)));
    }

    @Test
    void theNetworksSeverityIsTheFinerIntegralsOne() {
        Advice medium = advise("run-09028.json");
        Advice.Diagnosis top = medium.top().orElseThrow();
        assertEquals("inter-node-bandwidth", top.id(), medium.diagnoses().toString());
        assertEquals(Advice.Severity.MEDIUM, top.severity(), medium.headline());
        assertEquals(0.1443, top.share(), 0.002, medium.headline());
        assertTrue(medium.headline().contains("network between nodes") && medium.headline().contains("14% of the step"),
                medium.headline());

        Advice high = advise("run-06445.json");
        top = high.top().orElseThrow();
        assertEquals("inter-node-bandwidth", top.id(), high.diagnoses().toString());
        assertEquals(Advice.Severity.HIGH, top.severity(), high.headline());
        assertEquals(0.2335, top.share(), 0.002, high.headline());
        assertTrue(high.headline().contains("network between nodes") && high.headline().contains("23% of the step"),
                high.headline());
    }
}
