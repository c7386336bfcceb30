package dev.trainadvisor.facts;

/**
 * Seconds of the step a diagnosis explains: a share of one phase of the predicted step (a compute phase, the
 * pipeline bubble, the optimizer, or one collective's exposed time). No two diagnoses claim the same second, so their
 * impacts never add up past the step.
 *
 * @param phase a phase name of the step's breakdown (perf.Phase constants, or a collective's key)
 */
public record Claim(String phase, double seconds) {
    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Claim c && Double.compare(seconds, c.seconds) == 0
                && java.util.Objects.equals(phase, c.phase);
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(phase);
        return 31 * h + Double.hashCode(seconds);
    }
}
