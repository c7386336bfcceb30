package dev.trainadvisor.perf;

/**
 * One line of the step's breakdown. Exposed seconds add up to the step time; a collective's
 * seconds may exceed its exposed seconds by what compute hid.
 *
 * @param link the link a communication phase is bound by, or null for compute
 */
public record Phase(String name, double seconds, double exposedSeconds, String link) {}
