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
}
