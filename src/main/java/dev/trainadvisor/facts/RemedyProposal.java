package dev.trainadvisor.facts;

import java.util.List;
import java.util.Map;

/**
 * A change a rule proposes, in run-file terms: {@code change} maps dotted run-file fields
 * ("parallel.zero_group_size") to their new values (null removes the field). Java prices it through the step model
 * before it becomes a recommendation.
 *
 * @param sameMath  false when the change alters the optimisation (the global batch, the sequence length, the
 *                  precision of the weights): the run would then train a different model, however fast
 * @param addresses the diagnosis ids it answers
 * @param reason    why it helps, one sentence without numbers (the pricing adds them)
 */
public record RemedyProposal(String id, String action, Map<String, Object> change, boolean sameMath,
                             List<String> addresses, String reason, String rule) {

    public RemedyProposal {
        change = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(change));
        addresses = List.copyOf(addresses);
    }
}
