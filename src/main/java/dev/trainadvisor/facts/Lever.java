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
public record Lever(Saving.Kind kind, RunChange change) {
    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Lever l && java.util.Objects.equals(kind, l.kind)
                && java.util.Objects.equals(change, l.change);
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(kind);
        return 31 * h + java.util.Objects.hashCode(change);
    }
}
