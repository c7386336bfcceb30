package dev.trainadvisor.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The README shows current output: every fenced block after a {@code <!-- output: ARGS -->} marker is checked against
 * what the command line prints for ARGS (standard output and error together), each of its lines in order; a trimmed
 * block leaves lines out but changes none. (The library snippet is run by api.LibraryDocTest.)
 */
class ReadmeTest {
    static final Pattern MARKER = Pattern.compile("(?m)^<!-- output: (.+?) -->\\R```[a-z]*\\R(.*?)\\R```", Pattern.DOTALL);

    private static String readme() throws IOException { return Files.readString(Path.of("README.md")); }

    @Test
    void outputBlocksAreWhatTheCommandsPrint() throws IOException {
        assertTrue(checkOutputBlocks(readme(), "README") >= 2, "the README's output blocks were not found");
    }

    /**
     * Checks every output block of a Markdown text against what its command prints; returns how many there were.
     * {@code where} names the file in a failure.
     */
    static int checkOutputBlocks(String text, String where) {
        Matcher m = MARKER.matcher(text);
        int blocks = 0;
        while (m.find()) {
            blocks++;
            String[] args = m.group(1).trim().split("\\s+");
            CliTest.Result r = CliTest.run(args);
            String printed = r.out() + r.err();
            List<String> lines = printed.lines().map(String::stripTrailing).toList();
            int at = 0;
            for (String want : m.group(2).lines().map(String::stripTrailing).toList()) {
                if (want.isEmpty()) continue;
                int found = -1;
                for (int i = at; i < lines.size(); i++) {
                    if (lines.get(i).equals(want)) {
                        found = i;
                        break;
                    }
                }
                if (found < 0) fail(where + " block for '" + m.group(1) + "': the line\n" + want
                        + "\nis not printed (after line " + at + "). The command printed:\n" + printed);
                at = found + 1;
            }
        }
        return blocks;
    }

    /** The exit code the README gives for bad input is the one the command returns. */
    @Test
    void badInputExitsWithTwo() throws IOException {
        assertFalse(checkErrorBlocksExitWithTwo(readme()) == 0);
    }

    /** Every output block that starts with "error:" is of a command that exits with 2; returns how many. */
    static int checkErrorBlocksExitWithTwo(String text) {
        Matcher m = MARKER.matcher(text);
        List<String> errors = new ArrayList<>();
        while (m.find()) if (m.group(2).startsWith("error:")) errors.add(m.group(1));
        for (String args : errors) assertEquals(2, CliTest.run(args.trim().split("\\s+")).code(), args);
        return errors.size();
    }
}
