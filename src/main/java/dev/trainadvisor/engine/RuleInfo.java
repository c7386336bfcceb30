package dev.trainadvisor.engine;

import org.kie.api.definition.rule.Rule;

/**
 * A rule's metadata: the id it concludes under (a diagnosis id, a remedy id, or the name of a derived fact), a
 * title, why it holds, where it lives, and for a diagnosis the measurement that would confirm it ({@code @confirm}, null
 * when absent).
 */
public record RuleInfo(String name, String id, String title, String description, String file, int line, String confirm) {

    /** A metadata value of a rule, unquoted; null when absent. */
    static String metaOrNull(Rule rule, String key) {
        Object v = rule.getMetaData().get(key);
        // Drools files @description under the annotation's class name
        if (v == null && key.equals("description")) v = rule.getMetaData().get("org.kie.api.definition.type.Description");
        return v == null ? null : unquote(v.toString());
    }

    static String meta(Rule rule, String key) {
        String v = metaOrNull(rule, key);
        if (v == null) throw new IllegalStateException("rule '" + rule.getName() + "' lacks @" + key + "(...)");
        return v;
    }

    static String unquote(String s) {
        return s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"") ? s.substring(1, s.length() - 1) : s;
    }
}
