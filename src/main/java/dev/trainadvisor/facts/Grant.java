package dev.trainadvisor.facts;

import java.util.List;

/**
 * The seconds of the step a rule may claim ({@link Claims#grant}): its claims, their sum and share of the step.
 *
 * @param material whether the seconds reach {@link Materiality#material()} of the step
 */
public record Grant(List<Claim> claims, double seconds, double fraction, boolean material) {

    public Grant {
        claims = List.copyOf(claims);
    }

    /** Seconds granted of one phase. */
    public double of(String phase) {
        double s = 0;
        for (Claim c : claims) if (c.phase().equals(phase)) s += c.seconds();
        return s;
    }

    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Grant g && Double.compare(seconds, g.seconds) == 0
                && Double.compare(fraction, g.fraction) == 0 && material == g.material
                && java.util.Objects.equals(claims, g.claims);
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(claims);
        h = 31 * h + Double.hashCode(seconds);
        h = 31 * h + Double.hashCode(fraction);
        return 31 * h + Boolean.hashCode(material);
    }
}
