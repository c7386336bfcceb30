package dev.trainadvisor.ingest;

import java.util.ArrayList;
import java.util.List;

/** Splits a log into cleaned lines (log-formats.md section 0.5). */
final class Lines {
    private Lines() {}

    /**
     * The lines of {@code text}, split at {@code \n} and at {@code \r} (progress bars overwrite a line with a bare
     * carriage return), each passed through {@link LogText#clean} (ANSI colours, launcher prefixes). Empty lines are
     * dropped. One pass over the text.
     */
    static List<String> of(String text) {
        List<String> out = new ArrayList<>();
        if (text == null) return out;
        int start = 0;
        int n = text.length();
        for (int i = 0; i <= n; i++) {
            if (i == n || text.charAt(i) == '\n' || text.charAt(i) == '\r') {
                if (i > start) {
                    String line = LogText.clean(text.substring(start, i));
                    if (!line.isBlank()) out.add(line);
                }
                start = i + 1;
            }
        }
        return out;
    }

    /**
     * Visits the cleaned, non-blank lines of {@code text} in order (as {@link #of}) until {@code visitor} returns
     * false; for confidence checks that stop as soon as they know.
     */
    static void scan(String text, java.util.function.Predicate<String> visitor) {
        if (text == null) return;
        int start = 0;
        int n = text.length();
        for (int i = 0; i <= n; i++) {
            if (i == n || text.charAt(i) == '\n' || text.charAt(i) == '\r') {
                if (i > start) {
                    String line = LogText.clean(text.substring(start, i));
                    if (!line.isBlank() && !visitor.test(line)) return;
                }
                start = i + 1;
            }
        }
    }

    /** True when {@code s} has {@code word} at {@code at} with no letter, digit or underscore just before it. */
    static boolean wordAt(String s, int at) {
        if (at <= 0) return true;
        char c = s.charAt(at - 1);
        return !(Character.isLetterOrDigit(c) || c == '_');
    }

    /** The first index of {@code word} in {@code s} that starts a word (see {@link #wordAt}), or -1. */
    static int indexOfWord(String s, String word) {
        return indexOfWord(s, word, 0);
    }

    static int indexOfWord(String s, String word, int from) {
        int i = s.indexOf(word, from);
        while (i >= 0 && !wordAt(s, i)) i = s.indexOf(word, i + 1);
        return i;
    }
}
