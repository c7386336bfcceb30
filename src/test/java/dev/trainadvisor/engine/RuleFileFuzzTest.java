package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Materiality;
import dev.trainadvisor.input.SpecException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Hostile rule files at random (issue 23, item 6): each case writes one rule file of one to three rules whose
 * consequences, conditions and functions mix harmless code, a reach for the process, files, the network, threads,
 * reflection or the session (System.exit, Runtime.halt, ProcessBuilder, java.io, java.nio.file, java.net, Thread,
 * Class.forName, drools.halt, ...) disguised as Java allows (a unicode escape, spaces or a comment around a dot, a
 * fully qualified name, an import, a function, a condition), the same words where they are only text (a string, a
 * comment, a description), and code that loops, cycles, throws or recurses. Every case ends in one of two ways, and
 * never in another exception, a hang past its limits, or the end of this JVM (which System.exit would be):
 * <ul>
 *   <li>a file with a reach is refused (SpecException naming the file, "may not", one bounded line), before any rule
 *       runs;</li>
 *   <li>any other file compiles (or is refused for not compiling, naming the file) and its run returns, or ends in a
 *       SpecException naming the file within the time limit and the grace after it.</li>
 * </ul>
 * The rule bases hold the case's file alone (the shipped rules are not needed to make a rule reach out), run under 300
 * ms and 2,000 firings. Case i draws from {@code new Random(SEED + i)}. {@value #DEFAULT_CASES} cases by default,
 * {@code -Dfuzz.rules=N} for another number.
 */
class RuleFileFuzzTest {
    static final long SEED = 20261223L;
    static final int DEFAULT_CASES = 200;
    static final RuleEngine.Limits LIMITS = new RuleEngine.Limits(300, 2_000);

    /** Reaches for what a rule file may not touch: each must be refused, by its text or by its compiled code. */
    static final List<String> REACHES = List.of(
            "System.exit(0);", "System.exit(3);", "Runtime.getRuntime().halt(1);", "Runtime.getRuntime().exec(\"true\");",
            "new ProcessBuilder(\"true\").start();", "ProcessHandle.current().destroy();",
            "java.nio.file.Files.delete(java.nio.file.Path.of(\"/tmp/x\"));",
            "new java.io.FileInputStream(\"/etc/passwd\").read();", "new java.net.Socket(\"localhost\", 1);",
            "new Thread(() -> {}).start();", "Thread.sleep(100000);", "Object o = Class.forName(\"java.lang.Runtime\");",
            "Object o = $m.getClass().getDeclaredMethods();", "drools.halt();", "kcontext.getKieRuntime().halt();",
            "java.util.concurrent.Executors.newCachedThreadPool();", "Object o = java.lang.invoke.MethodHandles.lookup();",
            "Object o = $m.getClass().getModule();", "Object o = $m.getClass().getProtectionDomain();",
            "Object o = $m.getClass().getClassLoader();", "System.getenv(\"HOME\").length();",
            "dev.trainadvisor.cli.Main.main(new String[0]);", "dev.trainadvisor.input.InputFiles.class.getName();");

    /** Code that only computes, and the listed words where they are only text. */
    static final List<String> HARMLESS = List.of("int n = 1 + 2;", "String s = \"System.exit(0)\";", "// System.exit(0) in a comment",
            "/* Runtime.getRuntime().halt(0) */", "java.util.List<String> l = new java.util.ArrayList<>(); l.add(\"x\");",
            "double d = Math.max(1.5, $m.material());", "String t = $m.getClass().getName();", "char c = '\"';",
            "String u = \"\\\\u0053ystem\";", "StringBuilder b = new StringBuilder(\"Thread\").reverse();");

    /** Code that passes the check and misbehaves when it runs. */
    static final List<String> MISBEHAVES = List.of("throw new IllegalStateException(\"x\");", "String nil = null; nil.length();",
            "long spin = 0; while (spin >= 0) { spin = (spin + 1) % 1000; }", "f(0);", "int[] a = new int[3]; a[5] = 1;");

    record Outcome(boolean refused, String message) {}

    @Test
    void hostileRuleFilesAreRefusedOrStoppedNeverRun() {
        int cases = Integer.getInteger("fuzz.rules", DEFAULT_CASES);
        Map<String, Integer> outcomes = new TreeMap<>();
        List<String> failures = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < cases && failures.size() < 10; i++) {
            Random r = new Random(SEED + i);
            StringBuilder what = new StringBuilder();
            boolean[] reaches = {false};
            String drl = ruleFile(r, what, reaches);
            String file = "team/case-" + i + ".drl";
            String label = "case " + i + " (" + what + ")";
            try {
                String outcome = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> run(file, drl, reaches[0]), label);
                outcomes.merge(outcome, 1, Integer::sum);
            } catch (AssertionError | RuntimeException e) {
                failures.add(label + ": " + e.getMessage() + "\n" + drl);
            }
        }
        System.out.printf("rule-file fuzz: %d cases in %.1f s: %s%n", cases, (System.nanoTime() - start) / 1e9, outcomes);
        assertEquals(List.of(), failures, failures.size() + " failing case(s)");
        assertTrue(outcomes.getOrDefault("refused", 0) > cases / 5 && outcomes.getOrDefault("ran", 0) > 0
                && outcomes.getOrDefault("stopped", 0) > 0, "the cases reach each outcome: " + outcomes);
    }

    /** Runs one case and says how it ended: refused, ran, stopped (a SpecException from its run) or not compiled. */
    static String run(String file, String drl, boolean reaches) {
        RuleEngine engine;
        try {
            engine = RuleEngine.ofUserFiles(Map.of(file, drl)).withLimits(LIMITS);
        } catch (SpecException e) {
            assertBounded(e, file);
            if (e.getMessage().contains("which a rule file may not")) return "refused";
            assertFalse(reaches && !e.getMessage().contains("rules that compile"), "a reach refused for another reason: " + e.getMessage());
            assertTrue(e.getMessage().contains("rules that compile") || e.getMessage().contains("@id"), e.getMessage());
            return "not compiled";
        }
        assertFalse(reaches, "a file with a reach was accepted");
        long t0 = System.nanoTime();
        try {
            engine.run(List.of(Materiality.shipped()));
            return "ran";
        } catch (SpecException e) {
            assertBounded(e, file);
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertTrue(seconds < LIMITS.timeMillis() / 1000.0 + GuardedSession.GRACE_MILLIS / 1000.0 + 5, seconds + " s");
            return "stopped";
        }
    }

    static void assertBounded(SpecException e, String file) {
        assertTrue(e.getMessage().startsWith(file), e.getMessage());
        for (String line : e.getMessage().lines().toList())
            assertTrue(line.length() <= SpecException.MAX_LINE_CHARS + 100, "a line of " + line.length());
        assertFalse(e.getMessage().contains("bug"), e.getMessage());
    }

    /** A rule file of one to three rules; {@code reaches[0]} set when a reach is in code (not in a string or comment). */
    static String ruleFile(Random r, StringBuilder what, boolean[] reaches) {
        StringBuilder b = new StringBuilder(HostileRules.HEAD);
        boolean importReach = r.nextInt(12) == 0;
        if (importReach) {
            b.append(List.of("import java.io.File;\n", "import static java.lang.System.exit;\n", "import java.net.*;\n",
                    "import java.lang.reflect.Method;\n").get(r.nextInt(4)));
            what.append("a forbidden import; ");
            reaches[0] = true;
        }
        boolean function = false;
        int rules = 1 + r.nextInt(3);
        for (int k = 0; k < rules; k++) {
            List<String> body = new ArrayList<>();
            for (int h = r.nextInt(3); h > 0; h--) body.add(HARMLESS.get(r.nextInt(HARMLESS.size())));
            String condition = "$m : Materiality()";
            int roll = r.nextInt(10);
            if (roll < 5) {
                String reach = disguise(REACHES.get(r.nextInt(REACHES.size())), r);
                int where = r.nextInt(6);
                if (where == 0) {
                    condition = "$m : Materiality( eval( check() ) )";
                    b.append("function boolean check() { ").append(reach.replace("$m.", "Materiality.shipped().")).append(" return true; }\n");
                    what.append("in a condition's function: ");
                } else body.add(r.nextInt(body.size() + 1), reach);
                what.append(reach).append("; ");
                reaches[0] = true;
            } else if (roll < 8) {
                String m = MISBEHAVES.get(r.nextInt(MISBEHAVES.size()));
                if (m.startsWith("f(") && !function) {
                    b.append("function int f(int n) { return f(n + 1) + 1; }\n");
                    function = true;
                } else if (m.startsWith("f(")) m = "int z = 0;";
                body.add(m);
                what.append(m, 0, Math.min(30, m.length())).append("; ");
            } else if (roll == 8) {
                what.append("a cycle; ");
                b.append(HostileRules.cycle(100 + r.nextInt(10_000)).substring(HostileRules.HEAD.length())
                        .replace("\"start\"", "\"start" + k + "\"").replace("\"tick\"", "\"tick" + k + "\"")
                        .replace("Tick", "Tick" + k));
                continue;
            }
            b.append("rule \"r").append(k).append("\" @id(\"r").append(k).append("\") @title(\"System and Thread in a title\") ")
                    .append("@description(\"Mentions java.io and Runtime as words.\")\nwhen\n    ").append(condition)
                    .append("\nthen\n    ").append(String.join("\n    ", body)).append("\nend\n");
        }
        return b.toString();
    }

    /** A reach as Java lets it be written otherwise: a unicode escape, spaces or a comment at a dot, or as it is. */
    static String disguise(String reach, Random r) {
        switch (r.nextInt(5)) {
            case 0: {
                // one letter of its first identifier as a unicode escape, which javac decodes before it reads a name
                int at = 0;
                while (at < reach.length() && !Character.isLetter(reach.charAt(at))) at++;
                if (at == reach.length() || reach.startsWith("Object", at) || reach.startsWith("new ", at)) return reach;
                return reach.substring(0, at) + String.format("\\u%04x", (int) reach.charAt(at)) + reach.substring(at + 1);
            }
            case 1:
                return reach.replaceFirst("\\.", " . ");
            case 2:
                return reach.replaceFirst("\\.", "/* x */.");
            default:
                return reach;
        }
    }
}
