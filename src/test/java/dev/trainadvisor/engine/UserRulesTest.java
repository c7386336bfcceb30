package dev.trainadvisor.engine;

import dev.trainadvisor.cli.Main;
import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.Materiality;
import dev.trainadvisor.facts.Severity;
import dev.trainadvisor.input.SpecException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static dev.trainadvisor.engine.GivenFacts.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A user's rules folder (RuleEngine.withFolder, the CLI's --rules): its rules see the same facts as the shipped ones
 * and can replace the thresholds, delete a shipped diagnosis or override it; a rule without metadata or DRL that does
 * not compile is bad input naming the file and the line.
 */
class UserRulesTest {

    /** The optimizer takes 1 of 2.5 + 4.5 + 1 = 8 s: 0.125 >= material 0.05 -> optimizer-step-bound, medium. */
    static GivenFacts optimizerBound() { return GivenFacts.of(PCIE).compute(2.5, 4.5, 1.0); }

    /** 30 of 80 GB used: 0.375 < memoryHeadroom 0.6 -> memory-headroom, and larger-micro-batch for it. */
    static GivenFacts headroom() { return GivenFacts.of(PCIE).memory(30, 80); }

    static RuleEngine engine(Path dir, String file, String drl) throws IOException {
        Files.writeString(dir.resolve(file), drl);
        return RuleEngine.withFolder(dir);
    }

    @Test
    void aUserRuleReplacesTheThresholds(@TempDir Path dir) throws IOException {
        RuleEngine engine = engine(dir, "materiality.drl", """
                package team.rules;
                import dev.trainadvisor.facts.Materiality;

                rule "our materiality"
                    @id("team-materiality") @title("Our thresholds")
                    @description("We only want to hear about causes that cost half the step or more: material 0.5.")
                    salience 10000
                when
                    $m : Materiality( origin == "shipped" )
                then
                    delete($m);
                    insert(Materiality.shipped().withMaterial(0.5).from("team"));
                end
                """);
        assertTrue(engine.rules().stream().anyMatch(i -> i.name().equals("our materiality") && i.id().equals("team-materiality")
                && i.file().endsWith("materiality.drl") && i.line() == 4), engine.rules().toString());
        assertEquals(Severity.MEDIUM, only(optimizerBound().fire(), "optimizer-step-bound").severity());
        // 0.125 < 0.5: not material for the team, as when the facts carry the team's thresholds from the start
        assertFalse(fired(optimizerBound().materiality(Materiality.shipped().withMaterial(0.5)).fire(), "optimizer-step-bound"));
        RuleEngine.Result r = optimizerBound().fire(engine);
        assertFalse(fired(r, "optimizer-step-bound"), ids(r).toString());
        assertFalse(proposed(r, "more-micro-batches"));
        List<Materiality> ms = derived(r, Materiality.class);
        assertEquals(1, ms.size(), ms.toString());
        assertEquals("team", ms.get(0).origin());
        assertEquals(0.5, ms.get(0).material());
    }

    @Test
    void aUserRuleDeletesAShippedDiagnosis(@TempDir Path dir) throws IOException {
        RuleEngine engine = engine(dir, "quiet.drl", """
                package team.rules;
                import dev.trainadvisor.facts.Diagnosis;

                rule "we know about our memory"
                    @id("team-quiet") @title("No memory-headroom")
                    @description("Our jobs share their GPUs with a data loader that needs the memory the model leaves free.")
                when
                    $d : Diagnosis( id == "memory-headroom" )
                then
                    delete($d);
                end
                """);
        RuleEngine.Result shipped = headroom().fire();
        assertTrue(fired(shipped, "memory-headroom") && proposed(shipped, "larger-micro-batch"));
        RuleEngine.Result r = headroom().fire(engine);
        assertFalse(fired(r, "memory-headroom"), ids(r).toString());
        assertFalse(proposed(r, "larger-micro-batch"), "a remedy goes with the diagnosis it answers");
    }

