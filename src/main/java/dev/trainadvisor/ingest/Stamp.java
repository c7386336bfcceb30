package dev.trainadvisor.ingest;

/**
 * The time a log line was printed, from its logger prefix, as seconds since 1970 read as UTC (only differences
 * matter: a history counts from the log's first line). Formats (docs/logs.md): {@code 2024-04-06 02:55:45}
 * (Megatron, argonne), {@code 2026-02-01 10:00:00.123456} (Megatron since 2026-01), {@code 2024-04-21 02:45:24,651}
 * (DeepSpeed, torchtitan, InternEvo), {@code 2023-09-05T11:49:58.225+08:00} (InternEvo's uniscale logger: the offset
 * is ignored, every line of a log has the same), {@code 01/17/2024 13:47:27} (nanotron) and {@code 01/17 13:47:27}
 * (nanotron since 2025, no year: read as 2001, so a log that crosses new year counts back). No regular expressions,
 * no exceptions: a line without a time gives NaN.
 */
final class Stamp {
    private Stamp() {}

    /**
     * The year a time printed without one is read in (nanotron since 2025): no log of a framework the knowledge base
     * describes is that old, so {@link #date} takes it for no date.
     */
    static final int NO_YEAR = 2001;

    /** The calendar day (UTC) of a time {@link #at} read, or null where it was printed without its year or is NaN. */
    static java.time.LocalDate date(double epochSeconds) {
        if (!Double.isFinite(epochSeconds)) return null;
        java.time.LocalDate d = java.time.LocalDate.ofEpochDay(Math.floorDiv((long) Math.floor(epochSeconds), 86400L));
        return d.getYear() == NO_YEAR ? null : d;
    }

    /** The prefix is at the start of a line: a timestamp further in is not the line's. */
    static final int SEARCH = 80;

    /** The first timestamp in the first {@value #SEARCH} characters of {@code line}, or NaN. */
    static double at(String line) {
        return at(line, 0, Math.min(line.length(), SEARCH));
    }

    /** The first timestamp starting in {@code line[from, to)}, or NaN. */
    static double at(String line, int from, int to) {
        int n = line.length();
        for (int i = from; i < to; i++) {
            char c = line.charAt(i);
            if (c < '0' || c > '9' || (i > 0 && isDigit(line.charAt(i - 1)))) continue;
            double t = iso(line, i, n);
            if (!Double.isNaN(t)) return t;
            t = slashed(line, i, n);
            if (!Double.isNaN(t)) return t;
        }
        return Double.NaN;
    }

    /** {@code yyyy-mm-dd hh:mm:ss[.,fraction]} (or a T between) at {@code i}. */
    private static double iso(String s, int i, int n) {
        if (i + 19 > n || s.charAt(i + 4) != '-' || s.charAt(i + 7) != '-') return Double.NaN;
        char sep = s.charAt(i + 10);
        if (sep != ' ' && sep != 'T') return Double.NaN;
        int y = number(s, i, 4), mo = number(s, i + 5, 2), d = number(s, i + 8, 2);
        return time(s, i + 11, n, y, mo, d);
    }

    /** {@code mm/dd/yyyy hh:mm:ss} or {@code mm/dd hh:mm:ss} at {@code i}. */
    private static double slashed(String s, int i, int n) {
        if (i + 14 > n || s.charAt(i + 2) != '/') return Double.NaN;
        int mo = number(s, i, 2), d = number(s, i + 3, 2);
        if (s.charAt(i + 5) == '/') {
            if (i + 19 > n || s.charAt(i + 10) != ' ') return Double.NaN;
            return time(s, i + 11, n, number(s, i + 6, 4), mo, d);
        }
        if (s.charAt(i + 5) != ' ') return Double.NaN;
        return time(s, i + 6, n, NO_YEAR, mo, d);
    }

    /** {@code hh:mm:ss[.,fraction]} at {@code i}, on the given date. */
    private static double time(String s, int i, int n, int y, int mo, int d) {
        if (i + 8 > n || s.charAt(i + 2) != ':' || s.charAt(i + 5) != ':') return Double.NaN;
        int h = number(s, i, 2), mi = number(s, i + 3, 2), se = number(s, i + 6, 2);
        if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 60)
            return Double.NaN;
        double seconds = days(y, mo, d) * 86400.0 + h * 3600 + mi * 60 + se;
        int f = i + 8;
        if (f + 1 < n && (s.charAt(f) == '.' || s.charAt(f) == ',') && isDigit(s.charAt(f + 1))) {
            double scale = 0.1, frac = 0;
            for (int k = f + 1; k < n && k < f + 10 && isDigit(s.charAt(k)); k++) {
                frac += (s.charAt(k) - '0') * scale;
                scale /= 10;
            }
            seconds += frac;
        }
        return seconds;
    }

    /** {@code len} digits at {@code i} as a number, or -1. */
    private static int number(String s, int i, int len) {
        int v = 0;
        for (int k = i; k < i + len; k++) {
            char c = s.charAt(k);
            if (!isDigit(c)) return -1;
            v = v * 10 + (c - '0');
        }
        return v;
    }

    private static boolean isDigit(char c) { return c >= '0' && c <= '9'; }

    /** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's days_from_civil). */
    static long days(int y, int m, int d) {
        y -= m <= 2 ? 1 : 0;
        long era = Math.floorDiv(y, 400);
        long yoe = y - era * 400;
        long doy = (153L * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
        long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146097 + doe - 719468;
    }
}
