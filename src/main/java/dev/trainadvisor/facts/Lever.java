package dev.trainadvisor.facts;

import dev.trainadvisor.spec.RunChange;

/**
 * A switch the run could turn that is a cause's measure and a remedy's action at once: an overlap it leaves off, a
 * slower kernel than the one it could run, the optimizer's offload of a run that does not fit. Where one applies is
 * declared once, in rules/levers.drl, reading the typed run; what it saves is priced by the step model
 * ({@link Pricer}: a {@link Saving} of the same kind), the diagnoses weigh that saving, and the remedy that proposes it
 * matches the lever and makes its change.
 *
 * @param change the run-file fields it sets
 */
public record Lever(Saving.Kind kind, RunChange change) {}
