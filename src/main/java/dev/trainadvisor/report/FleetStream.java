package dev.trainadvisor.report;

import dev.trainadvisor.advice.Advice;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A batch's report written as its runs are advised, in file-name order, holding of each run only what the fleet's page
 * needs ({@link Fleet.Entry}): the same bytes as {@link Json#of(List)}, {@link BatchTable#csv()}, {@link Markdown#of(Fleet)}
 * and {@link Html#of(Fleet)} of the whole fleet, in memory that does not grow with the runs' advice. JSON goes out as
 * each run comes. The fleet reports keep each run's view only while the runs may still be sections of the page (a fleet
 * of at most {@link Fleet#INLINE_RUNS} on standard output); written to a file, each run's report is a page of its own,
 * written as the run comes ({@link Pages}).
 */
public final class FleetStream implements AutoCloseable {
    public enum Format { JSON, CSV, MD, HTML }

    /**
     * Where each run's page goes, beside a fleet report written to a file.
     *
     * @param folder the folder of the run pages (report.html -> report-runs/)
     * @param page   the fleet page's own file name, for the run pages' link back
     * @param ext    "md" or "html"
     */
    public record Pages(Path folder, String page, String ext) {}

    private final Format format;
    private final Writer out;
    private final Pages pages;
    private final List<Fleet.Entry> entries = new ArrayList<>();
    /** A CSV's lines, each written as its run came (BatchTable.Line), ranked at the end. */
    private final CsvLines lines;
    private final List<AdviceView> views = new ArrayList<>();
    private Json.ArrayStream json;
    /** The fleet the run pages are written for: its entries do not matter to a run's page, only its folder and page. */
    private final Fleet pageFleet;

    /** Writes to {@code out}, which the caller closes; each run's page into {@code pages} (null: one page). */
    public FleetStream(Format format, Writer out, Pages pages) {
        this.format = format;
        this.out = out;
        this.pages = format == Format.MD || format == Format.HTML ? pages : null;
        this.lines = format == Format.CSV ? new CsvLines() : null;
        try {
            if (format == Format.JSON) json = new Json.ArrayStream(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (this.pages != null) {
            try {
                Files.createDirectories(this.pages.folder());
            } catch (IOException e) {
                throw new dev.trainadvisor.input.SpecException(this.pages.folder().toString(), null,
                        "a writable folder for each run's report: " + e.getMessage());
            }
            pageFleet = new Fleet(List.of(), List.of(), List.of(), List.of(), null, null)
                    .withRunPages(this.pages.folder().getFileName().toString(), this.pages.page());
        } else {
            pageFleet = null;
        }
    }

    /** Writes to {@code out}, the fleet reports as one page. */
    public FleetStream(Format format, Writer out) { this(format, out, null); }

    /** The next run's advice, in file-name order, from {@code file}. */
    public void add(Advice advice, String file) { add(prepare(advice, file)); }

    /**
     * A run's part of the report, worked out from its advice alone: its CSV line, its JSON, or its fleet entry with its
     * page's text (or its view, for a page that may show it). It reads nothing this stream holds but what is fixed
     * when it is made, so any thread may work it out: a batch does it on the thread that advised the run, beside the
     * next runs, and the writer {@link #add(Prepared) adds} the parts in file-name order. Rendering a run's page and
     * its view had kept the writer's thread the batch's busiest: an HTML batch of bench/fleet.py's 10,000 runs spent 8.2
     * s of user time there beside the advising threads' 6.3 s each, the two cores 1.75 busy; prepared beside the advice,
     * 1.89-1.92, and the batch 6-14% shorter (three pairs alternated, `perf stat`; 57th stop). A JSON or CSV batch was
     * already bound by its two cores.
     */
    public Prepared prepare(Advice advice, String file) {
        return switch (format) {
            // a CSV's row is read off the advice itself (BatchTable#row(Advice, String)): the view is all the rest
            case CSV -> new Prepared(BatchTable.Line.of(BatchTable.row(advice, file)), null, null, null, null);
            case JSON -> new Prepared(null, Json.ArrayStream.element(AdviceView.of(advice)), null, null, null);
            case MD, HTML -> {
                AdviceView a = AdviceView.of(advice);
                yield new Prepared(null, null, Fleet.Entry.of(a, file), pages == null ? a : null,
                        pages == null ? null : pageFleet.runPage(a, file, pages.ext()));
            }
        };
    }

    /**
     * One run's part of the report ({@link #prepare}): what its format needs, the rest null.
     *
     * @param line  a CSV's line
     * @param json  the run's element of the JSON array
     * @param entry the fleet page's entry of an MD or HTML report
     * @param view  the run's view, where its report may be a section of the fleet's page (no run pages)
     * @param page  the run's page, where it has one
     */
    public record Prepared(BatchTable.Line line, String json, Fleet.Entry entry, AdviceView view, String page) {}

    /** The next run's part of the report ({@link #prepare}), in file-name order. */
    public void add(Prepared p) {
        try {
            switch (format) {
                case JSON -> json.addElement(p.json());
                case CSV -> addLine(p.line());
                case MD, HTML -> {
                    int k = entries.size();
                    entries.add(p.entry());
                    if (pages != null) write(Fleet.runPageName(k, pages.ext()), p.page());
                    else if (entries.size() <= Fleet.INLINE_RUNS) views.add(p.view());
                    else views.clear();   // too many to be sections of the page: their reports are not on it
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes what waits for the last run: the array's end, the table, or the fleet report with its list pages. */
    public void finish(List<Fleet.Failure> failures, List<Fleet.Skipped> skipped) {
        try {
            switch (format) {
                case JSON -> json.end();
                case CSV -> lines.writeRanked(out);
                case MD, HTML -> {
                    Fleet fleet = Fleet.of(entries, views.size() == entries.size() ? views : List.of(), failures, skipped, null, null);
                    if (pages != null) fleet = fleet.withRunPages(pages.folder().getFileName().toString(), pages.page());
                    out.write(format == Format.MD ? Markdown.of(fleet) : Html.of(fleet));
                    if (pages != null) {
                        String ext = pages.ext();
                        java.util.Map<String, String> lists = FleetReport.listPages(fleet, ext);
                        for (var e : lists.entrySet()) write(e.getKey(), e.getValue());
                        removeStale(fleet.pageNames(ext));
                    }
                }
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A CSV's next line; past what it holds in memory, its text goes to a temporary file ({@link CsvLines}). */
    private void addLine(BatchTable.Line line) {
        try {
            lines.add(line);
        } catch (IOException e) {
            String tmp = System.getProperty("java.io.tmpdir");
            throw new dev.trainadvisor.input.SpecException(tmp, null, "a writable folder for the rows of a CSV batch past "
                    + (CsvLines.HELD_CHARS >> 20) + " MiB (java.io.tmpdir; another with TRAIN_ADVISOR_JAVA_OPTS="
                    + "-Djava.io.tmpdir=DIR): " + e.getMessage());
        }
    }

    private void write(String name, String text) throws IOException {
        Files.writeString(pages.folder().resolve(name), text, StandardCharsets.UTF_8);
    }

    /** Pages an earlier, larger fleet left in the folder that this one does not write. */
    private void removeStale(java.util.Set<String> keep) throws IOException {
        try (Stream<Path> old = Files.list(pages.folder())) {
            for (Path p : old.toList()) {
                String name = p.getFileName().toString();
                if (name.matches("(run-\\d{5}|(lost-totals|lost-rates|implausible|unmeasured)-\\d{3})\\.(html|md)")
                        && !keep.contains(name)) Files.delete(p);
            }
        }
    }

    /** Deletes what a CSV's lines left in a temporary file. */
    @Override
    public void close() {
        if (lines != null) lines.close();
    }
}
