package dev.trainadvisor.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an nccl-tests run measured (NVIDIA/nccl-tests, src/common.cu and util.cu; layouts in
 * docs/logs.md (nccl-tests)): one row per message size with time and bus
 * bandwidth, out-of-place and in-place.
 *
 * @param collective  e.g. "all_reduce" from "all_reduce_perf", or null when the output does not say
 * @param ranks       GPUs in the test (nGpus x nThread of the header, or the "# Rank" lines), 0 if unknown
 * @param rows        in printed order
 * @param avgBusbwGbps the footer's "Avg bus bandwidth" (a mean over all sizes, dominated by small ones), or NaN
 */
public record NcclTests(String collective, int ranks, List<Row> rows, double avgBusbwGbps) {

    /** One message size. Bandwidths in GB/s (1e9 bytes/s), time in microseconds; NaN where not printed. */
    public record Row(long sizeBytes, long count, String type, double outTimeUs, double outAlgbwGbps,
                      double outBusbwGbps, double inTimeUs, double inAlgbwGbps, double inBusbwGbps) {

        /** The better of out-of-place and in-place bus bandwidth. */
        public double busbwGbps() {
            if (Double.isNaN(inBusbwGbps)) return outBusbwGbps;
            if (Double.isNaN(outBusbwGbps)) return inBusbwGbps;
            return Math.max(outBusbwGbps, inBusbwGbps);
        }
    }

    /** Bus bandwidth at the largest message size: what a link sustains for large collectives. */
    public double busbwAtLargestGbps() {
        Row largest = null;
        for (Row r : rows) if (largest == null || r.sizeBytes() >= largest.sizeBytes()) largest = r;
        return largest == null ? Double.NaN : largest.busbwGbps();
    }

    public double peakBusbwGbps() {
        double peak = Double.NaN;
        for (Row r : rows) if (Double.isNaN(peak) || r.busbwGbps() > peak) peak = r.busbwGbps();
        return peak;
    }

    private static final Pattern HEADER = Pattern.compile("nThread\\s+(\\d+)\\s+nGpus\\s+(\\d+)");
    private static final Pattern RANK = Pattern.compile("^#\\s*Rank\\s+(\\d+)\\s");
    private static final Pattern PERF = Pattern.compile("\\b([a-z_]+)_perf\\b");
    private static final Pattern AVG = Pattern.compile("Avg bus bandwidth\\s*:\\s*([0-9.eE+-]+)");
    private static final Pattern INT = Pattern.compile("-?\\d+");
    private static final Pattern WORD = Pattern.compile("[A-Za-z][A-Za-z0-9_]*");

    /**
     * Reads an nccl-tests output. Lines that are not table rows are skipped; a row cut short keeps what it
     * has. Returns a result with no rows when the text holds no table.
     */
    public static NcclTests parse(String text) {
        return parse(text, Integer.MAX_VALUE);
    }

    /**
     * Reads an nccl-tests output file in one pass (any size: at most {@link #MAX_ROWS} rows are kept).
     *
     * @throws dev.trainadvisor.input.SpecException naming the file when it is not a regular file or cannot be read
     */
    public static NcclTests read(java.nio.file.Path file) {
        LogSource log = LogSource.of(file);
        try (LogSource.Pass lines = log.lines()) {
            return parse(lines, MAX_ROWS);
        }
    }

    /** More rows than any sweep of message sizes prints (8 B to 16 GiB by factors of 2 is 32). */
    static final int MAX_ROWS = 10_000;

    /**
     * Like {@link #parse(String)}, stopping after {@code maxRows} rows: detection needs to know whether there are
     * none, one or several. Lines go one at a time, and the regular expressions run only on lines that can match.
     */
    static NcclTests parse(String text, int maxRows) {
        try (LogSource.Pass lines = Lines.of(text)) {
            return parse(lines, maxRows);
        }
    }

    static NcclTests parse(Iterable<String> lines, int maxRows) {
        String collective = null;
        int nThread = 0, nGpus = 0, rankLines = 0;
        double avg = Double.NaN;
        Boolean hasRoot = null;
        List<Row> rows = new ArrayList<>();
        String pending = null;                  // a row's first columns, whose numbers are on the next line
        for (String raw : lines) {
            if (rows.size() >= maxRows) break;
            String line = untag(raw).strip();
            if (line.isEmpty()) continue;
            Matcher m;
            if (collective == null && line.contains("_perf") && (m = PERF.matcher(line)).find()) collective = m.group(1);
            if (line.startsWith("#")) {
                if ((m = HEADER.matcher(line)).find()) {
                    nThread = smallInt(m.group(1));
                    nGpus = smallInt(m.group(2));
                }
                if (RANK.matcher(line).find()) rankLines++;
                if ((m = AVG.matcher(line)).find()) avg = parseNumber(m.group(1));
                if (line.contains("size") && line.contains("count") && line.contains("busbw")) hasRoot = line.contains("root");
                continue;
            }
            if (pending != null) {
                String start = pending;
                pending = null;
                // the numbers of the row before (its first, the time, may be an integer), unless a row of its own
                if (!startsWithInteger(line) || row(line.split("\\s+"), hasRoot) == null) {
                    Row row = row((start + " " + line).split("\\s+"), hasRoot);
                    if (row != null) {
                        rows.add(row);
                        continue;
                    }
                }
            }
            if (!startsWithInteger(line)) continue;           // a row starts with its size: skip other lines unsplit
            String[] t = line.split("\\s+");
            Row row = row(t, hasRoot);
            if (row != null) rows.add(row);
            else if (rowStart(t)) pending = line;
        }
        int ranks = nGpus > 0 ? nGpus * Math.max(1, nThread) : rankLines;
        return new NcclTests(collective, ranks, List.copyOf(rows), avg);
    }

