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
}
