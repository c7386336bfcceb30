package dev.trainadvisor.ingest;

import java.util.ArrayList;
import java.util.List;

/**
 * The skeleton every log parser shares: its format key, and {@link LogParser}'s promise never to throw. A parser
 * writes {@link #score} and {@link #read}; an unexpected exception in either becomes "not this format" (0) or a
 * result with a "parser error" warning (see {@link LogResult#guarded}). Lines cut at {@link LogSource#MAX_LINE}
 * are reported here, once for every format.
 */
abstract class GuardedLogParser implements LogParser {
    private final String format;

    GuardedLogParser(String format) { this.format = format; }

    @Override
    public final String format() { return format; }

    @Override
    public final double confidence(String sample) { return LogResult.guardedScore(() -> score(sample)); }

    @Override
    public final ParsedLog parse(LogSource log) {
        ParsedLog p = LogResult.guarded(format, () -> read(log));
        long cut = log.cutLines();
        if (cut == 0) return p;
        List<String> warnings = new ArrayList<>(p.warnings());
        String limit = LogSource.bytes(LogSource.MAX_LINE);
        warnings.add(cut == 1 ? "1 line longer than " + limit + " was cut to its first " + limit
                : cut + " lines longer than " + limit + " were cut to their first " + limit);
        return new ParsedLog(p.format(), p.steps(), p.steadySteps(), p.metrics(), p.tflopsConvention(), p.config(),
                p.extra(), warnings, p.history(), p.printedOn());
    }

    /** {@link LogParser#confidence}, allowed to throw. */
    abstract double score(String sample);

    /** {@link LogParser#parse}, allowed to throw. */
    abstract ParsedLog read(LogSource log);
}
