package dev.trainadvisor.ingest;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * nccl-tests output as a {@link ParsedLog} (format "nccl-tests"), read by {@link NcclTests#parse}. No steps and no
 * run-file metrics; extra: busbw_gbps (the better of out-of-place and in-place bus bandwidth at the largest message
 * size), peak_busbw_gbps (the largest over all sizes), collective, ranks, avg_busbw_gbps (the footer's mean, dominated
 * by small sizes), largest_size_bytes.
 */
public final class NcclTestsLog extends GuardedLogParser {
    public static final String FORMAT = "nccl-tests";

    public NcclTestsLog() { super(FORMAT); }

    /**
     * 0.95 for result rows with an nccl-tests marker (the {@code nThread} header, the {@code algbw}/{@code busbw}
     * column header or the {@code Avg bus bandwidth} footer); 0.8 for two or more rows without one (the oldest
     * excerpts are data rows only); 0.4 for one bare row; 0.3 for a marker without rows.
     */
    @Override
    double score(String text) {
        NcclTests t = NcclTests.parse(text, 2);               // none, one or more: the first two rows tell
        boolean marker = text.contains("nThread") || text.contains("Avg bus bandwidth")
                || (text.contains("busbw") && text.contains("algbw"));
        if (!t.rows().isEmpty()) return marker ? 0.95 : t.rows().size() >= 2 ? 0.8 : 0.4;
        return marker ? 0.3 : 0;
    }

    @Override
    ParsedLog read(LogSource log) {
        NcclTests t;
        try (LogSource.Pass lines = log.lines()) {
            t = NcclTests.parse(lines, NcclTests.MAX_ROWS);
        }
        Map<String, Object> extra = new LinkedHashMap<>();
        List<String> warnings = new ArrayList<>();
        if (t.rows().isEmpty()) {
            warnings.add("no nccl-tests result rows found");
        } else {
            double largest = t.busbwAtLargestGbps(), peak = t.peakBusbwGbps();
            if (Double.isFinite(largest)) extra.put("busbw_gbps", largest);
            if (Double.isFinite(peak)) extra.put("peak_busbw_gbps", peak);
            long size = 0;
            for (NcclTests.Row r : t.rows()) size = Math.max(size, r.sizeBytes());
            extra.put("largest_size_bytes", size);
        }
        if (t.collective() != null) extra.put("collective", t.collective());
        if (t.ranks() > 0) extra.put("ranks", t.ranks());
        if (!Double.isNaN(t.avgBusbwGbps())) extra.put("avg_busbw_gbps", t.avgBusbwGbps());
        return new ParsedLog(FORMAT, 0, 0, Map.of(), null, Map.of(), extra, warnings);
    }
}
