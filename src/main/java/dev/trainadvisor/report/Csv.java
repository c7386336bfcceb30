package dev.trainadvisor.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.dataformat.csv.CsvGenerator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;

import java.util.List;

/**
 * The one writer of the CSV tables (batch, search): RFC 4180 through jackson-dataformat-csv, a header row naming every
 * column, a field quoted only where it holds a comma, a quote or a line break (quotes doubled), "\n" line ends, and
 * every row exactly as wide as the header.
 */
final class Csv {
    private Csv() {}

    private static final CsvMapper MAPPER = CsvMapper.builder().enable(CsvGenerator.Feature.STRICT_CHECK_FOR_QUOTING).build();

    static String of(List<String> header, List<List<String>> rows) {
        CsvSchema schema = schema(header).withHeader();
        for (List<String> r : rows) checkWidth(header, r);
        try {
            return MAPPER.writer(schema).writeValueAsString(rows);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the table as CSV", e);
        }
    }

    private static CsvSchema schema(List<String> header) {
        CsvSchema.Builder b = CsvSchema.builder();
        for (String h : header) b.addColumn(h);
        return b.build().withLineSeparator("\n");
    }

    private static void checkWidth(List<String> header, List<String> r) {
        if (r.size() != header.size())
            throw new IllegalStateException("a row of " + r.size() + " fields under a header of " + header.size() + ": " + r);
    }

    /**
     * A table of {@code header} written a row at a time: {@link #header()} and each {@link #row}'s text, joined in the
     * table's order, are the bytes {@link #of} writes (a row's quoting depends on its own fields alone). A batch writes
     * each run's row as the run comes and ranks the rows at the end. Immutable.
     */
    static final class Rows {
        private final List<String> header;
        private final String headerLine;
        private final com.fasterxml.jackson.databind.ObjectWriter writer;

        Rows(List<String> header) {
            this.header = List.copyOf(header);
            this.headerLine = of(header, List.of());
            this.writer = MAPPER.writer(schema(header));
        }

        /** The header line, as {@link #of} begins. */
        String header() { return headerLine; }

        /** One row's line, as {@link #of} writes it within the table. */
        String row(List<String> r) {
            checkWidth(header, r);
            try {
                return writer.writeValueAsString(List.of(r));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("cannot write the row as CSV", e);
            }
        }
    }
}
