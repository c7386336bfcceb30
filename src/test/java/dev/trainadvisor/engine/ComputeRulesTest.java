package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.Lever;
import dev.trainadvisor.facts.Saving;
import dev.trainadvisor.facts.Severity;
import dev.trainadvisor.perf.FitHypothesis;
import dev.trainadvisor.perf.FitParam;
import dev.trainadvisor.perf.Phase;
import dev.trainadvisor.spec.AttentionKernel;
import dev.trainadvisor.spec.ElementwiseKernels;
import dev.trainadvisor.spec.Recompute;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.trainadvisor.engine.GivenFacts.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * rules/compute.drl on given facts: compute below the GPU's benchmarks (a fault the fit finds), attention and
 * element-wise kernels slower than they could be, recomputation, GEMMs too small for the GPU, and the optimizer step.
 * The step is 2.5 s forward, 5.3 s backward and 0.2 s optimizer (0.2 / 8 = 0.025, not material) unless a test says.
 */
class ComputeRulesTest {

    static GivenFacts step(GivenRun run) { return GivenFacts.of(run).compute(2.5, 5.3, 0.2); }

    /** Compute fitted at 0.6 of its expected scale, 0.9 of the posterior around 0.6. */
    static GivenFacts slowCompute() {
        // P(below 0.9) = 0.9 x Phi((ln 0.9 - ln 0.6) / 0.05 = 8.1) = 0.9 >= 0.5: a fault
        return step(run(PCIE)).fittedParameter(FitParam.COMPUTE_SCALE, 1.0, 0.6, 2.4,
                component(FitParam.COMPUTE_SCALE, 0.9, 0.6, 0.05));
    }

    @Test
    void computeUnderperformsClaimsWhatTheBenchmarksPaceWouldSave() {
        // at scale 1 the step saves 0.8 s forward and 1.6 s backward: 2.4 / 8 = 0.30 -> high. The intra-node link's
        // hypothesis (0.35 x 3 >= 0.9, at 0.6 of its rating) is a rival the times cannot tell from it
        RuleEngine.Result r = slowCompute().saving(Saving.Kind.RESTORE_COMPUTE_SCALE, Phase.FORWARD, 0.8, Phase.BACKWARD, 1.6)
                .hypothesis(FitHypothesis.COMPUTE_SCALE, 0.9, true, false, 0.6, 1.0)
                .hypothesis(FitHypothesis.INTRA_NODE_BUSBW, 0.35, false, true, 6, 10).fire();
        Diagnosis d = only(r, "compute-underperforms");
        assertDiagnosis(d, Severity.HIGH, true, 0.3, Map.of(Phase.FORWARD, 0.8, Phase.BACKWARD, 1.6));
        assertEquals(0.6, evidence(d, "compute_scale.fitted"), 1e-9);
        assertEquals(90, evidence(d, "compute_scale.posterior"), 1e-6);
        assertEquals(35, evidence(d, "rival.intra-node-busbw.posterior"), 1e-9);
        String e = d.explanation();
        assertTrue(e.contains("GEMMs and attention run at 0.6x of what this GPU reaches in benchmarks (probability 90%)"), e);
        assertTrue(e.contains("the step would be 2.4 s shorter: 2.4 s / 8 s = 30% of the 8 s step"), e);
        assertTrue(e.contains("cannot tell this from the intra-node link at 0.6x (probability 35%)"), e);
        assertTrue(e.contains("nccl-tests all_reduce_perf on one node"), e);
    }

