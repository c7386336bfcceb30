package dev.trainadvisor.facts;

import dev.trainadvisor.perf.LinkScope;

/**
 * A derived fact (rules/communication.drl inserts it logically): the collectives bound by one link leave this much of
 * the step exposed.
 */
public record Bottleneck(LinkScope scope, String link, double exposedSeconds) {
    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Bottleneck b && Double.compare(exposedSeconds, b.exposedSeconds) == 0
                && java.util.Objects.equals(scope, b.scope) && java.util.Objects.equals(link, b.link);
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(scope);
        h = 31 * h + java.util.Objects.hashCode(link);
        return 31 * h + Double.hashCode(exposedSeconds);
    }
}
