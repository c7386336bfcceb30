package dev.trainadvisor.facts;

/**
 * One number a rule matched: its name, value and unit. The value is in the unit it is printed in (GB, GB/s, us, s),
 * so an explanation's numbers can be checked against the evidence it lists.
 */
public record Evidence(String name, double value, String unit) {

    public static Evidence of(String name, double value, String unit) { return new Evidence(name, value, unit); }
}
