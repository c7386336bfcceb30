package dev.trainadvisor.engine;

import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Every rule names its diagnosis id, a title and a description; every id DESIGN.md section 7 requires exists, and the
 * ids beyond it ("more are welcome") are listed here, so that a misspelt id fails.
 */
class RuleMetadataTest {
    static final Set<String> DESIGN_IDS = Set.of("intra-node-bandwidth", "inter-node-bandwidth", "tp-across-nodes",
            "pipeline-bubble", "unoverlapped-communication", "small-micro-batch", "recompute-overhead", "memory-overflow",
            "memory-headroom", "link-underperforms", "optimizer-step-bound", "unexplained-slowdown", "loss-scale-skips",
            "flops-accounting", "healthy");
    static final Set<String> MORE_IDS = Set.of("slow-attention-kernel", "eager-elementwise");

    @Test
    void everyRuleCarriesItsMetadata() {
        var rules = RuleEngine.builtIn().rules();
        for (RuleInfo r : rules) {
            assertTrue(DESIGN_IDS.contains(r.id()) || MORE_IDS.contains(r.id()), r.name() + " emits an unknown id: " + r.id());
            assertFalse(r.title().isBlank(), r.name());
            assertTrue(r.description().length() > 40, r.name() + " needs a description that says why");
            assertTrue(r.file().startsWith("rules/"), r.file());
        }
        Set<String> ids = rules.stream().map(RuleInfo::id).collect(Collectors.toSet());
        assertTrue(ids.containsAll(DESIGN_IDS), "missing: " + DESIGN_IDS.stream().filter(i -> !ids.contains(i)).toList());
        assertTrue(ids.containsAll(MORE_IDS), ids.toString());
    }
}
