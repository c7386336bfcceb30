package dev.trainadvisor.api;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a user reads where the healthy fit had stopped short of its optimum (perf.Fit's NOMINAL_OVERLAP_START_SIGMAS):
 * a run of bench/fleet.py's 10,000 (src/test/resources/runs/fit-starts/run-02773.json: OLMo-2 13B under ZeRO 3 on one
 * DGX H100 node, throughput alone, 0.65x the prediction). From the prior every collective hides, and the healthy fit
 * had slowed the compute alone (a cost of 38.4 where lowering the overlap within its ordinary spread reaches 12.2), so
 * the report ruled the healthy explanation out. Fitted to its optimum, the healthy explanation is one the times
 * cannot rule out (its probability is 3%, but it fits the times within the likelihood ratio the fit calls equally
 * good, perf.Fit.EQUALLY_GOOD_FIT), and the report says so; the verdict is the same. With the healthy fit started at
 * the prior alone the last assertion fails (checked).
 */
class HealthyAlternativeVerdictTest {

    @Test
    void theHealthyExplanationIsNamedAmongThoseTheTimesCannotRuleOut() {
        Advice a = TrainAdvisor.create().advise(
                TrainAdvisor.readRunFile(Path.of("src/test/resources/runs/fit-starts/run-02773.json")));
        Advice.Diagnosis top = a.top().orElseThrow();
        assertEquals("unexplained-slowdown", top.id(), a.diagnoses().toString());
        assertEquals(Advice.Severity.HIGH, top.severity(), a.headline());
        assertTrue(a.headline().contains("(35% of the step)")
                && a.headline().contains("intra-node link at 39% of its rating"), a.headline());
        String md = a.toMarkdown();
        assertTrue(md.contains("chose **intra-node-busbw**"), md);
        assertTrue(md.contains("the times cannot rule out several, overlap-fraction, compute-scale, nominal."), md);
    }
}
