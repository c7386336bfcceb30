package dev.trainadvisor.facts;

import java.util.List;

/**
 * A cause a rule found.
 *
 * @param impactFraction the share of the step the seconds it {@code claims} make (0 for findings that are not step
 *                       time: accounting, memory, skipped steps)
 * @param explanation    rendered from {@code evidence}: every number in it is an evidence value, and every formula in
 *                       it checks out from them
 * @param rule           the name of the rule that fired
 * @param claims         the seconds of the step it explains
 * @param fault          whether it is a fault (something does less than it should: a link, the GPUs, the overlap, the
 *                       measurements) rather than the cost of a configuration; at the same severity faults rank first
 * @param confirm        the measurement that would confirm it (the rule's {@code @confirm}); empty when the rule names none
 * @param probability    how sure it is: for a fault the fit singled out, the fit's probability for it; 1 for a cost
 *                       the model computes with no fitted quantity and for what the run measured
 */
public record Diagnosis(String id, String title, Severity severity, double impactFraction, String explanation,
                        List<Evidence> evidence, String rule, List<Claim> claims, boolean fault, String confirm,
                        double probability) {

    public Diagnosis {
        evidence = List.copyOf(evidence);
        claims = List.copyOf(claims);
        confirm = confirm == null ? "" : confirm;
        if (!(probability >= 0 && probability <= 1)) throw new IllegalArgumentException("probability " + probability);
    }

    /** A certain one. */
    public Diagnosis(String id, String title, Severity severity, double impactFraction, String explanation,
                     List<Evidence> evidence, String rule, List<Claim> claims, boolean fault, String confirm) {
        this(id, title, severity, impactFraction, explanation, evidence, rule, claims, fault, confirm, 1);
    }

    /** Under this probability a fault is a possibility: the headline says "Possibly". */
    public static final double EVEN_ODDS = 0.5;

    /** From this probability a cause is sure enough to be named alone; under it the headline says its probability. */
    public static final double SURE = 0.8;

    /** The share of the step it is expected to cost: its probability times the share it claims. */
    public double expectedShare() { return probability * impactFraction; }

    public Diagnosis(String id, String title, Severity severity, double impactFraction, String explanation,
                     List<Evidence> evidence, String rule, List<Claim> claims, boolean fault) {
        this(id, title, severity, impactFraction, explanation, evidence, rule, claims, fault, "");
    }

    /** Its shipped cause, or null for a diagnosis of a user's own id (Cause#byId). */
    public Cause cause() { return Cause.byId(id); }

    /** The seconds it claims. */
    public double claimedSeconds() {
        double s = 0;
        for (Claim c : claims) s += c.seconds();
        return s;
    }

    /** The seconds it claims of one phase. */
    public double claimed(String phase) {
        double s = 0;
        for (Claim c : claims) if (c.phase().equals(phase)) s += c.seconds();
        return s;
    }

    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Diagnosis d && Double.compare(impactFraction, d.impactFraction) == 0
                && fault == d.fault && Double.compare(probability, d.probability) == 0
                && java.util.Objects.equals(id, d.id) && java.util.Objects.equals(title, d.title)
                && java.util.Objects.equals(severity, d.severity)
                && java.util.Objects.equals(explanation, d.explanation)
                && java.util.Objects.equals(evidence, d.evidence) && java.util.Objects.equals(rule, d.rule)
                && java.util.Objects.equals(claims, d.claims) && java.util.Objects.equals(confirm, d.confirm);
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(id);
        h = 31 * h + java.util.Objects.hashCode(title);
        h = 31 * h + java.util.Objects.hashCode(severity);
        h = 31 * h + Double.hashCode(impactFraction);
        h = 31 * h + java.util.Objects.hashCode(explanation);
        h = 31 * h + java.util.Objects.hashCode(evidence);
        h = 31 * h + java.util.Objects.hashCode(rule);
        h = 31 * h + java.util.Objects.hashCode(claims);
        h = 31 * h + Boolean.hashCode(fault);
        h = 31 * h + java.util.Objects.hashCode(confirm);
        return 31 * h + Double.hashCode(probability);
    }
}
