package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Cause;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Every rule names its id (the diagnosis, remedy or derived fact it concludes), a title and a description; every id
 * the design of the rules (docs/rules.md) requires exists, and the diagnoses are exactly facts.Cause's, so that a misspelt id fails.
 */
class RuleMetadataTest {
    static final Set<String> DESIGN_IDS = Set.of("intra-node-bandwidth", "inter-node-bandwidth", "tp-across-nodes",
            "pipeline-bubble", "unoverlapped-communication", "small-micro-batch", "recompute-overhead", "memory-overflow",
            "memory-headroom", "link-underperforms", "optimizer-step-bound", "unexplained-slowdown", "loss-scale-skips",
            "flops-accounting", "healthy");
    /** Rules that derive facts for the others (symptoms, faults, bottlenecks, levers and their prices). */
    static final Set<String> DERIVED_IDS = Set.of("slower-than-model", "faster-than-model-symptom", "as-modelled",
            "bottleneck", "fault-from-fit", "fault-chosen-by-fit", "fault-measured-intra-node", "fault-measured-inter-node",
            "lever-overlap-grad-reduce", "lever-overlap-param-gather", "lever-flash-attention-2", "lever-fused-elementwise",
            "lever-cuda-graphs", "lever-fused-optimizer", "lever-optimizer-offload", "lever-priced");
    /** Remedies, one rule each (rules/remedies.drl). */
    static final Set<String> REMEDY_IDS = Set.of("nvlink-nodes", "fix-intra-node-link", "fix-network",
            "overlap-param-gather", "overlap-grad-reduce", "bf16-grad-reduce", "more-micro-batches", "intra-node-sharding",
            "more-nics", "tp-inside-node", "interleaved-stages", "larger-micro-batch", "double-micro-batch", "selective-recompute",
            "no-recompute", "lower-zero-stage", "zero-stage-1", "zero-stage-2", "zero-stage-3", "full-recompute",
            "smaller-micro-batch", "more-tensor-parallel", "flash-attention-2", "flash-attention-3", "fused-elementwise", "fused-optimizer", "cuda-graphs",
            "fewer-tensor-parallel", "tensor-to-pipeline", "fewer-pipeline-stages", "context-parallel", "experts-inside-node",
            "scale-out-to-fit", "larger-gpu-to-fit", "overlap-expert-all-to-all", "deepep-dispatcher", "async-checkpoint", "exclude-slow-node", "more-data-workers",
            "restore-pace", "grad-reduce-once-a-step", "keep-gathered-weights", "drop-offload", "offload-optimizer-to-fit", "offload-parameters-to-fit",
            "fused-host-optimizer", "bind-host-cores", "partial-offload", "restore-precision", "bf16-mixed-precision");

    @Test
    void everyRuleCarriesItsMetadata() {
        var rules = RuleEngine.builtIn().rules();
        for (RuleInfo r : rules) {
            boolean diagnosis = Cause.byId(r.id()) != null;
            assertTrue(diagnosis || DERIVED_IDS.contains(r.id()) || REMEDY_IDS.contains(r.id()),
                    r.name() + " emits an unknown id: " + r.id());
            if (REMEDY_IDS.contains(r.id())) assertEquals("rules/remedies.drl", r.file(), r.name());
            assertFalse(r.title().isBlank(), r.name());
            assertTrue(r.description().length() > 40, r.name() + " needs a description that says why");
            assertTrue(r.file().startsWith("rules/"), r.file());
            // a diagnosis names the measurement that would confirm it (the report's "confirm by"); nothing else does
            assertEquals(diagnosis, r.confirm() != null && r.confirm().length() > 40, r.name() + ": @confirm(...) "
                    + (diagnosis ? "missing or too short to name a measurement" : "on a rule that concludes no diagnosis"));
        }
        Set<String> ids = rules.stream().map(RuleInfo::id).collect(Collectors.toSet());
        assertTrue(ids.containsAll(DESIGN_IDS), "missing: " + DESIGN_IDS.stream().filter(i -> !ids.contains(i)).toList());
        Set<String> causes = Arrays.stream(Cause.values()).map(Cause::id).collect(Collectors.toSet());
        assertTrue(causes.containsAll(DESIGN_IDS), "DESIGN.md's ids without a Cause: " + DESIGN_IDS.stream().filter(i -> !causes.contains(i)).toList());
        assertTrue(ids.containsAll(causes), "causes no shipped rule concludes: " + causes.stream().filter(i -> !ids.contains(i)).toList());
        assertTrue(ids.containsAll(REMEDY_IDS) && ids.containsAll(DERIVED_IDS), ids.toString());
    }
}
