package dev.trainadvisor.facts;

/** How much a diagnosed cause matters, from the share of the step it costs. */
public enum Severity {
    HIGH, MEDIUM, LOW, INFO;

    /** A cause costing a fifth of the step or more is high; a twentieth, medium. */
    public static Severity ofImpact(double impactFraction) {
        if (impactFraction >= 0.20) return HIGH;
        if (impactFraction >= 0.05) return MEDIUM;
        return LOW;
    }

    public String key() { return name().toLowerCase(java.util.Locale.ROOT); }
}
