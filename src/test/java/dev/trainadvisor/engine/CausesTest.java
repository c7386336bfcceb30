package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Cause;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The precedence of causes is declared once (facts.Cause) and read, not restated (issue 20, item 3): no rule or Java
 * source compares a diagnosis id as a string, and every diagnosis rule that grants its seconds after other causes
 * names its own constant's table entry, so that a renamed id fails to compile and a yield cannot drift from the table.
 */
class CausesTest {
    private static final Pattern RULE = Pattern.compile("(?ms)^rule\\s+\"([^\"]+)\"(.*?)^end\\b");
    private static final Pattern ID = Pattern.compile("@id\\(\"([^\"]+)\"\\)");
    private static final Pattern YIELDS = Pattern.compile("Cause\\.([A-Z_]+)\\.yieldsTo\\(cause\\)");
    /** A diagnosis id compared as a string: DRL's {@code id == "x"} / {@code id != "x"}, Java's equals either way. */
    private static final Pattern STRING_ID = Pattern.compile(
            "\\bid\\s*[!=]=\\s*\"[a-z0-9-]+\"|\\.id\\(\\)\\.equals\\(\"[a-z0-9-]+\"\\)|\"[a-z0-9-]+\"\\.equals\\([a-zA-Z.]*id\\(\\)\\)");

    /** A rule's name and text, with its file. */
    record DrlRule(String file, String name, String text) {
        String id() {
            Matcher m = ID.matcher(text);
            return m.find() ? m.group(1) : null;
        }
    }

    static List<DrlRule> rules(Path dir) throws IOException {
        List<DrlRule> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".drl")).sorted().toList()) {
                String s = Files.readString(f);
                for (Matcher m = RULE.matcher(s); m.find(); ) out.add(new DrlRule(f.toString(), m.group(1), m.group(2)));
            }
        }
        return out;
    }

    /** Where a diagnosis id is compared as a string under {@code dirs} (DRL and Java sources): file to count. */
    static Map<String, Integer> stringComparisons(Path... dirs) throws IOException {
        Map<String, Integer> out = new TreeMap<>();
        for (Path dir : dirs) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".drl") || p.toString().endsWith(".java")).sorted().toList()) {
                    int n = 0;
                    for (Matcher m = STRING_ID.matcher(Files.readString(f)); m.find(); ) n++;
                    if (n > 0) out.put(f.toString(), n);
                }
            }
        }
        return out;
    }

    /**
     * What is wrong with how the diagnosis rules among {@code rules} read the table: a rule naming another cause's
     * entry, or a cause that yields to others whose rule does not collect them by its entry.
     */
    static List<String> misreadings(List<DrlRule> rules) {
        List<String> out = new ArrayList<>();
        for (DrlRule r : rules) {
            Cause own = Cause.byId(r.id());
            List<String> named = new ArrayList<>();
            for (Matcher m = YIELDS.matcher(r.text()); m.find(); ) named.add(m.group(1));
            if (own == null) {
                if (!named.isEmpty()) out.add(r.file() + ": rule \"" + r.name() + "\" concludes no cause but reads " + named);
                continue;
            }
            for (String n : named)
                if (!n.equals(own.name())) out.add(r.file() + ": rule \"" + r.name() + "\" (" + own + ") reads " + n + "'s precedence");
            if (!own.yieldsTo().isEmpty() && named.isEmpty())
                out.add(r.file() + ": rule \"" + r.name() + "\" (" + own + ") yields to " + own.yieldsTo() + " but does not read Cause."
                        + own.name() + ".yieldsTo(cause)");
        }
        return out;
    }

    @Test
    void noDiagnosisIdIsComparedAsAString() throws IOException {
        Map<String, Integer> found = stringComparisons(Path.of("rules"), Path.of("src/main/java"));
        assertTrue(found.isEmpty(), "diagnosis ids compared as strings (name them by facts.Cause): " + found);
    }

    @Test
    void everyDiagnosisRuleReadsItsOwnEntryOfTheTable() throws IOException {
        List<DrlRule> rules = rules(Path.of("rules"));
        assertTrue(rules.size() > 80, "read " + rules.size() + " rules");
        assertEquals(List.of(), misreadings(rules));
        // and every cause has exactly one shipped rule that concludes it
        for (Cause c : Cause.values())
            assertEquals(1, rules.stream().filter(r -> c.id().equals(r.id())).count(), c.toString());
    }

    /** A cause can yield only to one declared before it: the table holds no cycle. */
    @Test
    void theTableDeclaresRootCausesFirst() {
        for (Cause c : Cause.values())
            for (Cause before : c.yieldsTo())
                assertTrue(before.ordinal() < c.ordinal(), c + " yields to " + before + ", declared after it");
        assertTrue(Cause.INTER_NODE_BANDWIDTH.yieldsTo(Cause.TP_ACROSS_NODES));
        assertTrue(!Cause.TP_ACROSS_NODES.yieldsTo(Cause.INTER_NODE_BANDWIDTH));
        assertTrue(!Cause.INTRA_NODE_BANDWIDTH.yieldsTo(null), "a user's own diagnosis precedes no shipped cause");
    }

    /** The scanners catch what they look for: a string comparison in DRL and in Java, and a rule reading another's entry. */
    @Test
    void theScannersCatchAStringIdAndAMisreadEntry(@TempDir Path dir) throws IOException {
        Path rules = Files.createDirectories(dir.resolve("rules")), java = Files.createDirectories(dir.resolve("java"));
        Files.writeString(rules.resolve("a.drl"), """
                rule "intra-node-bandwidth"
                    @id("intra-node-bandwidth")
                when
                    $prior : List() from collect( Diagnosis( Cause.INTER_NODE_BANDWIDTH.yieldsTo(cause) ) )
                    not Diagnosis( id == "link-underperforms" )
                then
                end

                rule "tp-across-nodes"
                    @id("tp-across-nodes")
                when
                    $prior : List() from collect( Diagnosis( id == "link-underperforms" ) )
                then
                end
                """);
        Files.writeString(java.resolve("B.java"), "class B { boolean f(D d) { return d.id().equals(\"memory-overflow\"); } }");
        assertEquals(Map.of(rules.resolve("a.drl").toString(), 2, java.resolve("B.java").toString(), 1),
                stringComparisons(rules, java));
        List<String> wrong = misreadings(rules(rules));
        assertEquals(2, wrong.size(), wrong.toString());
        assertTrue(wrong.get(0).contains("(INTRA_NODE_BANDWIDTH) reads INTER_NODE_BANDWIDTH's precedence"), wrong.get(0));
        assertTrue(wrong.get(1).contains("(TP_ACROSS_NODES) yields to [LINK_UNDERPERFORMS] but does not read"), wrong.get(1));
    }
}