    @Test
    void aUserRuleOverridesAShippedDiagnosis(@TempDir Path dir) throws IOException {
        // one override built through engine.Conclude (named by its rule's metadata), one by new Diagnosis(...)
        RuleEngine engine = engine(dir, "override.drl", """
                package team.rules;
                import dev.trainadvisor.facts.*;
                import dev.trainadvisor.engine.Conclude;
                import java.util.List;

                rule "our memory-headroom"
                    @id("memory-headroom") @title("Memory to spare, by our count")
                    @description("Our data loader takes 20 GB of each GPU: only what is left beyond that is headroom.")
                when
                    $d : Diagnosis( id == "memory-headroom", rule != "our memory-headroom" )
                    $mem : MemoryFact()
                then
                    delete($d);
                    insert(Conclude.finding(kcontext, Severity.LOW, Explain.start().text("Beyond our loader's 20 GB, ")
                        .num("free_gb", $mem.headroomGb() - 20, "GB").text(" are free.")));
                end

                rule "our optimizer"
                    @id("optimizer-step-bound") @title("Our optimizer is offloaded")
                    @description("Our optimizer runs on the CPU beside the next step's forward; its time is not the step's.")
                when
                    $d : Diagnosis( id == "optimizer-step-bound", rule != "our optimizer" )
                then
                    delete($d);
                    insert(new Diagnosis("optimizer-step-bound", "Our optimizer is offloaded", Severity.INFO, 0,
                        "Offloaded to the CPU.", List.of(), "our optimizer", List.of(), false));
                end
                """);
        RuleEngine.Result r = headroom().fire(engine);
        Diagnosis d = only(r, "memory-headroom");
        assertEquals("our memory-headroom", d.rule());
        assertEquals("Memory to spare, by our count", d.title());
        assertFinding(d, Severity.LOW, false);
        // 80 - 30 - 20 = 30 GB
        assertEquals(30, evidence(d, "free_gb"), 1e-9);
        assertTrue(d.explanation().startsWith("Beyond our loader's 20 GB, 30 GB are free."), d.explanation());
        assertTrue(proposed(r, "larger-micro-batch"), "the shipped remedies answer the override as they would the original");

        RuleEngine.Result optimizer = optimizerBound().fire(engine);
        Diagnosis own = only(optimizer, "optimizer-step-bound");
        assertEquals("our optimizer", own.rule());
        assertFinding(own, Severity.INFO, false);
        assertEquals("Offloaded to the CPU.", own.explanation());
    }

    @Test
    void aUserRuleWithoutAnIdIsBadInputNamingTheFileTheLineAndTheRule(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("noid.drl"), """
                package team.rules;
                import dev.trainadvisor.spec.Parallel;

                rule "a rule without id"
                    @title("No id") @description("It concludes something, but under no id a report could name.")
                when
                    Parallel()
                then
                end
                """);
        SpecException e = assertThrows(SpecException.class, () -> RuleEngine.withFolder(dir));
        assertTrue(e.getMessage().contains(dir.resolve("noid.drl").toString()), e.getMessage());
        assertTrue(e.getMessage().contains("rule \"a rule without id\" at line 4 has no @id(...)"), e.getMessage());
        // the command line reports it as bad input: exit code 2, the message on standard error
        PrintStream oldErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = Main.run("advise", "examples/" + PCIE, "--rules", dir.toString());
        } finally {
            System.setErr(oldErr);
        }
        assertEquals(2, code, err.toString(StandardCharsets.UTF_8));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("noid.drl"), err.toString(StandardCharsets.UTF_8));
    }

    /** The message of the refusal of a rules folder holding one file, {@code name}, of one rule. */
    static String refused(Path dir, String name, String ruleName, String description, String when, String then) throws IOException {
        Files.writeString(dir.resolve(name), """
                package team.rules;
                import dev.trainadvisor.facts.*;

                rule "%s"
                    @id("%s") @title("Team rule") @description("%s")
                when
                    %s
                then
                    %s
                end
                """.formatted(ruleName, ruleName, description, when, then));
        return assertThrows(SpecException.class, () -> RuleEngine.withFolder(dir)).getMessage();
    }

    @Test
    void aRuleFileThatDoesNotCompileIsBadInputNamingTheFileAndTheLine(@TempDir Path dir) throws IOException {
        String e = refused(dir, "broken.drl", "broken", "A rule whose condition names a fact type that does not exist.",
                "NoSuchFact( gpus > 1 )", "");
        assertTrue(e.contains(dir.resolve("broken.drl") + ":7:"), e);
    }

    /** A rule that compares a diagnosis id no rule declares could never match: refused, with the nearest known id. */
    @Test
    void aRuleNamingAnIdNoRuleDeclaresIsRefusedWithTheNearest(@TempDir Path dir) throws IOException {
        String e = refused(dir, "typo.drl", "no-headroom", "Retracts the memory headroom finding, under a mistyped id.",
                "$d : Diagnosis( id == \"memory-headrom\" )", "delete($d);");
        assertTrue(e.contains(dir.resolve("typo.drl").toString()), e);
        assertTrue(e.contains("line 7 compares with 'memory-headrom', which no rule declares"), e);
        assertTrue(e.contains("nearest: memory-headroom"), e);
        // the team's own ids, declared in its own files, are known; so is every shipped one
        Files.writeString(dir.resolve("typo.drl"), Files.readString(dir.resolve("typo.drl")).replace("memory-headrom", "no-headroom"));
        assertTrue(RuleEngine.withFolder(dir).rules().stream().anyMatch(r -> r.id().equals("no-headroom")));
    }

    /** A rule file written against the 44-field copy of the run says what replaced it. */
    @Test
    void aRuleFileMatchingRunFactIsToldWhatReplacedIt(@TempDir Path dir) throws IOException {
        String e = refused(dir, "old.drl", "old", "A rule written against the run's old copy, RunFact.", "RunFact( tp > 1 )", "");
        assertTrue(e.contains("RunFact is gone: match the run's own records"), e);
        assertTrue(e.contains("Parallel( tp > 1, !sequenceParallel )"), e);
    }
}
