package dev.trainadvisor.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an nccl-tests run measured (NVIDIA/nccl-tests, src/common.cu and util.cu; layouts in
 * shared/reference/log-formats.md section 6): one row per message size with time and bus
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
     * Like {@link #parse(String)}, stopping after {@code maxRows} rows: detection needs to know whether there are
     * none, one or several. Lines go one at a time, and the regular expressions run only on lines that can match.
     */
    static NcclTests parse(String text, int maxRows) {
        String collective = null;
        int nThread = 0, nGpus = 0, rankLines = 0;
        double avg = Double.NaN;
        Boolean hasRoot = null;
        List<Row> rows = new ArrayList<>();
        int n = text.length();
        for (int start = 0; start <= n && rows.size() < maxRows; ) {
            int nl = text.indexOf('\n', start);
            int end = nl < 0 ? n : nl;
            String line = LogText.clean(text.substring(start, end)).strip();
            start = end + 1;
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
            if (!startsWithInteger(line)) continue;           // a row starts with its size: skip other lines unsplit
            Row row = row(line.split("\\s+"), hasRoot);
            if (row != null) rows.add(row);
        }
        int ranks = nGpus > 0 ? nGpus * Math.max(1, nThread) : rankLines;
        return new NcclTests(collective, ranks, List.copyOf(rows), avg);
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
