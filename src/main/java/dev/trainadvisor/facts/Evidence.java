package dev.trainadvisor.facts;

/**
 * One number a rule matched: its name, value and unit. The value is in the unit it is printed in (GB, GB/s, us, s),
 * so an explanation's numbers can be checked against the evidence it lists.
 */
public record Evidence(String name, double value, String unit) {

    public static Evidence of(String name, double value, String unit) { return new Evidence(name, value, unit); }

    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Evidence e && Double.compare(value, e.value) == 0
                && java.util.Objects.equals(name, e.name) && java.util.Objects.equals(unit, e.unit);
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(name);
        h = 31 * h + Double.hashCode(value);
        return 31 * h + java.util.Objects.hashCode(unit);
    }
}