    /** size, count and type, and at most redop and root after them: a row whose numbers went to the next line. */
    private static boolean rowStart(String[] t) {
        return t.length >= 3 && t.length <= 5 && INT.matcher(t[0]).matches() && INT.matcher(t[1]).matches()
                && WORD.matcher(t[2]).matches();
    }

    /**
     * {@code line} without the tags mpirun {@code --tag-output} puts where each piece of output starts, at the start of
     * a line or in the middle of one (a row printed in pieces): {@code [0]}, {@code [1,0]}, {@code [1,0]<stdout>:}
     * (docs/logs.md (Formats)). Each tag becomes a space, so the pieces' columns stay apart. The device lines'
     * {@code [0x16]} and {@code [0000:85:00]} are not tags.
     */
    static String untag(String line) {
        int b = line.indexOf('[');
        if (b < 0) return line;
        StringBuilder out = null;
        int copied = 0;
        while (b >= 0) {
            int end = tagEnd(line, b);
            if (end > b) {
                if (out == null) out = new StringBuilder(line.length());
                out.append(line, copied, b).append(' ');
                copied = end;
                b = line.indexOf('[', end);
            } else {
                b = line.indexOf('[', b + 1);
            }
        }
        if (out == null) return line;
        return out.append(line, copied, line.length()).toString();
    }

    /** The end of a tag {@code [d+]}, {@code [d+,d+]} with an optional {@code <stdout>:}/{@code <stderr>:} at {@code b}; b if none. */
    private static int tagEnd(String s, int b) {
        int n = s.length();
        int i = b + 1, d = i;
        while (i < n && Character.isDigit(s.charAt(i))) i++;
        if (i == d) return b;
        if (i < n && s.charAt(i) == ',') {
            int d2 = ++i;
            while (i < n && Character.isDigit(s.charAt(i))) i++;
            if (i == d2) return b;
        }
        if (i >= n || s.charAt(i) != ']') return b;
        i++;
        if (s.startsWith("<stdout>:", i) || s.startsWith("<stderr>:", i)) i += 9;
        return i;
    }

    /** Whether the first token of {@code line} (up to white space, as {@code split("\\s+")} cuts it) is an {@link #INT}. */
    static boolean startsWithInteger(String line) {
        int n = line.length();
        int i = n > 0 && line.charAt(0) == '-' ? 1 : 0;
        int digits = i;
        while (i < n && line.charAt(i) >= '0' && line.charAt(i) <= '9') i++;
        return i > digits && (i == n || LogText.isSpace(line.charAt(i)));
    }

    /** size count type [redop] [root] time algbw busbw wrong [time algbw busbw wrong]; null if not a row. */
    static Row row(String[] t, Boolean headerHasRoot) {
        if (t.length < 6 || !INT.matcher(t[0]).matches() || !INT.matcher(t[1]).matches() || !WORD.matcher(t[2]).matches())
            return null;
        int i = 3;
        if (WORD.matcher(t[i]).matches() && !t[i].equals("N/A")) i++;        // redop (sum, max, none, ...)
        int rest = t.length - i;
        boolean root = headerHasRoot != null ? headerHasRoot && INT.matcher(t[i]).matches()
                : (rest == 9 || rest == 5) && INT.matcher(t[i]).matches();
        if (root) i++;
        double[] v = new double[8];
        java.util.Arrays.fill(v, Double.NaN);
        for (int k = 0; k < 8 && i + k < t.length; k++) v[k] = parseNumber(t[i + k]);
        if (Double.isNaN(v[2])) return null;                                    // no out-of-place busbw: not a row
        try {
            return new Row(Long.parseLong(t[0]), Long.parseLong(t[1]), t[2], v[0], v[1], v[2], v[4], v[5], v[6]);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** A count from the header; 0 (unknown) when it does not fit a plausible rank count. */
    static int smallInt(String digits) {
        if (digits.length() > 7) return 0;
        return Integer.parseInt(digits);
    }

    static double parseNumber(String s) {
        try {
            return Double.parseDouble(s.toLowerCase(Locale.ROOT));
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }
}
