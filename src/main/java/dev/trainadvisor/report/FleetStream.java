package dev.trainadvisor.report;

import dev.trainadvisor.advice.Advice;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A batch's report written as its runs are advised, in file-name order, holding only what the report's head needs of
 * each run (its ranking row, its name, its predicted and observed throughput): the same bytes as {@link Json#of(List)},
 * {@link BatchTable#csv()}, {@link Markdown#of(Fleet)} and {@link Html#of(Fleet)}, in memory that does not grow with the
 * runs' advice. JSON goes out as each run comes; the fleet reports put the ranking first, so the runs' sections wait in a
 * temporary file until the last run is in.
 */
public final class FleetStream implements AutoCloseable {
    public enum Format { JSON, CSV, MD, HTML }

    private final Format format;
    private final Writer out;
    private final List<BatchTable.Row> rows = new ArrayList<>();
    private final List<String> names = new ArrayList<>(), files = new ArrayList<>();
    private double[] predicted = new double[16], observed = new double[16];
    private Json.ArrayStream json;
    private Path spool;
    private Writer sections;
    private int runs;

    /** Writes to {@code out}, which the caller closes. */
    public FleetStream(Format format, Writer out) {
        this.format = format;
        this.out = out;
        try {
            if (format == Format.JSON) json = new Json.ArrayStream(out);
            if (format == Format.MD || format == Format.HTML) {
                spool = Files.createTempFile("train-advisor-batch-", "." + format.name().toLowerCase(java.util.Locale.ROOT));
                spool.toFile().deleteOnExit();
                sections = Files.newBufferedWriter(spool, StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The next run's advice, in file-name order, from {@code file}. */
    public void add(Advice advice, String file) {
        AdviceView a = AdviceView.of(advice);
        try {
            switch (format) {
                case JSON -> json.add(a);
                case CSV -> rows.add(BatchTable.row(a, file));
                case MD, HTML -> {
                    rows.add(BatchTable.row(a, file));
                    if (runs == predicted.length) {
                        predicted = Arrays.copyOf(predicted, 2 * runs);
                        observed = Arrays.copyOf(observed, 2 * runs);
                    }
                    names.add(a.run().path("name").asText());
                    predicted[runs] = a.prediction().tokensPerGpuPerS();
                    observed[runs] = a.observed() == null ? Double.NaN : a.observed().tokensPerGpuPerS();
                    files.add(file);
                    sections.write(format == Format.MD ? FleetReport.markdownSection(runs, a) : FleetReport.htmlSection(runs, a, file));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        runs++;
    }

    /** Writes what waits for the last run: the array's end, the table, or the fleet report's head, sections and glossary. */
    public void finish(List<Fleet.Failure> failures, List<Fleet.Skipped> skipped) {
        try {
            switch (format) {
                case JSON -> json.end();
                case CSV -> out.write(BatchTable.ranked(rows).csv());
                case MD, HTML -> {
                    sections.close();
                    FleetReport.Summary sum = new FleetReport.Summary(BatchTable.ranked(rows), names, Arrays.copyOf(predicted, runs),
                            Arrays.copyOf(observed, runs), files, FleetReport.Summary.indexOf(files), List.copyOf(failures),
                            List.copyOf(skipped));
                    if (format == Format.MD) out.write(FleetReport.markdownHead(sum));
                    else out.write(Html.pageStart(FleetReport.TITLE) + FleetReport.htmlHead(sum));
                    try (Reader in = Files.newBufferedReader(spool, StandardCharsets.UTF_8)) {
                        in.transferTo(out);
                    }
                    out.write(format == Format.MD ? FleetReport.markdownTail() : FleetReport.htmlTail() + Html.pageEnd(FleetReport.SORT_SCRIPT));
                }
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            if (sections != null) sections.close();
            if (spool != null) Files.deleteIfExists(spool);
        } catch (IOException e) {
            // a temporary file left behind is deleted on exit
        }
    }
}
