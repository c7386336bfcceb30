package dev.trainadvisor.report;

import dev.trainadvisor.advice.Advice;

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
 * @param runs     each run's view, in file-name order
 * @param files    the file each came from, in the same order
 * @param failures the files that could not be read or advised
 * @param skipped  the files that are neither a run file nor a training log (notes, reports train-advisor wrote, ...)
 * @param runPages the folder, relative to the fleet's page, that holds each run's report ("fleet-runs/"); null when
 *                 the fleet is one page
 * @param page     the fleet page's own file name, for the run pages' link back; null when it is one page
 */
public record Fleet(List<AdviceView> runs, List<String> files, List<Failure> failures, List<Skipped> skipped,
                    String runPages, String page) {

    /** A file that could not be advised, and why (the message names the file, the field and what was expected). */
    public record Failure(String file, String message) {}

    /** A file of the folder left out of the batch, and why: it is no run file nor a training log of a known format. */
    public record Skipped(String file, String why) {}

    /**
     * The most runs whose reports a one-page fleet holds (each is 30-60 kB of HTML with its charts); a larger fleet on
     * one page lists its runs without their reports and says how to have them (batch --out).
     */
    public static final int INLINE_RUNS = 25;

    public Fleet {
        runs = List.copyOf(runs);
        files = List.copyOf(files);
        failures = List.copyOf(failures);
        skipped = List.copyOf(skipped);
    }

    public static Fleet of(List<Advice> advice, List<String> files, List<Failure> failures) {
        return of(advice, files, failures, List.of());
    }

    public static Fleet of(List<Advice> advice, List<String> files, List<Failure> failures, List<Skipped> skipped) {
        return new Fleet(advice.stream().map(AdviceView::of).toList(), files, failures, skipped, null, null);
    }

    /**
     * The same fleet with each run's report a page of its own in {@code folder} (relative to the fleet's page, named
     * {@code page}): the rows link there, {@link #pages} gives them.
     */
    public Fleet withRunPages(String folder, String page) {
        return new Fleet(runs, files, failures, skipped, folder.endsWith("/") ? folder : folder + "/", page);
    }

    /** The runs ranked: totals, then rates, then the runs not ranked. */
    public BatchTable table() { return BatchTable.ofViews(runs, files); }

    /** The anchor of a run's section: its place in file-name order. */
    String anchor(String file) { return "run-" + (files.indexOf(file) + 1); }

    /** Whether the runs' reports are sections of the fleet's page. */
    boolean inline() { return runPages == null && runs.size() <= INLINE_RUNS; }

    /** Where a run's row links: its section, its page ({@code ext} "html" or "md"), or nowhere (null). */
    String link(String file, String ext) {
        if (runPages != null) return runPages + pageName(files.indexOf(file), ext);
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
        String back = page == null ? null : "../" + page;
        for (int k = 0; k < runs.size(); k++) {
            AdviceView a = runs.get(k);
            // one page at a time: 10,000 runs' pages are 400 MB together
            sink.accept(pageName(k, ext), ext.equals("md") ? FleetReport.runMarkdown(a, files.get(k), back)
                    : FleetReport.runHtml(a, files.get(k), back));
        }
        FleetReport.listPages(this, ext).forEach(sink);
    }

    /** The file names {@link #pages} writes, in its order. */
    public java.util.Set<String> pageNames(String ext) {
        java.util.Set<String> out = new java.util.LinkedHashSet<>();
        for (int k = 0; k < runs.size(); k++) out.add(pageName(k, ext));
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
