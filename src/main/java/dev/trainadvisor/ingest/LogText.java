package dev.trainadvisor.ingest;

import java.util.regex.Pattern;

/** Clean-up every log parser needs: ANSI colour codes and launcher prefixes (docs/logs.md (Formats)). */
public final class LogText {
    static final char ESC = '\u001B';
    private static final Pattern ANSI = Pattern.compile("\u001B\\[[0-9;]*[A-Za-z]");

    private LogText() {}

    public static String clean(String line) {
        // fast path: most lines have no escape
        String s = line.indexOf(ESC) < 0 ? line : ANSI.matcher(line).replaceAll("");
        int p = prefixEnd(s, 0, s.length());
        if (p > 0) s = s.substring(p);
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
    }

    /**
     * Where the text of the line {@code s[from, to)} starts after a launcher prefix and the white space after it:
     * torchrun {@code [rank0]:}, slurm {@code 0: }, mpirun {@code [0]}, {@code [1,0]} or {@code [1,0]<stdout>:}; {@code from}
     * when the line has none. The regular expression
     * {@code ^(?:\[rank\d+\]:|\d+:\s|\[\d+(?:,\d+)?\](?:<std(?:out|err)>:)?)\s*} by hand: torchtitan prints a prefix on
     * every line, and a matcher per line costs more than the rest of the parse.
     */
    static int prefixEnd(String s, int from, int to) {
        if (from >= to) return from;
        char c = s.charAt(from);
        int end = -1;
        if (c == '[') {
            if (s.startsWith("rank", from + 1)) {
                int d = digits(s, from + 5, to);
                if (d > from + 5 && d + 1 < to && s.charAt(d) == ']' && s.charAt(d + 1) == ':') end = d + 2;
            }
            if (end < 0) {
                int d = digits(s, from + 1, to);
                if (d > from + 1 && d < to && s.charAt(d) == ',') {
                    int d2 = digits(s, d + 1, to);
                    if (d2 > d + 1) d = d2;
                }
                if (d > from + 1 && d < to && s.charAt(d) == ']') {
                    end = d + 1;
                    if (end + 9 <= to && (s.startsWith("<stdout>:", end) || s.startsWith("<stderr>:", end))) end += 9;
                }
            }
        } else if (c >= '0' && c <= '9') {
            int d = digits(s, from, to);
            if (d + 1 < to && s.charAt(d) == ':' && isSpace(s.charAt(d + 1))) end = d + 2;
        }
        if (end < 0) return from;
        while (end < to && isSpace(s.charAt(end))) end++;
        return end;
    }

    /** Index just past the ASCII digits from {@code i} (a regex {@code \d}). */
    private static int digits(String s, int i, int to) {
        while (i < to && s.charAt(i) >= '0' && s.charAt(i) <= '9') i++;
        return i;
    }

    /** A regex {@code \s}: space, tab, newline, vertical tab, form feed, carriage return. */
    static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\u000B' || c == '\f' || c == '\r';
    }
}
