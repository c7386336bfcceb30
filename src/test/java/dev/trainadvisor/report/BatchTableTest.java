package dev.trainadvisor.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.advice.TrainAdvisor;
import dev.trainadvisor.engine.RuleEngine;
import dev.trainadvisor.spec.ReferenceRun;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fleet table's row read off the advice itself (what a CSV batch writes) is the row of the advice's view (what the
 * markdown and HTML reports show), value for value: over the examples, the test run files and every published
 * reference run, each also with a step count logged (a total rather than a rate), with its throughput a hundred times
 * what it measured (implausible), and without its measurements (unmeasured), so that every standing, cause and remedy
 * a row can carry is read both ways.
 */
class BatchTableTest {

    @Test
    void aRowReadOffTheAdviceIsTheRowOfItsView() throws IOException {
        TrainAdvisor advisor = new TrainAdvisor(RuleEngine.builtIn()).withoutLayoutSearch();
        SpecReader reader = new SpecReader();
        List<Advice> advice = new ArrayList<>();
        List<String> files = new ArrayList<>();
        List<Path> runFiles = new ArrayList<>();
        try (Stream<Path> s = Files.list(Path.of("examples"))) {
            s.filter(f -> f.toString().endsWith(".yaml")).sorted().forEach(runFiles::add);
        }
        try (Stream<Path> s = Files.list(Path.of("src/test/resources/runs"))) {
            s.filter(f -> f.toString().endsWith(".yaml")).sorted().forEach(runFiles::add);
        }
        for (Path f : runFiles) {
            JsonNode tree = SpecReader.parse(f);
            for (String variant : List.of("as written", "steps", "implausible", "unmeasured")) {
                ObjectNode t = (ObjectNode) tree.deepCopy();
                if (!variant.equals("as written") && !(t.get("metrics") instanceof ObjectNode)) continue;
                switch (variant) {
                    case "steps" -> ((ObjectNode) t.get("metrics")).put("steps", 1000);
                    case "implausible" -> {
                        ObjectNode m = (ObjectNode) t.get("metrics");
                        if (!m.has("tokens_per_gpu_per_s")) continue;
                        m.put("tokens_per_gpu_per_s", 100 * m.get("tokens_per_gpu_per_s").asDouble());
                        m.remove("tflops_per_gpu");
                    }
                    case "unmeasured" -> t.remove("metrics");
                    default -> { }
                }
                RunSpec spec = reader.read(t, f.toString());
                advice.add(advisor.adviseRun(spec.cluster(), spec.run()));
                files.add(f.getFileName() + " " + variant);
            }
        }
        for (ReferenceRun r : ReferenceRun.builtIn()) {
            if (r.isExcluded()) continue;
            advice.add(advisor.adviseRun(r.spec().cluster(), r.spec().run()));
            files.add("reference-runs.json#" + r.id());
        }
        Map<BatchTable.Standing, Integer> standings = new EnumMap<>(BatchTable.Standing.class);
        int causes = 0, remedies = 0;
        for (int i = 0; i < advice.size(); i++) {
            BatchTable.Row fromView = BatchTable.row(AdviceView.of(advice.get(i)), files.get(i));
            BatchTable.Row fromAdvice = BatchTable.row(advice.get(i), files.get(i));
            assertEquals(fromView, fromAdvice, files.get(i));
            standings.merge(fromView.standing(), 1, Integer::sum);
            if (!fromView.topCause().isEmpty()) causes++;
            if (!fromView.bestRemedy().isEmpty()) remedies++;
        }
        // every branch of the row was read both ways
        for (BatchTable.Standing s : BatchTable.Standing.values())
            assertTrue(standings.getOrDefault(s, 0) > 0, s + " among " + standings);
        assertTrue(causes > 50 && remedies > 50, causes + " rows with a cause, " + remedies + " with a remedy");
    }

