package dev.trainadvisor.facts;

/** One line of the predicted breakdown; {@code fractionOfStep} is exposed seconds over step time. */
public record PhaseFact(String name, double seconds, double exposedSeconds, double fractionOfStep, String link) {}
