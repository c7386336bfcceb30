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
    /** A CSV's rows with their cells, formatted as each run comes (BatchTable.Line). */
    private final List<BatchTable.Line> lines = new ArrayList<>();
    private final List<AdviceView> views = new ArrayList<>();
    private Json.ArrayStream json;
    /** The fleet the run pages are written for: its entries do not matter to a run's page, only its folder and page. */
    private final Fleet pageFleet;

    /** Writes to {@code out}, which the caller closes; each run's page into {@code pages} (null: one page). */
    public FleetStream(Format format, Writer out, Pages pages) {
        this.format = format;
        this.out = out;
        this.pages = format == Format.MD || format == Format.HTML ? pages : null;
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
    public void add(Advice advice, String file) {
        // a CSV's row is read off the advice itself (BatchTable#row(Advice, String)): the view is all the rest
        AdviceView a = format == Format.CSV ? null : AdviceView.of(advice);
        try {
            switch (format) {
                case JSON -> json.add(a);
                case CSV -> lines.add(BatchTable.Line.of(BatchTable.row(advice, file)));
                case MD, HTML -> {
                    int k = entries.size();
                    entries.add(Fleet.Entry.of(a, file));
                    if (pages != null) write(Fleet.runPageName(k, pages.ext()), pageFleet.runPage(a, file, pages.ext()));
                    else if (entries.size() <= Fleet.INLINE_RUNS) views.add(a);
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
                case CSV -> out.write(BatchTable.csv(lines));
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

    @Override
    public void close() {}
}
