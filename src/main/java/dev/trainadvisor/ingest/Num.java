package dev.trainadvisor.ingest;

import java.util.ArrayList;
import java.util.List;

/**
 * Number reading shared by the log parsers (log-formats.md section 0): thousands separators, human-format suffixes,
 * quoted values, units. Never throws; anything that is not a number is NaN. No regular expressions: every method
 * is a single pass over its argument.
 */
final class Num {
    /** Longer tokens are not numbers any log prints (and Double.parseDouble of a megabyte of digits is slow). */
    private static final int MAX_TOKEN = 64;

    private Num() {}

    /**
     * A plain number: {@code 5,856} (thousands separators), {@code '2219'} (quoted), {@code 1e-05}, {@code nan},
     * {@code inf}. No suffixes; a trailing {@code %} is ignored (the caller knows it is a percentage).
     */
    static double parse(String s) {
        return parse(s, false);
    }

    /** Digits with at most a sign, a point and an exponent, and at least one digit first or after the sign. */
    private static boolean plain(String s) {
        int n = s.length();
        if (n == 0 || n > 32) return false;
        boolean digit = false;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= '0' && c <= '9') digit = true;
            else if (c != '.' && c != 'e' && c != 'E' && c != '-' && c != '+') return false;
        }
        char first = s.charAt(0);
        return digit && (first == '-' || first == '+' || first == '.' || (first >= '0' && first <= '9'));
    }

    /** Like {@link #parse(String)} and also nanotron's human format: {@code 14.2K}, {@code 547M}, {@code 85.8G}, {@code 1.2B}. */
    static double human(String s) {
        return parse(s, true);
    }

    private static double parse(String s, boolean suffixes) {
        if (s == null) return Double.NaN;
        if (plain(s)) {
            // the common case, a bare decimal number: no copies
            try {
                return Double.parseDouble(s);
            } catch (NumberFormatException e) {
                return Double.NaN;
            }
        }
        String t = s.strip();
        if (t.length() >= 2 && (t.charAt(0) == '\'' || t.charAt(0) == '"') && t.charAt(t.length() - 1) == t.charAt(0))
            t = t.substring(1, t.length() - 1).strip();
        if (t.isEmpty() || t.length() > MAX_TOKEN) return Double.NaN;
        if (t.endsWith("%")) t = t.substring(0, t.length() - 1);
        String lower = t.toLowerCase(java.util.Locale.ROOT);
        switch (lower) {
            case "nan", "-nan", "+nan": return Double.NaN;
            case "inf", "+inf", "infinity", "+infinity": return Double.POSITIVE_INFINITY;
            case "-inf", "-infinity": return Double.NEGATIVE_INFINITY;
            default: break;
        }
        double mult = 1;
        if (suffixes && !t.isEmpty()) {
            double m = suffix(t.charAt(t.length() - 1));
            if (m > 0) {
                mult = m;
                t = t.substring(0, t.length() - 1);
            }
        }
        StringBuilder b = new StringBuilder(t.length());
        boolean digit = false;
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c >= '0' && c <= '9') {
                digit = true;
                b.append(c);
            } else if (c == ',' || c == '_') {
                // thousands separator: only between digits
                if (i == 0 || i == t.length() - 1 || !isDigit(t.charAt(i - 1)) || !isDigit(t.charAt(i + 1))) return Double.NaN;
            } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                b.append(c);
            } else {
                return Double.NaN;
            }
        }
        if (!digit) return Double.NaN;
        try {
            return Double.parseDouble(b.toString()) * mult;
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    private static boolean isDigit(char c) { return c >= '0' && c <= '9'; }

    /** nanotron human_format suffixes (powers of 1000; B for billions since 2025-04); 0 if not a suffix. */
    private static double suffix(char c) {
        switch (c) {
            case 'K': case 'k': return 1e3;
            case 'M': return 1e6;
            case 'G': case 'B': return 1e9;
            case 'T': return 1e12;
            case 'P': return 1e15;
            default: return 0;
        }
    }

    /** The first whitespace-separated token of {@code s} as a number (e.g. {@code "353.02 time (ms)"} gives 353.02). */
    static double first(String s) {
        if (s == null) return Double.NaN;
        String t = s.strip();
        int end = 0;
        while (end < t.length() && !Character.isWhitespace(t.charAt(end))) end++;
        return parse(t.substring(0, end));
    }

    /**
     * A number followed by an SI-prefixed unit, as DeepSpeed's flops profiler prints them: {@code 76.67 ms},
     * {@code 34.09 us}, {@code 81.9 TFLOPS}, {@code 336.23 M}, {@code 3139.93 GMACs}. The result is in base units
     * (seconds, FLOPS, parameters). NaN if the number is missing.
     */
    static double withUnit(String s) {
        if (s == null) return Double.NaN;
        String t = s.strip();
        int end = 0;
        while (end < t.length() && (isDigit(t.charAt(end)) || t.charAt(end) == '.' || t.charAt(end) == '-'
                || t.charAt(end) == '+' || ((t.charAt(end) == 'e' || t.charAt(end) == 'E') && end > 0
                && end + 1 < t.length() && (isDigit(t.charAt(end + 1)) || t.charAt(end + 1) == '-' || t.charAt(end + 1) == '+'))))
            end++;
        double v = parse(t.substring(0, end));
        if (Double.isNaN(v)) return v;
        String unit = t.substring(end).strip();
        if (unit.isEmpty() || BASE_UNITS.contains(unit)) return v;
        double m = prefix(unit.charAt(0));
        String rest = unit.substring(1);
        return m > 0 && (rest.isEmpty() || BASE_UNITS.contains(rest)) ? v * m : v;
    }

    private static final java.util.Set<String> BASE_UNITS = java.util.Set.of("s", "FLOPS", "FLOPs", "flops", "MACs",
            "B", "params");

    private static double prefix(char c) {
        switch (c) {
            case 'P': return 1e15;
            case 'T': return 1e12;
            case 'G': return 1e9;
            case 'M': return 1e6;
            case 'K': case 'k': return 1e3;
            case 'm': return 1e-3;
            case 'u': case '\u00B5': return 1e-6;
            case 'n': return 1e-9;
            default: return 0;
        }
    }

    /** {@code H:MM:SS.cc} (HF Trainer's *_runtime) or a plain number of seconds. */
    static double duration(String s) {
        if (s == null) return Double.NaN;
        String t = s.strip();
        if (t.indexOf(':') < 0) return parse(t);
        String[] parts = t.split(":", -1);
        if (parts.length > 3) return Double.NaN;
        double total = 0;
        for (String part : parts) {
            double v = parse(part);
            if (Double.isNaN(v) || v < 0) return Double.NaN;
            total = total * 60 + v;
        }
        return total;
    }

    /** Digits starting at {@code from} (after optional spaces); -1 if none. Reads at most 18 digits. */
    static long digitsAt(String s, int from) {
        int i = from;
        while (i < s.length() && s.charAt(i) == ' ') i++;
        long v = 0;
        int n = 0;
        while (i < s.length() && isDigit(s.charAt(i))) {
            if (n == 18) return -1;
            v = v * 10 + (s.charAt(i) - '0');
            i++;
            n++;
        }
        return n == 0 ? -1 : v;
    }

    /** Index just past the digits that {@link #digitsAt} would read. */
    static int skipDigits(String s, int from) {
        int i = from;
        while (i < s.length() && s.charAt(i) == ' ') i++;
        while (i < s.length() && isDigit(s.charAt(i))) i++;
        return i;
    }

    /** Median of the finite values; NaN when there are none. */
    static double median(List<Double> values) {
        List<Double> v = new ArrayList<>(values.size());
        for (Double d : values) if (d != null && Double.isFinite(d)) v.add(d);
        if (v.isEmpty()) return Double.NaN;
        v.sort(null);
        int n = v.size();
        return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
    }

    /** A config value: an Integer when integral and in range, else the double. */
    static Object count(double v) {
        if (Double.isFinite(v) && v == Math.rint(v) && Math.abs(v) <= Integer.MAX_VALUE) return (int) v;
        return v;
    }

    /** A positive integer, or -1. */
    static int positiveInt(String s) {
        double v = parse(s);
        if (!Double.isFinite(v) || v != Math.rint(v) || v <= 0 || v > Integer.MAX_VALUE) return -1;
        return (int) v;
    }
}
