package dev.trainadvisor.ingest;

import java.util.Arrays;
import java.util.List;

/**
 * Number reading shared by the log parsers (docs/logs.md (Formats)): thousands separators, human-format suffixes,
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
        return s == null ? Double.NaN : parse(s, 0, s.length(), false);
    }

    /** {@link #parse(String)} of {@code s.substring(from, to)}, without the copy. */
    static double parse(String s, int from, int to) {
        return parse(s, from, to, false);
    }

    /** Like {@link #parse(String)} and also nanotron's human format: {@code 14.2K}, {@code 547M}, {@code 85.8G}, {@code 1.2B}. */
    static double human(String s) {
        return s == null ? Double.NaN : parse(s, 0, s.length(), true);
    }

    /** Digits with at most a sign, a point and an exponent, and at least one digit first or after the sign. */
    private static boolean plain(String s, int from, int to) {
        int n = to - from;
        if (n <= 0 || n > 32) return false;
        boolean digit = false;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c >= '0' && c <= '9') digit = true;
            else if (c != '.' && c != 'e' && c != 'E' && c != '-' && c != '+') return false;
        }
        char first = s.charAt(from);
        return digit && (first == '-' || first == '+' || first == '.' || (first >= '0' && first <= '9'));
    }

    private static double parse(String s, int from, int to, boolean suffixes) {
        // the common case, a bare decimal number: read in place
        if (plain(s, from, to)) return decimal(s, from, to);
        int a = from, b = to;
        while (a < b && Character.isWhitespace(s.charAt(a))) a++;
        while (b > a && Character.isWhitespace(s.charAt(b - 1))) b--;
        if (b - a >= 2 && (s.charAt(a) == '\'' || s.charAt(a) == '"') && s.charAt(b - 1) == s.charAt(a)) {
            a++;
            b--;
            while (a < b && Character.isWhitespace(s.charAt(a))) a++;
            while (b > a && Character.isWhitespace(s.charAt(b - 1))) b--;
        }
        if (a == b || b - a > MAX_TOKEN) return Double.NaN;
        if (s.charAt(b - 1) == '%') b--;
        if (word(s, a, b, "nan") || word(s, a, b, "-nan") || word(s, a, b, "+nan")) return Double.NaN;
        if (word(s, a, b, "inf") || word(s, a, b, "+inf") || word(s, a, b, "infinity") || word(s, a, b, "+infinity"))
            return Double.POSITIVE_INFINITY;
        if (word(s, a, b, "-inf") || word(s, a, b, "-infinity")) return Double.NEGATIVE_INFINITY;
        double mult = 1;
        if (suffixes && a < b) {
            double m = suffix(s.charAt(b - 1));
            if (m > 0) {
                mult = m;
                b--;
            }
        }
        char[] kept = new char[b - a];
        int n = 0;
        boolean digit = false;
        for (int i = a; i < b; i++) {
            char c = s.charAt(i);
            if (c >= '0' && c <= '9') {
                digit = true;
                kept[n++] = c;
            } else if (c == ',' || c == '_') {
                // thousands separator: only between digits
                if (i == a || i == b - 1 || !isDigit(s.charAt(i - 1)) || !isDigit(s.charAt(i + 1))) return Double.NaN;
            } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                kept[n++] = c;
            } else {
                return Double.NaN;
            }
        }
        if (!digit) return Double.NaN;
        return decimal(new String(kept, 0, n), 0, n) * mult;
    }

    /** {@code s[from, to)} equals {@code lower} ignoring the case of ASCII letters. */
    private static boolean word(String s, int from, int to, String lower) {
        if (to - from != lower.length()) return false;
        for (int i = 0; i < lower.length(); i++) {
            char c = s.charAt(from + i);
            if (c >= 'A' && c <= 'Z') c = (char) (c + ('a' - 'A'));
            if (c != lower.charAt(i)) return false;
        }
        return true;
    }

    /** Powers of ten a double holds exactly. */
    private static final double[] POW10 = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13,
            1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

    /**
     * {@code Double.parseDouble} of {@code s[from, to)} (a string of digits, signs, points and exponents), NaN when it
     * is not a number. Numbers of at most 15 significant digits and a decimal exponent within 22 are read in place:
     * the digits and the power of ten are both exact doubles, so one multiplication or division rounds correctly and
     * gives the same double as parseDouble (whose own fast path is the same computation). Others go to parseDouble.
     */
    private static double decimal(String s, int from, int to) {
        return decimal(s, from, to, 15);
    }

    /**
     * A plain number whose last bit does not matter (a loss or a learning rate in a step history, printed as Python's
     * 17-digit repr): up to 18 significant digits are read in place, within one unit in the last place of the exact
     * double (the digits and the power of ten are each rounded once); anything else as {@link #parse(String, int, int)}.
     */
    static double approx(String s, int from, int to) {
        if (plain(s, from, to)) return decimal(s, from, to, 18);
        return parse(s, from, to);
    }

    /** {@link #decimal(String, int, int)} reading up to {@code maxSignificant} digits in place (15: exactly). */
    private static double decimal(String s, int from, int to, int maxSignificant) {
        int i = from;
        boolean negative = false;
        if (i < to && (s.charAt(i) == '-' || s.charAt(i) == '+')) negative = s.charAt(i++) == '-';
        long mantissa = 0;
        int significant = 0, digits = 0, fraction = 0;
        boolean point = false;
        for (; i < to; i++) {
            char c = s.charAt(i);
            if (c >= '0' && c <= '9') {
                digits++;
                if (point) fraction++;
                if (mantissa == 0 && c == '0') continue;          // leading zeros are not significant
                if (++significant > maxSignificant) return slow(s, from, to);
                mantissa = mantissa * 10 + (c - '0');
            } else if (c == '.' && !point) {
                point = true;
            } else {
                break;
            }
        }
        if (digits == 0) return slow(s, from, to);
        int exponent = 0;
        if (i < to) {
            char c = s.charAt(i++);
            if (c != 'e' && c != 'E') return slow(s, from, to);
            boolean minus = false;
            if (i < to && (s.charAt(i) == '-' || s.charAt(i) == '+')) minus = s.charAt(i++) == '-';
            if (i == to) return slow(s, from, to);
            for (; i < to; i++) {
                c = s.charAt(i);
                if (c < '0' || c > '9' || exponent > 1000) return slow(s, from, to);
                exponent = exponent * 10 + (c - '0');
            }
            if (minus) exponent = -exponent;
        }
        if (mantissa == 0) return negative ? -0.0 : 0.0;
        int e = exponent - fraction;
        if (e < -22 || e > 22) return slow(s, from, to);
        double v = e >= 0 ? mantissa * POW10[e] : mantissa / POW10[-e];
        return negative ? -v : v;
    }

    private static double slow(String s, int from, int to) {
        try {
            return Double.parseDouble(s.substring(from, to));
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
        return s == null ? Double.NaN : first(s, 0, s.length());
    }

    /** {@link #first(String)} of {@code s.substring(from, to)}, without the copy. */
    static double first(String s, int from, int to) {
        int a = from;
        while (a < to && Character.isWhitespace(s.charAt(a))) a++;
        int end = a;
        while (end < to && !Character.isWhitespace(s.charAt(end))) end++;
        return parse(s, a, end);
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
        double[] v = new double[values.size()];
        int n = 0;
        for (Double d : values) if (d != null && Double.isFinite(d)) v[n++] = d;
        return median(v, n);
    }

    /** Median of the finite values among {@code v[0, n)}; NaN when there are none. Reorders {@code v}. */
    static double median(double[] v, int n) {
        int m = 0;
        for (int i = 0; i < n; i++) if (Double.isFinite(v[i])) v[m++] = v[i];
        if (m == 0) return Double.NaN;
        Arrays.sort(v, 0, m);
        return m % 2 == 1 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
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

    /** {@code v} to at most 4 significant digits, without trailing zeros: 88.05, 125.5, 0.0012, 6000 (for messages). */
    static String shortest(double v) {
        if (!Double.isFinite(v)) return String.valueOf(v);
        return new java.math.BigDecimal(v).round(new java.math.MathContext(4)).stripTrailingZeros().toPlainString();
    }
}
