package dev.trainadvisor.engine;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * RuleEngine.declared reads where each rule is declared by hand; the regex it replaced is the oracle: the same names at
 * the same file and line, on the shipped rules and on text drawn from the characters a header is made of.
 */
class RuleEngineDeclaredTest {
    /** What RuleEngine.describe did before: a MULTILINE regex, the line of each match's end. */
    static Map<String, Map.Entry<String, Integer>> byRegex(Map<String, String> drlByFile) {
        Pattern header = Pattern.compile("(?m)^\\s*rule\\s+\"([^\"]*)\"");
        Map<String, Map.Entry<String, Integer>> declared = new HashMap<>();
        for (Map.Entry<String, String> e : drlByFile.entrySet()) {
            String text = e.getValue();
            Matcher m = header.matcher(text);
            int at = 0, lines = 1;
            while (m.find()) {
                for (int i = at; i < m.end(); i++) if (text.charAt(i) == '\n') lines++;
                at = m.end();
                declared.putIfAbsent(m.group(1), Map.entry(e.getKey(), lines));
            }
        }
        return declared;
    }

    @Test
    void theShippedRulesAreFoundWhereTheRegexFoundThem() {
        Map<String, String> drl = RuleEngine.shipped();
        Map<String, Map.Entry<String, Integer>> expected = byRegex(drl);
        // every shipped rule, at least: 11 files of a hundred rules
        assertEquals(RuleEngine.builtIn().rules().size(), expected.size());
        assertEquals(expected, RuleEngine.declared(drl));
    }

    @Test
    void headersAsPeopleWriteThem() {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("a.drl", "package x;\r\n\r\n  rule \"A one\"\r\n when then end\n\trule\t\"B\" // two\nrule\n\"C\"\nrules \"not\"\n"
                + "x rule \"not either\"\nrule \"unclosed");
        files.put("b.drl", "rule \"A one\"\n\n\n   \n  rule \"D\"\u2028rule \"E\"\rrule \"F\"\u0085 rule \"G\"");
        files.put("c.drl", "");
        Map<String, Map.Entry<String, Integer>> expected = byRegex(files);
        assertEquals(Map.of("A one", Map.entry("a.drl", 3), "B", Map.entry("a.drl", 5), "C", Map.entry("a.drl", 7),
                "D", Map.entry("b.drl", 5), "E", Map.entry("b.drl", 5), "F", Map.entry("b.drl", 5), "G", Map.entry("b.drl", 5)),
                expected);
        assertEquals(expected, RuleEngine.declared(files));
    }

    @Property(tries = 3000)
    void agreesWithTheRegex(@ForAll("drl") String a, @ForAll("drl") String b) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("a.drl", a);
        files.put("b.drl", b);
        assertEquals(byRegex(files), RuleEngine.declared(files));
    }

    @Provide
    Arbitrary<String> drl() {
        // the pieces of a header and what may stand around one
        return Arbitraries.of("rule", "rule ", " ", "\t", "\n", "\r", "\r\n", "\"", "\"N\"", "x", "rules", "\u2028", "\u0085",
                "\u000B", "\f", "ru", "le").list().ofMaxSize(24).map(l -> String.join("", l));
    }
}
