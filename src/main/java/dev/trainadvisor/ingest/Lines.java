package dev.trainadvisor.ingest;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.Predicate;

/** Splits a log into cleaned lines (log-formats.md section 0.5). */
final class Lines {
    private Lines() {}

    /**
     * The lines of {@code text}, split at {@code \n} and at {@code \r} (progress bars overwrite a line with a bare
     * carriage return), each passed through {@link LogText#clean} (ANSI colours, launcher prefixes). Empty lines are
     * dropped. Lazy: each line is cut when the loop reaches it, so a parse holds one line at a time, not a list of
     * all of them.
     */
    static Iterable<String> of(String text) {
        return () -> new Cursor(text == null ? "" : text);
    }

    /**
     * Visits the cleaned, non-blank lines of {@code text} in order (as {@link #of}) until {@code visitor} returns
     * false; for confidence checks that stop as soon as they know.
     */
    static void scan(String text, Predicate<String> visitor) {
        for (String line : of(text)) if (!visitor.test(line)) return;
    }

    /** One pass over the text; the next {@code \n}, {@code \r} and escape are found with indexOf and remembered. */
    private static final class Cursor implements Iterator<String> {
        private final String text;
        private final int n;
        private int pos;
        private int nextLf = -1, nextCr = -1, nextEsc = -1;
        private String next;

        Cursor(String text) {
            this.text = text;
            this.n = text.length();
        }

        @Override
        public boolean hasNext() {
            while (next == null && pos <= n) {
                int end = lineEnd();
                next = line(pos, end);
                pos = end + 1;
            }
            return next != null;
        }

        @Override
        public String next() {
            if (!hasNext()) throw new NoSuchElementException();
            String line = next;
            next = null;
            return line;
        }

        /** Index of the first {@code \n} or {@code \r} at or after pos, or n. */
        private int lineEnd() {
            if (nextLf < pos) nextLf = find('\n');
            if (nextCr < pos) nextCr = find('\r');
            return Math.min(nextLf, nextCr);
        }

        private int find(char c) {
            int i = text.indexOf(c, pos);
            return i < 0 ? n : i;
        }

        /** The cleaned line text[start, end), or null when it is blank. */
        private String line(int start, int end) {
            if (end <= start) return null;
            if (nextEsc < start) nextEsc = find(LogText.ESC);
            if (nextEsc < end) {
                // colour codes: the regex clean-up (rare)
                String line = LogText.clean(text.substring(start, end));
                return line.isBlank() ? null : line;
            }
            int from = LogText.prefixEnd(text, start, end);
            int k = from;
            while (k < end && Character.isWhitespace(text.charAt(k))) k++;
            return k == end ? null : text.substring(from, end);
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
