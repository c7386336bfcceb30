package dev.trainadvisor.report;

import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.facts.Fmt;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A batch of runs as the fleet report shows it: every run's advice (in file-name order), the ranking, the files
 * that could not be advised with their errors, and the files of the folder that were left out as no run and why.
 *
 * <p>Each run's own report is either a section of the fleet's page (a fleet of at most {@link #INLINE_RUNS} runs
 * written as one page) or a page of its own in {@code runPages}, a folder beside the fleet's page that its rows link
 * to ({@link #pages}): so that a fleet of 10,000 runs is still a page a browser opens in about a second.
 *
 * <p>What the fleet's page needs of each run is an {@link Entry}: its row, its point on the scatter, what cannot be
 * right of it, its predicted TFLOPS. A batch keeps only those, and each run's view only while it may still be a section
 * of the page (report.FleetStream), so that its memory does not grow with the runs' advice; a run's own page is written
 * as the run comes.
 */
public final class Fleet {
    private final List<Entry> entries;
    private final List<AdviceView> runs;
    private final List<Failure> failures;
    private final List<Skipped> skipped;
    private final String runPages, page;

    /**
     * What the fleet's page needs of one run.
     *
     * @param observedTokens NaN where the run measured no throughput
     * @param intervalLow    observed over predicted at the low end of the run's class's 80% interval; NaN without one
     * @param implausible    the first measurement that cannot be right, as the report says it; null where none
     */
    public record Entry(String name, String file, BatchTable.Row row, double predictedTokens, double observedTokens,
                        double intervalLow, double intervalHigh, String implausible, double predictedTflops) {

        public static Entry of(AdviceView a, String file) {
            AdviceView.IntervalView iv = a.prediction().interval();
            String implausible = null;
            if (!a.implausible().isEmpty()) {
                AdviceView.CheckView c = a.implausible().get(0);
                implausible = c.sentence() + " (" + Fmt.num(c.measured()) + " against " + Fmt.num(c.limit()) + "; "
                        + c.kind() + ")";
            }
            return new Entry(a.run().path("name").asText(), file, BatchTable.row(a, file), a.prediction().tokensPerGpuPerS(),
                    a.observed() == null ? Double.NaN : a.observed().tokensPerGpuPerS(),
                    iv == null ? Double.NaN : iv.lowRatio(), iv == null ? Double.NaN : iv.highRatio(), implausible,
                    a.prediction().tflopsPerGpu());
        }
    }

    /**
     * A fleet of {@code runs}, each from its file in {@code files} (the same order).
     *
     * @param failures the files that could not be read or advised
     * @param skipped  the files that are neither a run file nor a training log (notes, reports train-advisor wrote, ...)
     * @param runPages the folder, relative to the fleet's page, that holds each run's report ("fleet-runs/"); null when
     *                 the fleet is one page
     * @param page     the fleet page's own file name, for the run pages' link back; null when it is one page
     */
    public Fleet(List<AdviceView> runs, List<String> files, List<Failure> failures, List<Skipped> skipped, String runPages,
                 String page) {
        this(entries(runs, files), runs, runPages, page, failures, skipped);
    }

    private Fleet(List<Entry> entries, List<AdviceView> runs, String runPages, String page, List<Failure> failures,
                  List<Skipped> skipped) {
        this.entries = List.copyOf(entries);
        this.runs = List.copyOf(runs);
        this.failures = List.copyOf(failures);
        this.skipped = List.copyOf(skipped);
        this.runPages = runPages;
        this.page = page;
    }

    /**
     * A fleet known by its entries alone, with the views of its runs only where {@code runs} holds them all (a fleet
     * whose reports are sections of its page) and empty otherwise.
     */
    static Fleet of(List<Entry> entries, List<AdviceView> runs, List<Failure> failures, List<Skipped> skipped, String runPages,
                    String page) {
        if (!runs.isEmpty() && runs.size() != entries.size()) throw new IllegalArgumentException("views of some runs only");
        return new Fleet(entries, runs, runPages, page, failures, skipped);
    }

    private static List<Entry> entries(List<AdviceView> runs, List<String> files) {
        List<Entry> out = new ArrayList<>();
        for (int k = 0; k < runs.size(); k++) out.add(Entry.of(runs.get(k), files.get(k)));
        return out;
    }

    /** Each run's entry, in file-name order. */
    public List<Entry> entries() { return entries; }

    /** Each run's view, in file-name order; empty where the fleet keeps its entries only. */
    public List<AdviceView> runs() { return runs; }

    /** The file each run came from, in file-name order. */
    public List<String> files() { return entries.stream().map(Entry::file).toList(); }

    public List<Failure> failures() { return failures; }

    public List<Skipped> skipped() { return skipped; }

    public String runPages() { return runPages; }

    public String page() { return page; }

    /** A file that could not be advised, and why (the message names the file, the field and what was expected). */
    public record Failure(String file, String message) {}

    /** A file of the folder left out of the batch, and why: it is no run file nor a training log of a known format. */
    public record Skipped(String file, String why) {}

    /**
     * The most runs whose reports a one-page fleet holds (each is 30-60 kB of HTML with its charts); a larger fleet on
     * one page lists its runs without their reports and says how to have them (batch --out).
     */
    public static final int INLINE_RUNS = 25;

    public static Fleet of(List<Advice> advice, List<String> files, List<Failure> failures) {
        return of(advice, files, failures, List.of());
    }

    public static Fleet of(List<Advice> advice, List<String> files, List<Failure> failures, List<Skipped> skipped) {
        return new Fleet(advice.stream().map(AdviceView::of).toList(), files, failures, skipped, null, null);
    }

    /** The file name of the {@code index}-th run's page, as a batch writes it: run-00001.html. */
    public static String runPageName(int index, String ext) { return pageName(index, ext); }

    /**
     * The same fleet with each run's report a page of its own in {@code folder} (relative to the fleet's page, named
     * {@code page}): the rows link there, {@link #pages} gives them.
     */
    public Fleet withRunPages(String folder, String page) {
        return new Fleet(entries, runs, folder.endsWith("/") ? folder : folder + "/", page, failures, skipped);
    }

    /** The runs ranked: totals, then rates, then the runs not ranked. */
    public BatchTable table() {
        if (table == null) table = BatchTable.ranked(entries.stream().map(Entry::row).toList());
        return table;
    }

    private BatchTable table;

    /** Each file's place in file-name order (the first, where a name repeats). */
    private java.util.Map<String, Integer> index;

    /** The place of a run's file in file-name order, or -1. */
    int indexOf(String file) {
        if (index == null) {
            java.util.Map<String, Integer> m = new java.util.HashMap<>();
            for (int k = 0; k < entries.size(); k++) m.putIfAbsent(entries.get(k).file(), k);
            index = m;
        }
        return index.getOrDefault(file, -1);
    }

    /** The entry of a run's file. */
    Entry entry(String file) { return entries.get(indexOf(file)); }

    /** The anchor of a run's section: its place in file-name order. */
    String anchor(String file) { return "run-" + (indexOf(file) + 1); }

    /** Whether the runs' reports are sections of the fleet's page. */
    boolean inline() { return runPages == null && entries.size() <= INLINE_RUNS && runs.size() == entries.size(); }

    /** Where a run's row links: its section, its page ({@code ext} "html" or "md"), or nowhere (null). */
    String link(String file, String ext) {
        if (runPages != null) return runPages + pageName(indexOf(file), ext);
        return inline() ? "#" + anchor(file) : null;
    }

    /** The file name of the {@code index}-th run's page: run-00001.html, in file-name order. */
    static String pageName(int index, String ext) { return String.format(java.util.Locale.ROOT, "run-%05d.%s", index + 1, ext); }

    /**
     * Each run's report as a page of its own, by file name in {@link #runPages} ({@code ext} "html" or "md"), each with
     * a link back to the fleet's page, and the pages of every list longer than the fleet's page shows (500 rows a page),
     * each handed to {@code sink} (file name, content) as it is made.
     */
    public void pages(String ext, java.util.function.BiConsumer<String, String> sink) {
        for (int k = 0; k < runs.size(); k++) sink.accept(pageName(k, ext), runPage(runs.get(k), entries.get(k).file(), ext));
        FleetReport.listPages(this, ext).forEach(sink);
    }

    /** A run's report, from {@code file}, as a page of its own, with a link back to the fleet's page. */
    String runPage(AdviceView a, String file, String ext) {
        String back = page == null ? null : "../" + page;
        return ext.equals("md") ? FleetReport.runMarkdown(a, file, back) : FleetReport.runHtml(a, file, back);
    }

    /** The file names {@link #pages} writes, in its order: every run's page, and the pages of the long lists. */
    public java.util.Set<String> pageNames(String ext) {
        java.util.Set<String> out = new java.util.LinkedHashSet<>();
        for (int k = 0; k < entries.size(); k++) out.add(pageName(k, ext));
        BatchTable t = table();
        for (FleetReport.Listing l : FleetReport.Listing.values()) {
            int rows = t.rows(l.standing).size();
            if (rows > FleetReport.ON_PAGE) for (int p = 1; p <= FleetReport.Listing.pages(rows); p++) out.add(l.pageName(p, ext));
        }
        return out;
    }

    /** What the loss of a run without a cause of high or medium severity is filed under: the model's own error, or noise. */
    static final String NO_MATERIAL_CAUSE = "no cause above threshold";

    /** GPU-hours lost by each run's top cause, summed over the runs of {@code standing} (totals or rates), most first. */
    Map<String, Double> lostByCause(BatchTable.Standing standing) {
        Map<String, Double> by = new LinkedHashMap<>();
        for (BatchTable.Row r : table().rows(standing)) {
            double lost = BatchTable.rankedBy(r);
            if (!(lost > 0)) continue;
            boolean material = r.topSeverity().equals("high") || r.topSeverity().equals("medium");
            by.merge(material ? r.topCause() : NO_MATERIAL_CAUSE, lost, Double::sum);
        }
        List<Map.Entry<String, Double>> e = new ArrayList<>(by.entrySet());
        e.sort(Map.Entry.<String, Double>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
        Map<String, Double> out = new LinkedHashMap<>();
        for (Map.Entry<String, Double> x : e) out.put(x.getKey(), x.getValue());
        return out;
    }
}
