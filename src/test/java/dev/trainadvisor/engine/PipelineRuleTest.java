package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.Saving;
import dev.trainadvisor.facts.Severity;
import dev.trainadvisor.perf.Phase;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static dev.trainadvisor.engine.GivenFacts.*;
import static org.junit.jupiter.api.Assertions.*;

/** rules/pipeline.drl on given facts: the pipeline bubble of GPT-3 on 8 stages, 1 virtual stage, 8 micro-batches. */
class PipelineRuleTest {

    /** 2.5 s forward, 5.6 s backward, 0.4 s optimizer and the bubble. */
    static GivenFacts step(double bubbleS) {
        return GivenFacts.of(GPT3_TP16).compute(2.5, 5.6, 0.4).phase(Phase.PIPELINE_BUBBLE, bubbleS);
    }

    @Test
    void pipelineBubbleClaimsTheBubble() {
        // 1.5 of 10 s = 0.15 -> medium; each stage idles (8 - 1) / (1 x 8) = 0.875 of the ideal time
        RuleEngine.Result r = step(1.5).fire();
        Diagnosis d = only(r, "pipeline-bubble");
        assertDiagnosis(d, Severity.MEDIUM, false, 0.15, Map.of(Phase.PIPELINE_BUBBLE, 1.5));
        assertEquals(0.875, evidence(d, "bubble_fraction"), 1e-12);
        assertEquals(8, evidence(d, "micro_batches"), 0);
        assertTrue(d.explanation().contains("The pipeline bubble takes 1.5 s, 1.5 s / 10 s = 15% of the 10 s step"),
                d.explanation());
        assertTrue(d.explanation().contains("(8 - 1) / (1 x 8) = 0.875"), d.explanation());
    }

    @Test
    void pipelineBubbleLeavesASlowKernelItsShareOfTheBubble() {
        // the bubble lasts as long as a micro-batch's compute: FlashAttention-2 would save 0.5 s forward, 1 s backward
        // and 0.3 s of the 1.5 s bubble, all slow-attention-kernel's (1.8 / 10 = 0.18, medium); the bubble keeps
        // 1.5 - 0.3 = 1.2 s: 0.12, medium
        RuleEngine.Result r = GivenFacts.of(with(run(GPT3_TP16), "flashAttention", false)).compute(2.5, 5.6, 0.4)
                .phase(Phase.PIPELINE_BUBBLE, 1.5)
                .saving(Saving.Kind.FLASH_ATTENTION_2, Phase.FORWARD, 0.5, Phase.BACKWARD, 1.0, Phase.PIPELINE_BUBBLE, 0.3).fire();
        assertEquals(0.3, only(r, "slow-attention-kernel").claimed(Phase.PIPELINE_BUBBLE), 1e-9);
        Diagnosis d = only(r, "pipeline-bubble");
        assertDiagnosis(d, Severity.MEDIUM, false, 0.12, Map.of(Phase.PIPELINE_BUBBLE, 1.2));
        assertTrue(d.explanation().contains("The pipeline bubble takes 1.5 s of the 10 s step: each stage idles (pp - 1) /"
                + " (v x m) of the compute, (8 - 1) / (1 x 8) = 0.875. Of these, 1.5 s - 0.3 s = 1.2 s are this diagnosis'"
                + " once slow-attention-kernel took theirs; 1.2 s / 10 s = 12% of the step."), d.explanation());
    }

    @Test
    void pipelineBubbleSilentWhenSmallOrWithoutPipeline() {
        // 0.3 of 8.8 s = 0.034
        assertFalse(fired(step(0.3).fire(), "pipeline-bubble"));
        // no pipeline: whatever the phase says, there is no bubble to shrink
        RuleEngine.Result noPipeline = GivenFacts.of(with(run(GPT3_TP16), "pp", 1)).compute(2.5, 5.6, 0.4)
                .phase(Phase.PIPELINE_BUBBLE, 1.5).fire();
        assertFalse(fired(noPipeline, "pipeline-bubble"));
    }
}
