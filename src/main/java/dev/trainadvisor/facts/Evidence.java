package dev.trainadvisor.facts;

/** One number a rule matched: its name, value and unit. */
public record Evidence(String name, double value, String unit) {

    public static Evidence of(String name, double value, String unit) { return new Evidence(name, value, unit); }
}
