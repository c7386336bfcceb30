package dev.trainadvisor.engine;

import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.*;

/** Every rule names its diagnosis id (one of DESIGN.md section 7), a title and a description. */
class RuleMetadataTest {
    static final Set<String> DESIGN_IDS = Set.of("intra-node-bandwidth", "inter-node-bandwidth", "tp-across-nodes",
            "pipeline-bubble", "unoverlapped-communication", "small-micro-batch", "recompute-overhead", "memory-overflow",
            "memory-headroom", "link-underperforms", "optimizer-step-bound", "unexplained-slowdown", "loss-scale-skips",
            "flops-accounting", "healthy");

    @Test
    void everyRuleCarriesItsMetadata() {
        var rules = RuleEngine.builtIn().rules();
        for (RuleInfo r : rules) {
            assertTrue(DESIGN_IDS.contains(r.id()), r.name() + " emits an id outside DESIGN.md: " + r.id());
            assertFalse(r.title().isBlank(), r.name());
            assertTrue(r.description().length() > 40, r.name() + " needs a description that says why");
            assertTrue(r.file().startsWith("rules/"), r.file());
        }
        Set<String> ids = rules.stream().map(RuleInfo::id).collect(Collectors.toSet());
        assertTrue(ids.containsAll(Set.of("intra-node-bandwidth", "inter-node-bandwidth", "flops-accounting", "healthy")), ids.toString());
    }
}
