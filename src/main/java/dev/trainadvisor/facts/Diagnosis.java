package dev.trainadvisor.facts;

import java.util.List;

/**
 * A cause a rule found. {@code impactFraction} is the share of the step time it costs.
 *
 * @param rule the name of the rule that fired
 */
public record Diagnosis(String id, String title, String severity, double impactFraction, String explanation,
                        List<Evidence> evidence, String rule) {

    public Diagnosis {
        evidence = List.copyOf(evidence);
    }

}
