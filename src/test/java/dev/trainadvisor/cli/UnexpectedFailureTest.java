package dev.trainadvisor.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Whatever escapes a command is bad input (exit 2) in one line, never a stack trace or exit 1: an exception the
 * command did not expect, and a stack or heap the input exhausted. A rule file whose consequence throws was the
 * stand-in for them end to end; since issue 23 a user's rule that fails is the user's rule, named with its file, and not
 * a bug of train-advisor, so the unexpected ones are handed to {@link Main#failed} directly.
 */
class UnexpectedFailureTest {
    @TempDir
    Path tmp;

    static final String RUN = "examples/internlm-7b-pcie-1node.yaml";

    CliTest.Result adviseWithARuleThatThrows(String throwable) throws Exception {
        Path rules = Files.createDirectories(tmp.resolve("rules"));
        Files.writeString(rules.resolve("throws.drl"), """
                package test.rules;
                import dev.trainadvisor.spec.Parallel;
                rule "throws"
                    @id("throws") @title("Throws") @description("Throws from its consequence.")
                when
                    $p : Parallel()
                then
                    throw new %s("thrown by a rule");
                end
                """.formatted(throwable));
        return CliTest.run("advise", RUN, "--rules", rules.toString());
    }

    /** One line, exit 2, the rule's file first and the rule named: the user's rule, not a bug to report. */
    void theUsersRuleInOneLine(CliTest.Result r, String... says) {
        Path file = tmp.resolve("rules").resolve("throws.drl");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("error: " + file + ": "), r.err());
        assertTrue(r.err().contains("rule \"throws\" (" + file + ", line 3)"), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertFalse(r.err().contains("\tat ") || r.err().contains("Exception in thread") || r.err().contains("bug"), r.err());
        for (String s : says) assertTrue(r.err().contains(s), r.err());
    }

    static void oneLineExitTwo(Throwable thrown, String... says) {
        StringWriter out = new StringWriter();
        assertEquals(2, Main.failed(thrown, new PrintWriter(out), new String[] {"advise", RUN}));
        String err = out.toString();
        assertTrue(err.startsWith("error: advise " + RUN + ": "), err);
        assertEquals(1, err.strip().lines().count(), err);
        assertFalse(err.contains("\tat "), err);
        for (String s : says) assertTrue(err.contains(s), err);
    }

    @Test
    void anUnexpectedExceptionIsExitTwoInOneLine() throws Exception {
        oneLineExitTwo(new IllegalStateException("thrown\nover lines"), "could not be handled (thrown over lines)", "please report it");
        theUsersRuleInOneLine(adviseWithARuleThatThrows("IllegalStateException"), "failed: IllegalStateException: thrown by a rule");
    }

    @Test
    void anExhaustedStackIsExitTwoInOneLine() throws Exception {
        oneLineExitTwo(new StackOverflowError(), "nested or chained too deeply");
        theUsersRuleInOneLine(adviseWithARuleThatThrows("StackOverflowError"), "ran out of stack");
    }

    @Test
    void anExhaustedHeapIsExitTwoInOneLine() throws Exception {
        oneLineExitTwo(new OutOfMemoryError("Java heap space"), "more memory than this Java heap has", "-Xmx");
        theUsersRuleInOneLine(adviseWithARuleThatThrows("OutOfMemoryError"), "ran out of memory (thrown by a rule)");
    }

    @Test
    void theStackTraceIsThereWhenAskedFor() {
        StringWriter out = new StringWriter();
        System.setProperty("trainadvisor.debug", "true");
        try {
            assertEquals(2, Main.failed(new IllegalStateException("x"), new PrintWriter(out), new String[] {"advise", "r.yaml"}));
        } finally {
            System.clearProperty("trainadvisor.debug");
        }
        assertTrue(out.toString().startsWith("error: advise r.yaml: this input could not be handled (x)"), out.toString());
        assertTrue(out.toString().contains("\tat "), "-Dtrainadvisor.debug=true prints the stack trace");
    }
}
