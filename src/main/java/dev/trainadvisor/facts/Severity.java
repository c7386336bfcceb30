package dev.trainadvisor.facts;

import java.util.Locale;

/** How much a diagnosed cause matters. The rules set it, from the {@link Materiality} thresholds or by their nature. */
public enum Severity {
    HIGH, MEDIUM, LOW, INFO;

    /** As reports print it: "high". */
    private final String key = name().toLowerCase(Locale.ROOT);
    public String key() { return key; }

    /** Whether it is a verdict on the run: medium or high. */
    public boolean atLeastMedium() { return this == HIGH || this == MEDIUM; }
}