    @Test
    void computeUnderperformsSilentWhenTheRepairIsSmallOrComputeIsNotFaulty() {
        // 0.1 + 0.2 = 0.3 of 8 s = 0.0375 < 0.05
        RuleEngine.Result small = slowCompute().saving(Saving.Kind.RESTORE_COMPUTE_SCALE, Phase.FORWARD, 0.1, Phase.BACKWARD, 0.2)
                .fire();
        assertFalse(fired(small, "compute-underperforms"));
        // fitted at 0.95: P(below 0.9) = 0.9 x Phi((ln 0.9 - ln 0.95) / 0.02 = -2.7) = 0.003 < 0.5
        RuleEngine.Result fine = step(run(PCIE)).fittedParameter(FitParam.COMPUTE_SCALE, 1.0, 0.95, 0.4,
                        component(FitParam.COMPUTE_SCALE, 0.9, 0.95, 0.02))
                .saving(Saving.Kind.RESTORE_COMPUTE_SCALE, Phase.FORWARD, 0.8, Phase.BACKWARD, 1.6).fire();
        assertFalse(fired(fine, "compute-underperforms"));
    }

    @Test
    void aLogThatTimesOnlyTheStepNamesTheDataLoaderAndIsNeverSurerThanMedium() {
        // the same 30% as above, from a log that times only the step (the Trainer's): capped at medium, the data
        // loader and the measurement that decides named
        RuleEngine.Result stepOnly = slowCompute().saving(Saving.Kind.RESTORE_COMPUTE_SCALE, Phase.FORWARD, 0.8, Phase.BACKWARD, 1.6)
                .fact(new dev.trainadvisor.facts.LogCoverageFact(false, false, false, "hf-trainer")).fire();
        Diagnosis d = only(stepOnly, "compute-underperforms");
        assertEquals(Severity.MEDIUM, d.severity());
        assertTrue(d.explanation().contains("dataloader_num_workers"), d.explanation());
        assertTrue(d.explanation().contains("nvidia-smi dmon"), d.explanation());
        // a log that times forward-backward (Megatron's, DeepSpeed's) decides: high, nothing added
        RuleEngine.Result timed = slowCompute().saving(Saving.Kind.RESTORE_COMPUTE_SCALE, Phase.FORWARD, 0.8, Phase.BACKWARD, 1.6)
                .fact(new dev.trainadvisor.facts.LogCoverageFact(false, true, true, "megatron-lm")).fire();
        Diagnosis t = only(timed, "compute-underperforms");
        assertEquals(Severity.HIGH, t.severity());
        assertFalse(t.explanation().contains("data loader"), t.explanation());
    }

    @Test
    void slowAttentionKernelWithoutFlashAttention() {
        // FlashAttention-2 saves 0.5 + 1.0 = 1.5 of 8 s = 0.1875 -> medium
        RuleEngine.Result r = step(with(run(PCIE), "flashAttention", false))
                .saving(Saving.Kind.FLASH_ATTENTION_2, Phase.FORWARD, 0.5, Phase.BACKWARD, 1.0).fire();
        Diagnosis d = only(r, "slow-attention-kernel");
        assertDiagnosis(d, Severity.MEDIUM, false, 1.5 / 8, Map.of(Phase.FORWARD, 0.5, Phase.BACKWARD, 1.0));
        assertTrue(d.explanation().contains("The run computes attention without flash attention; FlashAttention-2 would run the"
                + " step 1.5 s faster: 1.5 s / 8 s = 18.75% of the 8 s step."), d.explanation());
        assertFalse(d.explanation().contains("needs an Ampere"), d.explanation());
    }

    @Test
    void slowAttentionKernelNamesTheKernelAndAnOldGpu() {
        RuleEngine.Result fa1 = step(with(run(PCIE), "attentionKernel", AttentionKernel.FA1))
                .saving(Saving.Kind.FLASH_ATTENTION_2, Phase.FORWARD, 0.5, Phase.BACKWARD, 1.0).fire();
        assertTrue(only(fa1, "slow-attention-kernel").explanation().contains("with the fa1 kernel"));
        GivenRun v100 = with(run(PCIE), "gpu", "V100-SXM2-32GB", "flashAttention", false);
        RuleEngine.Result old = step(v100).saving(Saving.Kind.FLASH_ATTENTION_2, Phase.FORWARD, 0.5, Phase.BACKWARD, 1.0).fire();
        assertTrue(only(old, "slow-attention-kernel").explanation().contains("FlashAttention-2 needs an Ampere or later GPU;"
                + " V100-SXM2-32GB is older, so this is what the kernel costs, not a remedy."));
    }

