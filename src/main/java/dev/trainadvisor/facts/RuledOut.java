package dev.trainadvisor.facts;

/**
 * A diagnosis rule that was tested and did not fire: what it could have claimed of the step fell short of the
 * threshold it must reach ({@link Materiality#material()}). The report lists these under each diagnosis as what the
 * expert system ruled out, with the margin.
 *
 * @param id        the diagnosis id the rule concludes under
 * @param title     the rule's title
 * @param rule      the rule's name
 * @param seconds   the seconds of the step the rule could claim once the causes ranked above it took theirs
 * @param fraction  those seconds over the step
 * @param threshold the share of the step it had to reach
 */
public record RuledOut(String id, String title, String rule, double seconds, double fraction, double threshold) {

    /** "inter-node-bandwidth: 4% of the step (0.29 s), under the 5% threshold". */
    public String margin() {
        return title + ": " + share(fraction) + " of the step (" + Fmt.num(seconds) + " s), under the "
                + share(threshold) + " threshold";
    }

    /** One decimal below 10%, so that 4.6% does not read as the 5% it missed. */
    static String share(double f) {
        return f < 0.1 ? (Fmt.fixed(f * 100, 1) + "%").replace(".0%", "%") : Fmt.pct(f);
    }

    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof RuledOut r && Double.compare(seconds, r.seconds) == 0
                && Double.compare(fraction, r.fraction) == 0 && Double.compare(threshold, r.threshold) == 0
                && java.util.Objects.equals(id, r.id) && java.util.Objects.equals(title, r.title)
                && java.util.Objects.equals(rule, r.rule);
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(id);
        h = 31 * h + java.util.Objects.hashCode(title);
        h = 31 * h + java.util.Objects.hashCode(rule);
        h = 31 * h + Double.hashCode(seconds);
        h = 31 * h + Double.hashCode(fraction);
        return 31 * h + Double.hashCode(threshold);
    }
}
