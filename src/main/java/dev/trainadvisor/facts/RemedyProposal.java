package dev.trainadvisor.facts;

import java.util.List;
import java.util.Map;

/**
 * A change a rule proposes, in run-file terms: {@code change} maps dotted run-file fields
 * ("parallel.zero_group_size") to their new values (null removes the field). Java evaluates it
 * through the step model before it becomes a recommendation.
 */
public record RemedyProposal(String id, String action, Map<String, Object> change, List<String> addresses,
                             String explanation, String rule) {

    public RemedyProposal {
        change = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(change));
        addresses = List.copyOf(addresses);
    }
}