    @Test
    void slowAttentionKernelSilentWhenFlashAttention2WouldSaveLittle() {
        // 0.1 + 0.2 = 0.3 of 8 s = 0.0375
        RuleEngine.Result r = step(with(run(PCIE), "flashAttention", false))
                .saving(Saving.Kind.FLASH_ATTENTION_2, Phase.FORWARD, 0.1, Phase.BACKWARD, 0.2).fire();
        assertFalse(fired(r, "slow-attention-kernel"));
    }

    @Test
    void eagerElementwiseClaimsWhatFusedKernelsSave() {
        // fused kernels save 0.3 + 0.5 = 0.8 of 8 s = 0.10 -> medium
        Diagnosis d = only(eager(ElementwiseKernels.EAGER, 0.3, 0.5), "eager-elementwise");
        assertDiagnosis(d, Severity.MEDIUM, false, 0.1, Map.of(Phase.FORWARD, 0.3, Phase.BACKWARD, 0.5));
        assertTrue(d.explanation().contains("fused, the step would run 0.8 s faster: 0.8 s / 8 s = 10% of the 8 s step."),
                d.explanation());
    }

    /**
     * torchtitan's fused_rmsnorm beside eager rotary and SwiGLU: the lever still applies (their fusing is what the
     * step model prices, 0.8 s here) and the explanation names what runs eager.
     */
    @Test
    void eagerElementwiseBesideAFusedNormNamesWhatRunsEager() {
        RuleEngine.Result r = eager(ElementwiseKernels.EAGER_FUSED_NORM, 0.3, 0.5);
        Diagnosis d = only(r, "eager-elementwise");
        assertDiagnosis(d, Severity.MEDIUM, false, 0.1, Map.of(Phase.FORWARD, 0.3, Phase.BACKWARD, 0.5));
        assertTrue(d.explanation().startsWith("Rotary and the activation run as eager PyTorch composites (the norms are"
                + " fused kernels); fused, the step would run 0.8 s faster"), d.explanation());
        assertEquals(List.of("eager-elementwise"), proposal(r, "fused-elementwise").addresses());
    }

    /**
     * The foreach optimizer: the fused kernel saves 0.5 s of the 1 s optimizer phase of an 8 s step, 6.25%: medium, with
     * the fused-optimizer remedy, claimed before optimizer-step-bound, which keeps the other half; 0.1 s (1.25%) is below
     * Materiality.material and says nothing.
     */
    @Test
    void unfusedOptimizerClaimsWhatTheFusedKernelSaves() {
        GivenRun foreach = with(run(PCIE), "optimizerKernel", dev.trainadvisor.spec.OptimizerKernel.FOREACH);
        RuleEngine.Result r = GivenFacts.of(foreach).compute(2.5, 4.5, 1.0)
                .saving(Saving.Kind.FUSED_OPTIMIZER, Phase.OPTIMIZER, 0.5).fire();
        Diagnosis d = only(r, "unfused-optimizer");
        assertDiagnosis(d, Severity.MEDIUM, false, 0.0625, Map.of(Phase.OPTIMIZER, 0.5));
        assertTrue(d.explanation().contains("one fused kernel would run the step 0.5 s faster: 0.5 s / 8 s = 6.25% of the 8 s"
                + " step."), d.explanation());
        assertEquals(List.of("unfused-optimizer"), proposal(r, "fused-optimizer").addresses());
        assertEquals(0.5, only(r, "optimizer-step-bound").claimed(Phase.OPTIMIZER), 1e-12);
        assertFalse(fired(GivenFacts.of(foreach).compute(2.5, 4.5, 1.0)
                .saving(Saving.Kind.FUSED_OPTIMIZER, Phase.OPTIMIZER, 0.1).fire(), "unfused-optimizer"));
    }

