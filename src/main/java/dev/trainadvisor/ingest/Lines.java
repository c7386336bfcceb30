package dev.trainadvisor.ingest;

import java.util.function.Predicate;

/**
 * A log as cleaned lines (docs/logs.md (Formats)): split at {@code \n} and at {@code \r} (progress bars overwrite a
 * line with a bare carriage return), each passed through {@link LogText#clean} (ANSI colours, launcher prefixes), blank
 * lines dropped. {@link LogSource} reads them from a file or a string; this class holds what both share.
 */
final class Lines {
    private Lines() {}

    /** The cleaned lines of {@code text} (a {@link LogSource} pass: lazy, one line at a time). */
    static LogSource.Pass of(String text) {
        return LogSource.of(text, null).lines();
    }

    /**
     * Visits the cleaned, non-blank lines of {@code text} in order (as {@link #of}) until {@code visitor} returns
     * false; for confidence checks that stop as soon as they know.
     */
    static void scan(String text, Predicate<String> visitor) {
        try (LogSource.Pass lines = of(text)) {
            for (String line : lines) if (!visitor.test(line)) return;
        }
    }

    /** {@link LogText#clean} of a raw line, or null when nothing but white space is left. */
    static String cleaned(String raw) {
        String line = LogText.clean(raw);
        return line.isBlank() ? null : line;
    }

    /** A raw line without escapes: its launcher prefix dropped, or null when it is blank. */
    static String unprefixed(String raw) {
        int n = raw.length();
        int from = LogText.prefixEnd(raw, 0, n);
        int j = from;
        while (j < n && Character.isWhitespace(raw.charAt(j))) j++;
        if (j == n) return null;
        return from == 0 ? raw : raw.substring(from);
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