    /**
     * A batch writes its CSV a row at a time as the runs come and ranks the lines at the end (BatchTable.Line): the
     * bytes are those of the whole table written at once, ranked, over rows whose fields need quoting (a comma, a quote,
     * a line break, blanks at an end), cells that are empty (NaN), every standing, and ties of the ranking that only the
     * file name breaks, given in an order that is not the ranking's.
     */
    @Test
    void theRowsWrittenOneByOneAreTheTableWrittenAtOnce() throws IOException {
        List<BatchTable.Row> rows = awkwardRows();
        String atOnce = BatchTable.ranked(rows).csv();
        assertEquals(atOnce, written(rows, CsvLines.HELD_CHARS));
        // the order given is not already the ranking's, and some fields were quoted
        assertTrue(!BatchTable.ranked(rows).rows().equals(rows), "the rows were given ranked");
        assertTrue(atOnce.contains("\"with, comma\"") && atOnce.contains("\"two\nlines\""), atOnce);
        assertEquals(BatchTable.of(List.of(), List.of()).csv(), written(List.of(), CsvLines.HELD_CHARS));
    }

    /** The CSV a batch writes of {@code rows} added one by one, holding {@code held} characters of their text. */
    private static String written(List<BatchTable.Row> rows, long held) throws IOException {
        java.io.StringWriter out = new java.io.StringWriter();
        try (CsvLines lines = new CsvLines(held)) {
            for (BatchTable.Row r : rows) lines.add(BatchTable.Line.of(r));
            lines.writeRanked(out);
        }
        return out.toString();
    }

    /**
     * A batch's lines past what it holds in memory go to a temporary file (CsvLines, so that a fleet of a million runs
     * fits the batch's heap): written ranked, they are the table written at once, byte for byte, whether none, some or
     * all of them went to the file (the rows above: quoted fields, line breaks, non-ASCII names, ties), and the file is
     * gone once the lines are closed (on Linux at once: Java unlinks a file opened DELETE_ON_CLOSE, its channel keeps it).
     */
    @Test
    void theLinesMovedToAFileAreTheTableWrittenAtOnce() throws IOException {
        List<BatchTable.Row> rows = awkwardRows();
        String atOnce = BatchTable.ranked(rows).csv();
        int chars = 0;
        for (BatchTable.Row r : rows) chars += BatchTable.Line.of(r).csv().length();
        // held: all of the text, about a third of it, none
        for (long held : new long[] {chars, chars / 3, 0}) {
            java.io.StringWriter out = new java.io.StringWriter();
            Path file;
            try (CsvLines lines = new CsvLines(held)) {
                for (BatchTable.Row r : rows) lines.add(BatchTable.Line.of(r));
                file = lines.file();
                assertEquals(held < chars, file != null, "held " + held + " of " + chars);
                lines.writeRanked(out);
            }
            assertEquals(atOnce, out.toString(), "held " + held + " characters of " + chars);
            if (file != null) assertTrue(Files.notExists(file), "the lines' file deleted: " + file);
        }
    }

    /** Rows whose CSV fields need quoting, with empty cells, every standing and ties only the file name breaks. */
    static List<BatchTable.Row> awkwardRows() {
        String[] names = {"plain", "with, comma", "with \"quotes\"", "two\nlines", "carriage\rreturn", " padded ",
                "", "ünïcödé", "tab\there", "\"\"", ",", "a\r\nb"};
        BatchTable.Standing[] standings = BatchTable.Standing.values();
        List<BatchTable.Row> rows = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            BatchTable.Standing st = standings[i % standings.length];
            // a few losses only, so that many rows tie on what they are ranked by and the file name decides
            double lost = (i % 3) * 0.25;
            String name = names[i % names.length];
            rows.add(new BatchTable.Row(name, "file-" + (59 - i) + (i % 5 == 0 ? ", odd" : "") + ".yaml", 8 + i,
                    i % 2 == 0 ? "H100" : "A100 \"SXM\"", names[(i + 3) % names.length], i % 7 == 0 ? Double.NaN : 1000 + i,
                    2000.5 - i, 0.5 + i / 100.0, lost, i % 4 == 0 ? Double.NaN : 0.4, i % 6 == 0 ? "" : "cause, " + i,
                    "high", 0.1 * i, i % 2 == 0 ? "" : "remedy \"x\"", 1.25, 100.0 / 3, 200, lost,
                    st == BatchTable.Standing.TOTAL ? 12.5 : Double.NaN, 8 * lost,
                    st == BatchTable.Standing.TOTAL ? 100 * lost : Double.NaN, st));
        }
        return rows;
    }
}
