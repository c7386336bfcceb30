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
        CsvSchema.Builder b = CsvSchema.builder();
        for (String h : header) b.addColumn(h);
        CsvSchema schema = b.build().withHeader().withLineSeparator("\n");
        for (List<String> r : rows)
            if (r.size() != header.size())
                throw new IllegalStateException("a row of " + r.size() + " fields under a header of " + header.size() + ": " + r);
        try {
            return MAPPER.writer(schema).writeValueAsString(rows);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the table as CSV", e);
        }
    }
}
