package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Rules of rules/compute.drl: small-micro-batch, recompute-overhead, optimizer-step-bound. Each fires and stays silent. */
class ComputeRulesTest {

    @Test
    void smallMicroBatchFiresOnAPartlyEmptyLastWave() {
        // 70% of the SMs busy; compute is 80% of a 2 s step: (1 - 0.70) x 1.6 / 2 = 0.24 -> high
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").step(2.0, 1.0, 0.70, 0.01, 512).fire();
        Diagnosis d = GivenFacts.only(r, "small-micro-batch");
        assertEquals(0.30 * 1.6 / 2.0, d.impactFraction(), 1e-12);
        assertTrue(d.explanation().contains("512 tokens per micro-batch"), d.explanation());
        assertTrue(r.proposals().stream().anyMatch(p -> p.id().equals("larger-micro-batch")));
    }

    @Test
    void smallMicroBatchSilentWhenTheWavesAreFull() {
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").step(2.0, 1.0, 0.95, 0.01, 4096).fire();
        assertFalse(GivenFacts.fired(r, "small-micro-batch"));
    }

    @Test
    void recomputeOverheadFiresWhenMemoryIsFree() {
        // full recompute of a 7B GPT-like model: hardware / model FLOPs 1.33; compute 80% of the step ->
        // (1.33 - 1) / 1.33 x 0.8 = 0.198; 40 of 80 GB used
        RuleEngine.Result r = GivenFacts.of("runs/gpt3-tp16.yaml").step(2.0, 1.33, 0.95, 0.01, 2048).memory(40, 80).fire();
        Diagnosis d = GivenFacts.only(r, "recompute-overhead");
        assertEquals(0.33 / 1.33 * 0.8, d.impactFraction(), 1e-12);
        // the fixture recomputes selectively: the remedy is to keep everything
        assertTrue(r.proposals().stream().anyMatch(p -> p.id().equals("no-recompute")));
    }

    @Test
    void recomputeOverheadSilentWhenMemoryIsTight() {
        RuleEngine.Result r = GivenFacts.of("runs/gpt3-tp16.yaml").step(2.0, 1.33, 0.95, 0.01, 2048).memory(75, 80).fire();
        assertFalse(GivenFacts.fired(r, "recompute-overhead"));
    }

    @Test
    void optimizerStepBoundFiresAndProposesShardingWithoutZero() {
        // 0.3 s of a 2 s step = 15% -> medium; the fixture runs ZeRO-0 with dp 8
        RuleEngine.Result r = GivenFacts.of("runs/llama-2-7b-a100-40gb-zero0.yaml").step(2.0, 1.0, 0.95, 0.3, 4096).fire();
        Diagnosis d = GivenFacts.only(r, "optimizer-step-bound");
        assertEquals(0.15, d.impactFraction(), 1e-12);
        assertEquals("medium", d.severity());
        assertTrue(r.proposals().stream().anyMatch(p -> p.id().equals("zero-stage-1")
                && Integer.valueOf(1).equals(p.change().get("parallel.zero_stage"))));
    }

    @Test
    void optimizerStepBoundSilentWhenSmall() {
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").step(2.0, 1.0, 0.95, 0.02, 4096).fire();
        assertFalse(GivenFacts.fired(r, "optimizer-step-bound"));
    }
}
