package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Rules slow-attention-kernel and eager-elementwise of rules/compute.drl: each fires and stays silent. */
class KernelRulesTest {

    @Test
    void slowAttentionKernelFiresOnTritonAttention() {
        // Triton attention takes 1.2 s of a 4 s step; FA2 at 1/0.70 its rate would save 0.36 s, 9% of the step
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").step(4.0, 1000)
                .kernels("triton", "fused", 1.2, 0.36, 0.5, 0, 4.0).fire();
        Diagnosis d = GivenFacts.only(r, "slow-attention-kernel");
        assertEquals(0.36 / 4.0, d.impactFraction(), 1e-12);
        assertTrue(d.explanation().contains("triton kernel"), d.explanation());
        assertTrue(r.proposals().stream().anyMatch(p -> p.id().equals("flash-attention-2")
                && "fa2".equals(p.change().get("training.attention_kernel"))));
    }

    @Test
    void withoutFlashAttentionTheRemedyTurnsItOn() {
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").step(4.0, 1000)
                .kernels("none", "fused", 1.6, 0.8, 0.9, 0, 4.0).fire();
        assertEquals(0.2, GivenFacts.only(r, "slow-attention-kernel").impactFraction(), 1e-12);
        assertTrue(r.proposals().stream().anyMatch(p -> p.id().equals("flash-attention-2")
                && Boolean.TRUE.equals(p.change().get("training.flash_attention"))));
    }

    @Test
    void slowAttentionKernelSilentBelowFivePercent() {
        // 0.19 s of a 4 s step is 4.75%
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").step(4.0, 1000)
                .kernels("fa1", "fused", 0.38, 0.19, 0.5, 0, 4.0).fire();
        assertFalse(GivenFacts.fired(r, "slow-attention-kernel"));
    }

    @Test
    void eagerElementwiseFiresWhenFusingSavesEnough() {
        // eager composites take 1.4 s of a 5 s step; fused they would take 0.45 s: 0.95 s saved = 19%
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").step(5.0, 1000)
                .kernels("fa2", "eager", 1.0, 0, 1.4, 0.95, 5.0).fire();
        Diagnosis d = GivenFacts.only(r, "eager-elementwise");
        assertEquals(0.19, d.impactFraction(), 1e-12);
        assertTrue(r.proposals().stream().anyMatch(p -> p.id().equals("fused-elementwise")
                && "fused".equals(p.change().get("training.elementwise_kernels"))));
        assertFalse(GivenFacts.fired(r, "slow-attention-kernel"), "FA2 saves nothing over FA2");
    }

    @Test
    void eagerElementwiseSilentWhenFused() {
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").step(5.0, 1000)
                .kernels("fa2", "fused", 1.0, 0, 0.45, 0, 5.0).fire();
        assertFalse(GivenFacts.fired(r, "eager-elementwise"));
    }
}
