package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Materiality;
import dev.trainadvisor.input.SpecException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A user's rules run under limits (issue 23, item 1): a rule file that reaches for the process, files, threads,
 * reflection or the session is refused before it runs (its text, then the code it compiles to); one that loops, cycles,
 * halts or fails is stopped and reported as bad input naming its file and the rule, never as a bug of train-advisor.
 * These rule bases hold only the test's file (the shipped rules are not needed to make a rule loop), each treated as a
 * user's; UserRulesCliTest runs them beside the shipped rules through the command line.
 */
class RuleLimitsTest {
    static final String HEAD = HostileRules.HEAD;

    static String rule(String name, String then) { return HostileRules.rule(name, then); }

    static RuleEngine engine(String drl) { return RuleEngine.ofUserFiles(Map.of("team/r.drl", drl)); }

    static SpecException refusal(String drl) {
        return assertThrows(SpecException.class, () -> engine(drl));
    }

    static SpecException failure(RuleEngine engine) {
        return assertThrows(SpecException.class, () -> engine.run(List.of(Materiality.shipped())));
    }

    /** What each consequence reaches for, and the name the message quotes: line 7 is the consequence's. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "System.exit(0);                                              | System",
            "System.exit(3);                                              | System",
            "java.lang.System.exit(0);                                    | System",
            "Runtime.getRuntime().halt(0);                                | Runtime",
            "new ProcessBuilder(\"sh\").start();                          | ProcessBuilder",
            "new java.io.File(\"/etc/shadow\").delete();                  | java.io",
            "java.nio.file.Files.readString(java.nio.file.Path.of(\"/etc/passwd\")); | java.nio",
            "new java . net . URL(\"http://example.com\").openStream();   | java.net",
            "new Thread(() -> {}).start();                                | Thread",
            "Object o = Class.forName(\"java.lang.Runtime\");             | forName",
            "$m.getClass().getDeclaredMethod(\"x\");                      | getDeclaredMethod",
            "drools.halt();                                               | halt",
            "kcontext.getKieRuntime().dispose();                          | getKieRuntime",
            "java.util.concurrent.Executors.newSingleThreadExecutor();    | java.util.concurrent",
            "dev.trainadvisor.cli.Main.main(new String[0]);               | dev.trainadvisor.cli",
            "\\u0053ystem.exit(0);                                         | System",
            "// a comment \\u000a System.exit(0);                          | System",
    })
    void aRuleFileThatReachesOutsideTheFactsIsRefusedByItsText(String consequence, String name) {
        SpecException e = refusal(rule("bye", consequence.strip()));
        assertEquals("team/r.drl", e.file());
        assertTrue(e.getMessage().contains("line 7 uses " + name + ", which a rule file may not"), e.getMessage());
        assertTrue(e.getMessage().contains("docs/rules.md"), e.getMessage());
        assertFalse(e.getMessage().contains("bug"), e.getMessage());
    }

    @Test
    void anImportOfAForbiddenPackageIsRefusedAtItsLine() {
        SpecException e = refusal(HEAD + "import static java.lang.System.exit;\n" + rule("x", "exit(0);").substring(HEAD.length()));
        assertTrue(e.getMessage().contains("line 3 uses System"), e.getMessage());
        e = refusal(HEAD + "import java.io.*;\n" + rule("x", "").substring(HEAD.length()));
        assertTrue(e.getMessage().contains("line 3 uses java.io"), e.getMessage());
    }

    @Test
    void aForbiddenNameInAConditionOrAFunctionIsRefusedToo() {
        SpecException e = refusal(HEAD + """
                rule "slow" @id("slow") @title("t") @description("d")
                when
                    Materiality( eval( Thread.interrupted() ) )
                then
                end
                """);
        assertTrue(e.getMessage().contains("line 5 uses Thread"), e.getMessage());
        e = refusal(HEAD + "function void f() { Runtime.getRuntime().exit(0); }\n");
        assertTrue(e.getMessage().contains("line 3 uses Runtime"), e.getMessage());
    }

    @Test
    void namesInStringsAndCommentsAreOnlyText() {
        RuleEngine engine = engine(HEAD + """
                // System.exit(0) would end the process: not here
                /* nor Runtime.getRuntime().halt(0) */
                rule "words" @id("words") @title("System memory and Thread count") @description("Mentions java.io in prose.")
                when
                    $m : Materiality()
                then
                    String s = "System.exit(0); \\" Thread";
                    char c = '"';
                    String t = \"\"\"
                        java.io.File "quoted" \"\"\";
                end
                """);
        assertEquals(1, engine.rules().size());
        assertTrue(engine.run(List.of(Materiality.shipped())).diagnoses().isEmpty());
    }

    @Test
    void aTextBlockThatClosesBeforeCodeOnItsLineHidesNothing() {
        SpecException e = refusal(rule("tb", "String t = \"\"\"\n    x\n    \"\"\"; System.exit(0);"));
        assertTrue(e.getMessage().contains("uses System"), e.getMessage());
    }

    /**
     * What the text check cannot see by name (no listed identifier: getModule is a method of java.lang.Class) the
     * check of the compiled consequence finds: java.lang.Class's methods beyond names and casts are reflection.
     */
    @Test
    void theCompiledConsequenceIsCheckedForWhatItsTextDoesNotName() {
        SpecException e = refusal(rule("sly", "Object m = $m.getClass().getModule();"));
        assertEquals("team/r.drl", e.file());
        assertTrue(e.getMessage().contains("its compiled code (the rule sly) uses java.lang.Class.getModule"), e.getMessage());
    }

    @Test
    void theShippedAndExampleRulesPassBothChecks() throws java.io.IOException {
        Map<String, String> drl = new java.util.LinkedHashMap<>(RuleEngine.shipped());
        drl.put("examples/rules/team.drl", java.nio.file.Files.readString(java.nio.file.Path.of("examples/rules/team.drl")));
        RuleEngine engine = RuleEngine.ofUserFiles(drl);
        assertEquals(RuleEngine.builtIn().rules().size() + 5, engine.rules().size());
    }

    @Test
    void aJavaLoopIsStoppedAtTheTimeLimitAndTheRulesAreNotRunAgain() {
        RuleEngine engine = engine(rule("spin", HostileRules.SPIN))
                .withLimits(new RuleEngine.Limits(500, 100_000));
        long start = System.nanoTime();
        SpecException e = failure(engine);
        double seconds = (System.nanoTime() - start) / 1e9;
        assertEquals("team/r.drl", e.file());
        assertTrue(e.getMessage().contains("rules that settle within the time limit (0.5 s a run; --rule-time-limit sets it); "
                + "rule \"spin\" (team/r.drl, line 3) was still running after 0.5 s"), e.getMessage());
        assertTrue(e.getMessage().contains("did not stop when halted: its thread was stopped by force, and these rules are not "
                + "run again"), e.getMessage());
        // the limit and the grace after the halt, with room for a loaded machine: not a benchmark, a bound on "for ever"
        assertTrue(seconds < 0.5 + GuardedSession.GRACE_MILLIS / 1000.0 + 5, seconds + " s");
        // and the loop no longer runs: its thread was stopped (Java 17), so it does not eat a core for the rest of the JVM
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (rulesThreadsAlive() > 0 && System.nanoTime() < deadline) Thread.onSpinWait();
        assertEquals(0, rulesThreadsAlive(), "the looping rule's thread ended");
        long again = System.nanoTime();
        SpecException next = failure(engine);
        assertTrue(next.getMessage().contains("rule \"spin\" (team/r.drl, line 3) ran on after 0.5 s"), next.getMessage());
        assertTrue((System.nanoTime() - again) / 1e9 < 0.5, "refused at once");
    }

    static long rulesThreadsAlive() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("train-advisor rules") && t.isAlive()).count();
    }

    @Test
    void aConditionThatNeverAnswersIsStoppedAtTheTimeLimit() {
        RuleEngine engine = engine(HEAD + """
                rule "wait" @id("wait") @title("t") @description("d")
                when
                    $m : Materiality( eval( forever() ) )
                then
                end
                function boolean forever() { long n = 1; while (n != 0) { n = n * 3 + 1; if (n == 5) n = 7; } return true; }
                """).withLimits(new RuleEngine.Limits(500, 100_000));
        SpecException e = failure(engine);
        assertTrue(e.getMessage().contains("the rules were still matching facts after 0.5 s, 0 firings"), e.getMessage());
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (rulesThreadsAlive() > 0 && System.nanoTime() < deadline) Thread.onSpinWait();
        assertEquals(0, rulesThreadsAlive(), "the condition's thread ended");
    }

    /** A modify cycle under the shipped cap: 1,000 firings here, the last "tick". */
    @Test
    void aModifyCycleStopsAtTheFiringLimitNamingTheRuleThatFiredLast() {
        RuleEngine engine = engine(HostileRules.cycle(99999)).withLimits(new RuleEngine.Limits(60_000, 1000));
        SpecException e = failure(engine);
        assertEquals("team/r.drl", e.file());
        assertEquals("team/r.drl: rules that settle within the firing limit (1000 firings a run; --rule-firing-limit sets it): "
                + "they are still firing, so two rules undo each other; the last to fire: rule \"tick\" (team/r.drl, line 8)",
                e.getMessage());
    }

    /** The same cycle that ends (at n = 50: 51 firings) settles under a limit of 1000: the limit counts, it does not guess. */
    @Test
    void aCycleThatEndsUnderTheLimitSettles() {
        RuleEngine engine = engine(HostileRules.cycle(50)).withLimits(new RuleEngine.Limits(60_000, 1000));
        RuleEngine.Result r = engine.run(List.of(Materiality.shipped()));
        assertEquals(1, r.derived().size());
    }

    @Test
    void aRuleThatThrowsIsBadInputNamingIt() {
        SpecException e = failure(engine(rule("npe", "String s = null; s.length();")));
        assertTrue(e.getMessage().startsWith("team/r.drl: rules that run without failing; rule \"npe\" (team/r.drl, line 3) "
                + "failed: NullPointerException"), e.getMessage());
        SpecException deep = failure(engine(HEAD + """
                rule "deep" @id("deep") @title("t") @description("d")
                when $m : Materiality() then down(0); end
                function int down(int n) { return down(n + 1) + 1; }
                """));
        assertTrue(deep.getMessage().contains("rule \"deep\" (team/r.drl, line 3) ran out of stack"), deep.getMessage());
    }

    @Test
    void theDefaultsAreTenSecondsAndAHundredThousandFirings() {
        assertEquals(new RuleEngine.Limits(10_000, 100_000), RuleEngine.Limits.DEFAULT);
        assertEquals(RuleEngine.Limits.DEFAULT, engine(rule("ok", "")).limits());
    }
}