    @Test
    void eagerElementwiseSilentWhenFusingSavesLittle() {
        assertFalse(fired(eager(ElementwiseKernels.EAGER, 0.1, 0.2), "eager-elementwise"));
        assertFalse(fired(eager(ElementwiseKernels.EAGER_FUSED_NORM, 0.1, 0.2), "eager-elementwise"));
    }

    /** The PCIe run with its element-wise work run by {@code kernels}, fusing which saves these seconds. */
    private static RuleEngine.Result eager(ElementwiseKernels kernels, double forwardS, double backwardS) {
        return step(with(run(PCIE), "elementwiseKernels", kernels))
                .saving(Saving.Kind.FUSED_ELEMENTWISE, Phase.FORWARD, forwardS, Phase.BACKWARD, backwardS).fire();
    }

    /**
     * 500 launches at 15 us: 500 x 15 us = 7.5 ms of host time beside 5 ms of GPU work, 10.8 ms a micro-batch; CUDA
     * graphs would save 0.6 + 1.0 = 1.6 of the 8 s step: 0.20 -> high.
     */
    @Test
    void launchBoundClaimsWhatCudaGraphsSave() {
        RuleEngine.Result r = step(run(PCIE)).launches(500, 15e-6, 0.005, 0.0108, 8, false)
                .saving(Saving.Kind.CUDA_GRAPHS, Phase.FORWARD, 0.6, Phase.BACKWARD, 1.0).fire();
        Diagnosis d = only(r, "launch-bound");
        assertDiagnosis(d, Severity.HIGH, false, 0.2, Map.of(Phase.FORWARD, 0.6, Phase.BACKWARD, 1.0));
        assertTrue(d.explanation().contains("Each micro-batch launches 500 kernels; at 15 us a launch the host needs"
                + " 500 x 15 us = 0.0075 s where the GPU works 0.005 s, so a micro-batch takes 0.0108 s. Replayed from CUDA"
                + " graphs the step would be 1.6 s shorter: 1.6 s / 8 s = 20% of the 8 s step."), d.explanation());
    }

    /**
     * Silent where CUDA graphs would save 0.3 of 8 s (0.0375 < material 0.05), or the run replays them already: then
     * the CUDA-graphs lever does not apply (rules/levers.drl), so the step model prices no saving for the rule to weigh.
     */
    @Test
    void launchBoundSilentWhenGraphsSaveLittleOrAreOn() {
        RuleEngine.Result little = step(run(PCIE)).launches(500, 15e-6, 0.005, 0.0108, 8, false)
                .saving(Saving.Kind.CUDA_GRAPHS, Phase.FORWARD, 0.1, Phase.BACKWARD, 0.2).fire();
        assertFalse(fired(little, "launch-bound"));
        assertTrue(derived(little, Lever.class).stream().anyMatch(l -> l.kind() == Saving.Kind.CUDA_GRAPHS));
        RuleEngine.Result on = step(with(run(PCIE), "cudaGraphs", true)).launches(500, 0.86e-6, 0.005, 0.005, 8, true).fire();
        assertFalse(fired(on, "launch-bound"));
        assertTrue(derived(on, Lever.class).stream().noneMatch(l -> l.kind() == Saving.Kind.CUDA_GRAPHS));
    }

    @Test
    void recomputeOverheadWhenMemoryIsFree() {
        // 1.5 s of the 7.8 s of compute recomputed: hardware / model FLOPs = 7.8 / 6.3 = 1.238; 1.5 / 8 = 0.1875 ->
        // medium; 40 of 80 GB = 0.5 < recomputeMemory 0.85
        RuleEngine.Result r = step(with(run(PCIE), "recompute", Recompute.FULL)).recompute(1.5).memory(40, 80).fire();
        Diagnosis d = only(r, "recompute-overhead");
        assertDiagnosis(d, Severity.MEDIUM, false, 1.5 / 8, Map.of(Phase.BACKWARD, 1.5));
        assertEquals(7.8 / 6.3, evidence(d, "flops_ratio"), 1e-9);
        assertTrue(d.explanation().contains("Recomputation (full) runs 55.71 GFLOPs / 45 GFLOPs = 1.238 times the model's FLOPs"
                + " per token: 1.5 s of recomputed forward, 1.5 s / 8 s = 18.75% of the 8 s step, while the step holds 40 GB"
                + " of the 80 GB the GPU has."), d.explanation());
    }

