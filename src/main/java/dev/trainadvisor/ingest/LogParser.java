package dev.trainadvisor.ingest;

/** One log format: recognizes its lines and reads them. Parsers never throw on malformed input. */
public interface LogParser {

    /** The format key (see {@link ParsedLog#format()}). */
    String format();

    /**
     * How sure this parser is that {@code sample} is its format, from 0 (not at all) to 1 (certain), judged
     * by content alone (lines it recognizes), never by file name. Cheap: looks at what it needs and stops. Detection
     * passes {@link LogSource#sample()}: the head and the tail of the log, not all of it.
     */
    double confidence(String sample);

    /**
     * Reads the log in one pass over its lines (or a few), holding a bounded amount of it; lines it does not recognize
     * are skipped. Throws only {@link dev.trainadvisor.input.SpecException}, when the file cannot be read or grows past
     * {@link LogSource#MAX_BYTES}.
     */
    ParsedLog parse(LogSource log);

    /** Reads a log held as text (tests): {@link #parse(LogSource)} of it. */
    default ParsedLog parse(String text) {
        return parse(LogSource.of(text, null));
    }
}
