package dev.trainadvisor.ingest;

/** One log format: recognizes its lines and reads them. Parsers never throw on malformed input. */
public interface LogParser {

    /** The format key (see {@link ParsedLog#format()}). */
    String format();

    /**
     * How sure this parser is that {@code text} is its format, from 0 (not at all) to 1 (certain), judged
     * by content alone (lines it recognizes), never by file name. Cheap: looks at what it needs and stops.
     */
    double confidence(String text);

    /** Reads the log; lines it does not recognize are skipped. */
    ParsedLog parse(String text);
}
