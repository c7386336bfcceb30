package dev.trainadvisor.ingest;

/**
 * The skeleton every log parser shares: its format key, and {@link LogParser}'s promise never to throw. A parser
 * writes {@link #score} and {@link #read}; an unexpected exception in either becomes "not this format" (0) or a
 * result with a "parser error" warning (see {@link LogResult#guarded}).
 */
abstract class GuardedLogParser implements LogParser {
    private final String format;

    GuardedLogParser(String format) { this.format = format; }

    @Override
    public final String format() { return format; }

    @Override
    public final double confidence(String text) { return LogResult.guardedScore(() -> score(text)); }

    @Override
    public final ParsedLog parse(String text) { return LogResult.guarded(format, () -> read(text)); }

    /** {@link LogParser#confidence}, allowed to throw. */
    abstract double score(String text);

    /** {@link LogParser#parse}, allowed to throw. */
    abstract ParsedLog read(String text);
}
