package dev.trainadvisor.facts;

import dev.trainadvisor.spec.RunChange;

import java.util.List;

/**
 * A change a rule proposes, as typed run-file fields to new values ({@link RunChange}). Java prices it through the
 * step model before it becomes a recommendation.
 *
 * @param sameMath  false when the change alters the optimisation (the global batch, the sequence length, the
 *                  precision of the weights): the run would then train a different model, however fast
 * @param addresses the diagnosis ids it answers
 * @param reason    why it helps, one sentence without numbers (the pricing adds them)
 * @param wallShare for a remedy of what the run's history shows (a stall, a straggler, a data loader, a slowdown) that
 *                  the step model does not model: the share of the run's wall time it would win back, measured from
 *                  the history; NaN for a change the step model prices
 */
public record RemedyProposal(String id, String action, RunChange change, boolean sameMath,
                             List<String> addresses, String reason, String rule, double wallShare) {

    public RemedyProposal {
        addresses = List.copyOf(addresses);
    }

    /** A change the step model prices. */
    public RemedyProposal(String id, String action, RunChange change, boolean sameMath, List<String> addresses,
                          String reason, String rule) {
        this(id, action, change, sameMath, addresses, reason, rule, Double.NaN);
    }

    /** Whether it is priced by the wall time the history says it wins back, not by the step model. */
    public boolean byHistory() { return !Double.isNaN(wallShare); }

    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof RemedyProposal r && sameMath == r.sameMath
                && Double.compare(wallShare, r.wallShare) == 0 && java.util.Objects.equals(id, r.id)
                && java.util.Objects.equals(action, r.action) && java.util.Objects.equals(change, r.change)
                && java.util.Objects.equals(addresses, r.addresses) && java.util.Objects.equals(reason, r.reason)
                && java.util.Objects.equals(rule, r.rule);
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(id);
        h = 31 * h + java.util.Objects.hashCode(action);
        h = 31 * h + java.util.Objects.hashCode(change);
        h = 31 * h + Boolean.hashCode(sameMath);
        h = 31 * h + java.util.Objects.hashCode(addresses);
        h = 31 * h + java.util.Objects.hashCode(reason);
        h = 31 * h + java.util.Objects.hashCode(rule);
        return 31 * h + Double.hashCode(wallShare);
    }
}
