package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.OffloadFact;
import dev.trainadvisor.facts.Severity;
import dev.trainadvisor.facts.PartialOffloadFact;
import dev.trainadvisor.facts.Saving;
import dev.trainadvisor.perf.Offloading;
import dev.trainadvisor.perf.Phase;
import dev.trainadvisor.spec.Hosts;
import dev.trainadvisor.spec.Offload;
import org.junit.jupiter.api.Test;

import static dev.trainadvisor.engine.GivenFacts.*;
import static org.junit.jupiter.api.Assertions.*;

/** rules/offload.drl on given facts: the step's phases and what offload costs, chosen here. */
class OffloadRulesTest {

    static final Offload FSDP_OFFLOAD = new Offload(Offload.Tier.CPU, Offload.Tier.CPU, Offload.Tier.CPU, Offload.Tier.CPU,
            Offload.Tier.NONE, 1.0, null);

    /**
     * A host rate chosen here: {@code ranks} ranks of {@code threads} threads each on the 16-core H200 machine, the
     * threads alone good for {@code coresPerS} a rank, the memory for {@code bandwidthPerS}.
     */
    static Offloading.HostRate rate(String optimizer, int ranks, double threads, boolean bound, double coresPerS,
                                    double bandwidthPerS, double share) {
        return new Offloading.HostRate(Hosts.builtIn().optimizer(optimizer), Hosts.builtIn().hosts().get("h200-machine"),
                ranks, threads, bound, ranks * threads / 16.0, coresPerS, bandwidthPerS, share,
                Math.min(coresPerS, bandwidthPerS) * share);
    }

    /** 1.3e9 parameters updated by the host at 0.7e9 a second: 1.86 s; 0.5 s of copies at 55 GB/s. One rank, 16 cores. */
    static OffloadFact offload(double hostOptimizerS, double copiesS) {
        return offload(hostOptimizerS, copiesS, rate("torch-adamw", 1, 16, false, 0.7e9, 1.02e9, 1));
    }

    static OffloadFact offload(double hostOptimizerS, double copiesS, Offloading.HostRate rate) {
        return new OffloadFact("optimizer: cpu, master_weights: cpu, gradients: cpu, parameters: cpu", hostOptimizerS, copiesS,
                0, hostOptimizerS * rate.paramsPerS(), 55.2, rate, FSDP_OFFLOAD);
    }

    @Test
    void aStepThatWaitsForTheHostIsOffloadBoundAndNamesTheOptimizer() {
        // 0.2 + 0.4 s of compute, 1.86 s of the host's optimizer and 0.5 s of copies: 2.36 of 2.98 s
        RuleEngine.Result r = GivenFacts.of(run(PCIE)).compute(0.2, 0.4, 0).phase(Phase.HOST_OPTIMIZER, 1.86)
                .phase(Phase.OFFLOAD_COPIES, 0.5).fact(offload(1.86, 0.5)).fire();
        Diagnosis d = r.diagnoses().stream().filter(x -> x.id().equals("offload-bound")).findFirst().orElseThrow();
        assertEquals(Severity.HIGH, d.severity());
        assertEquals(2.36 / (0.2 + 0.4 + 1.86 + 0.5), d.impactFraction(), 1e-9);
        assertTrue(d.explanation().contains("Most of it is the host's optimizer step"), d.explanation());
        assertTrue(proposed(r, "drop-offload"));
    }

    @Test
    void copiesThatOutweighTheOptimizerAreSaidToBeTheLargerPart() {
        RuleEngine.Result r = GivenFacts.of(run(PCIE)).compute(0.2, 0.4, 0).phase(Phase.HOST_OPTIMIZER, 0.3)
                .phase(Phase.OFFLOAD_COPIES, 1.2).fact(offload(0.3, 1.2)).fire();
        Diagnosis d = r.diagnoses().stream().filter(x -> x.id().equals("offload-bound")).findFirst().orElseThrow();
        assertFalse(d.explanation().contains("Most of it is the host's optimizer step"), d.explanation());
        assertTrue(d.explanation().contains("The copies over the host link"), d.explanation());
    }