    @Test
    void recomputeOverheadSilentWhenMemoryIsTightOrNothingIsRecomputed() {
        // 72 of 80 GB = 0.9 >= 0.85
        RuleEngine.Result tight = step(with(run(PCIE), "recompute", Recompute.FULL)).recompute(1.5).memory(72, 80).fire();
        assertFalse(fired(tight, "recompute-overhead"));
        RuleEngine.Result none = step(run(PCIE)).recompute(1.5).memory(40, 80).fire();
        assertFalse(fired(none, "recompute-overhead"));
    }

    @Test
    void smallMicroBatchClaimsTheIdleShareOfTheCompute() {
        // GEMMs keep 0.75 of the SMs busy: 0.25 x 2 s forward + 0.25 x 4 s backward = 1.5 of 6 s = 0.25 -> high
        RuleEngine.Result r = GivenFacts.of(PCIE).compute(2, 4, 0).wave(0.75, 4096).fire();
        Diagnosis d = only(r, "small-micro-batch");
        assertDiagnosis(d, Severity.HIGH, false, 0.25, Map.of(Phase.FORWARD, 0.5, Phase.BACKWARD, 1.0));
        assertEquals(75, evidence(d, "wave_efficiency"), 1e-9);
        assertEquals(128, evidence(d, "gemm_tile"), 0);
        assertTrue(d.explanation().contains("With 4096 tokens per micro-batch on each GPU, the layer GEMMs keep 75% of the SMs"
                + " busy"), d.explanation());
        assertTrue(d.explanation().contains("cost 1.5 s, 1.5 s / 6 s = 25% of the 6 s step."), d.explanation());
    }

    @Test
    void smallMicroBatchSilentWhenTheWavesAreFull() {
        RuleEngine.Result r = GivenFacts.of(PCIE).compute(2, 4, 0).wave(0.9, 16384).fire();
        assertFalse(fired(r, "small-micro-batch"));
    }

    @Test
    void optimizerStepBoundClaimsTheOptimizerPhase() {
        // 1 s of 2.5 + 4.5 + 1 = 8 s = 0.125 -> medium; without ZeRO every rank updates every parameter, moving fp32
        // master weights, momentum and variance in and out (24 bytes), the bf16 gradient read twice (4) and the bf16
        // weights written (2): 30 bytes
        RuleEngine.Result r = GivenFacts.of(LLAMA_ZERO0).compute(2.5, 4.5, 1.0).fire();
        Diagnosis d = only(r, "optimizer-step-bound");
        assertDiagnosis(d, Severity.MEDIUM, false, 0.125, Map.of(Phase.OPTIMIZER, 1.0));
        assertTrue(d.explanation().contains("The optimizer step takes 1 s, 1 s / 8 s = 12.5% of the 8 s step"), d.explanation());
        assertTrue(d.explanation().contains("Adam reads and writes 24 + 2 x 2 + 2 = 30 bytes per parameter it updates"),
                d.explanation());
        assertTrue(d.explanation().contains("and every data-parallel rank updates all of them."), d.explanation());
        assertEquals(30, evidence(d, "bytes_per_parameter"), 0);
    }

    @Test
    void optimizerStepBoundSilentWhenTheOptimizerIsQuick() {
        // 0.3 of 8 s = 0.0375
        RuleEngine.Result r = GivenFacts.of(LLAMA_ZERO0).compute(2.5, 5.2, 0.3).fire();
        assertFalse(fired(r, "optimizer-step-bound"));
    }
}
