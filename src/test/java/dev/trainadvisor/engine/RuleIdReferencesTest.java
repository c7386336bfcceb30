package dev.trainadvisor.engine;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every id a rule or the code compares a diagnosis with names a rule that exists (issue 20, item 3): a renamed or
 * mistyped id would otherwise silently change the reasoning, a yield or a remedy that never matches.
 */
class RuleIdReferencesTest {
    private static final Pattern DECLARED = Pattern.compile("@id\\(\"([^\"]+)\"\\)");
    private static final Pattern IN_RULES = Pattern.compile("\\bid\\s*==\\s*\"([^\"]+)\"");
    private static final Pattern IN_JAVA = Pattern.compile("\\.id\\(\\)\\.equals\\(\"([^\"]+)\"\\)|\"([a-z0-9-]+)\"\\.equals\\([a-zA-Z.]*id\\(\\)\\)");

    /** The ids compared in {@code rules} (DRL) and {@code java} (sources) that no rule there declares, with where. */
    static Map<String, String> unknownIds(Path rules, Path java) throws IOException {
        Set<String> declared = new TreeSet<>();
        Map<String, String> referenced = new TreeMap<>();
        try (Stream<Path> files = Files.list(rules)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".drl")).sorted().toList()) {
                String s = Files.readString(f);
                for (Matcher m = DECLARED.matcher(s); m.find(); ) declared.add(m.group(1));
                for (Matcher m = IN_RULES.matcher(s); m.find(); ) referenced.putIfAbsent(m.group(1), f.toString());
            }
        }
        try (Stream<Path> files = Files.walk(java)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                String s = Files.readString(f);
                for (Matcher m = IN_JAVA.matcher(s); m.find(); )
                    referenced.putIfAbsent(m.group(1) != null ? m.group(1) : m.group(2), f.toString());
            }
        }
        assertTrue(referenced.size() > 0 && !declared.isEmpty(), "nothing read from " + rules);
        Map<String, String> unknown = new TreeMap<>(referenced);
        unknown.keySet().removeAll(declared);
        return unknown;
    }

    @Test
    void everyComparedIdIsARulesId() throws IOException {
        Map<String, String> unknown = unknownIds(Path.of("rules"), Path.of("src/main/java"));
        assertTrue(unknown.isEmpty(), "ids no rule declares, with where they are compared: " + unknown);
    }

    /** A rule that yields to a mistyped id, and Java that tests for one, are both caught, with their files. */
    @Test
    void aMistypedIdIsCaught(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Path rules = Files.createDirectories(dir.resolve("rules")), java = Files.createDirectories(dir.resolve("java"));
        Files.writeString(rules.resolve("a.drl"), """
                rule "intra-node-bandwidth"
                    @id("intra-node-bandwidth")
                when
                    Diagnosis( id == "intra-node-bandwidth" )
                    not Diagnosis( id == "intra-node-bandwith" )
                then
                end
                """);
        Files.writeString(java.resolve("B.java"), "class B { boolean f(D d) { return d.id().equals(\"memory-overflw\"); } }");
        assertTrue(unknownIds(rules, java).equals(Map.of("intra-node-bandwith", rules.resolve("a.drl").toString(),
                "memory-overflw", java.resolve("B.java").toString())), unknownIds(rules, java).toString());
    }
}
