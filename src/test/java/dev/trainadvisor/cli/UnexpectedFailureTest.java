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
 * command did not expect, and a stack or heap the input exhausted. A rule file whose consequence throws stands in
 * for them, end to end.
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

    static void oneLineExitTwo(CliTest.Result r, String... says) {
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("error: advise " + RUN + " --rules "), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertFalse(r.err().contains("\tat ") || r.err().contains("Exception in thread"), r.err());
        for (String s : says) assertTrue(r.err().contains(s), r.err());
    }

    @Test
    void anUnexpectedExceptionIsExitTwoInOneLine() throws Exception {
        oneLineExitTwo(adviseWithARuleThatThrows("IllegalStateException"), "could not be handled", "thrown by a rule",
                "please report it");
    }

    @Test
    void anExhaustedStackIsExitTwoInOneLine() throws Exception {
        oneLineExitTwo(adviseWithARuleThatThrows("StackOverflowError"), "nested or chained too deeply");
    }

    @Test
    void anExhaustedHeapIsExitTwoInOneLine() throws Exception {
        oneLineExitTwo(adviseWithARuleThatThrows("OutOfMemoryError"), "more memory than this Java heap has", "-Xmx");
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