    @Test
    void aCheapOffloadIsRuledOutAndNotUndone() {
        // 0.05 s of a 5 s step: under the 5% threshold
        RuleEngine.Result r = GivenFacts.of(run(PCIE)).compute(1.5, 3.45, 0).phase(Phase.HOST_OPTIMIZER, 0.05)
                .fact(offload(0.05, 0)).fire();
        assertFalse(fired(r, "offload-bound"));
        assertFalse(proposed(r, "drop-offload"));
        // and a run that offloads nothing has no such cause, whatever its optimizer costs
        assertFalse(fired(GivenFacts.of(run(PCIE)).compute(0.2, 0.4, 0).phase(Phase.OPTIMIZER, 2).fire(), "offload-bound"));
    }

    @Test
    void theParametersAreOffloadedToFitOnlyWhereTheOptimizerAloneDoesNotMakeRoom() {
        GivenRun zero3 = with(run(PCIE), "zeroStage", 3);
        Diagnosis overflow = new Diagnosis("memory-overflow", "given", Severity.HIGH, 0, "given", java.util.List.of(),
                "given", java.util.List.of(), false);
        // the optimizer's offload priced: the run still does not fit, or it does
        Saving stillOver = new Saving(Saving.Kind.OPTIMIZER_OFFLOAD, 0, java.util.List.of(), false);
        Saving fits = new Saving(Saving.Kind.OPTIMIZER_OFFLOAD, 0, java.util.List.of(), true);
        RuleEngine.Result tight = GivenFacts.of(zero3).memory(100, 80).fact(overflow).fact(stillOver).fire();
        assertTrue(proposed(tight, "offload-optimizer-to-fit"));
        assertTrue(proposed(tight, "offload-parameters-to-fit"));
        RuleEngine.Result roomy = GivenFacts.of(zero3).memory(100, 80).fact(overflow).fact(fits).fire();
        assertTrue(proposed(roomy, "offload-optimizer-to-fit"));
        assertFalse(proposed(roomy, "offload-parameters-to-fit"));
        // a run that already offloads is not told to (the lever does not apply to it), nor one that fits
        GivenRun offloading = with(zero3, "offload", dev.trainadvisor.facts.FactBuilder.OPTIMIZER_OFFLOAD);
        assertFalse(proposed(GivenFacts.of(offloading).memory(100, 80).fact(overflow).fact(offload(1, 0)).fire(), "offload-optimizer-to-fit"));
        assertFalse(proposed(GivenFacts.of(zero3).memory(60, 80).fact(overflow).fire(), "offload-optimizer-to-fit"));
    }

    @Test
    void aHostWhoseMemoryBoundsTheOptimizerIsHostMemoryBoundAndOffloadBoundKeepsOnlyTheCopies() {
        // 8 bound ranks of 2 cores: their threads would run 0.166e9 each, the memory allows 84.7e9 / 83 / 8 = 0.128e9
        Offloading.HostRate r = rate("torch-adamw", 8, 2, true, 0.166e9, 0.128e9, 1);
        RuleEngine.Result res = GivenFacts.of(run(PCIE)).compute(0.2, 0.4, 0).phase(Phase.HOST_OPTIMIZER, 1.5)
                .phase(Phase.OFFLOAD_COPIES, 0.3).fact(offload(1.5, 0.3, r)).fire();
        Diagnosis mem = res.diagnoses().stream().filter(x -> x.id().equals("host-memory-bound")).findFirst().orElseThrow();
        assertEquals(1.5 / 2.4, mem.impactFraction(), 1e-9);
        assertTrue(mem.explanation().contains("84.7"), mem.explanation());
        Diagnosis off = res.diagnoses().stream().filter(x -> x.id().equals("offload-bound")).findFirst().orElseThrow();
        assertEquals(0.3 / 2.4, off.impactFraction(), 1e-9);
        // a fused kernel costs fewer bytes a parameter: proposed for PyTorch's loop
        assertTrue(proposed(res, "fused-host-optimizer"));
        // the same seconds bound by the cores: offload-bound has them all, no host-memory-bound
        RuleEngine.Result cores = GivenFacts.of(run(PCIE)).compute(0.2, 0.4, 0).phase(Phase.HOST_OPTIMIZER, 1.5)
                .phase(Phase.OFFLOAD_COPIES, 0.3).fact(offload(1.5, 0.3, rate("torch-adamw", 8, 2, true, 0.166e9, 0.2e9, 1)))
                .fire();
        assertFalse(fired(cores, "host-memory-bound"));
        assertEquals(1.8 / 2.4, cores.diagnoses().stream().filter(x -> x.id().equals("offload-bound")).findFirst()
                .orElseThrow().impactFraction(), 1e-9);
    }

