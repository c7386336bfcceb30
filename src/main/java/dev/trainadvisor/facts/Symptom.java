package dev.trainadvisor.facts;

import java.util.Locale;

/**
 * A derived fact (rules/measurement.drl inserts it logically): how the run's throughput stands against what the
 * model predicts for it, judged by {@link Materiality#modelError()}.
 *
 * @param observedOverPredicted observed over the catalogue prediction, tokens per GPU per second
 */
public record Symptom(Kind kind, double observedOverPredicted) {

    public enum Kind {
        /** Slower than the prediction by the model's error or more. */
        SLOWER_THAN_MODEL,
        /** Faster than the prediction by the model's error or more. */
        FASTER_THAN_MODEL,
        /** Within the model's error. */
        AS_MODELLED;

        private final String key = name().toLowerCase(Locale.ROOT).replace('_', '-');
        public String key() { return key; }
    }

    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Symptom s
                && Double.compare(observedOverPredicted, s.observedOverPredicted) == 0
                && java.util.Objects.equals(kind, s.kind);
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(kind);
        return 31 * h + Double.hashCode(observedOverPredicted);
    }
}