    @Test
    void aFusedHostOptimizerIsNotOfferedWhereTheHostAlreadyRunsOne() {
        RuleEngine.Result r = GivenFacts.of(run(PCIE)).compute(0.2, 0.4, 0).phase(Phase.HOST_OPTIMIZER, 1.5)
                .fact(offload(1.5, 0, rate("deepspeed-cpuadam", 1, 16, false, 3.58e9, 4.59e9, 1))).fire();
        assertTrue(fired(r, "offload-bound"));
        assertFalse(proposed(r, "fused-host-optimizer"));
    }

    @Test
    void coresAreBoundWhereRanksOversubscribeThemOrLeaveThemIdleAndNotWhereEachHasItsShare() {
        // DeepSpeed's launcher unbound: 8 ranks x 16 threads on 16 cores, 0.285 of the bound rate kept
        RuleEngine.Result over = GivenFacts.of(run(PCIE)).compute(0.2, 0.4, 0).phase(Phase.HOST_OPTIMIZER, 1.5)
                .fact(offload(1.5, 0, rate("deepspeed-cpuadam", 8, 16, false, 1.11e9, 0.57e9, 0.5))).fire();
        assertTrue(proposed(over, "bind-host-cores"));
        // torchrun: 8 ranks of 1 thread, 8 of the 16 cores idle
        RuleEngine.Result idle = GivenFacts.of(run(PCIE)).compute(0.2, 0.4, 0).phase(Phase.HOST_OPTIMIZER, 1.5)
                .fact(offload(1.5, 0, rate("torch-adamw", 8, 1, false, 0.0976e9, 0.128e9, 1))).fire();
        assertTrue(proposed(idle, "bind-host-cores"));
        // bound, 2 threads each on 2 cores: nothing to bind
        RuleEngine.Result bound = GivenFacts.of(run(PCIE)).compute(0.2, 0.4, 0).phase(Phase.HOST_OPTIMIZER, 1.5)
                .fact(offload(1.5, 0, rate("torch-adamw", 8, 2, true, 0.166e9, 0.2e9, 1))).fire();
        assertFalse(proposed(bound, "bind-host-cores"));
    }

    @Test
    void aPartialOffloadIsOfferedOnlyWhereTheMemoryModelFoundAShareThatFits() {
        RuleEngine.Result none = GivenFacts.of(run(PCIE)).compute(0.2, 0.4, 0).phase(Phase.HOST_OPTIMIZER, 1.5)
                .fact(offload(1.5, 0)).fire();
        assertFalse(proposed(none, "partial-offload"));
        RuleEngine.Result some = GivenFacts.of(run(PCIE)).compute(0.2, 0.4, 0).phase(Phase.HOST_OPTIMIZER, 1.5)
                .fact(offload(1.5, 0)).fact(new PartialOffloadFact(0.35, FSDP_OFFLOAD.withRatio(0.35),
                        "zero_optimization.offload_optimizer.ratio")).fire();
        assertTrue(proposed(some, "partial-offload"));
    }
}
