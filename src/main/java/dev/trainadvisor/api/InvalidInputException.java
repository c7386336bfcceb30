package dev.trainadvisor.api;

/**
 * Bad input: a run whose values are not valid, a run file or log that cannot be read as one, a rules folder whose rules
 * do not compile. The message names the source (the file, or {@code Run.builder()}), the field as a run file spells it
 * ({@code training.seq_len}, {@code cluster.gpu}) and what was expected; {@link #source()}, {@link #field()} and
 * {@link #expected()} give the three apart. The command line prints the same message for the same input and exits 2.
 */
public final class InvalidInputException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String source;
    private final String field;
    private final String expected;

    InvalidInputException(String message, String source, String field, String expected) {
        super(message);
        this.source = source;
        this.field = field;
        this.expected = expected;
    }

    static InvalidInputException of(dev.trainadvisor.input.SpecException e) {
        // the internal exception stays out: its type is not the library's
        return new InvalidInputException(e.getMessage(), e.file(), e.field(), e.expected());
    }

    static InvalidInputException field(String source, String field, String expected) {
        return of(new dev.trainadvisor.input.SpecException(source, field, expected));
    }

    /** The file, or {@code Run.builder()} for a run built in code. */
    public String source() { return source; }

    /** The dotted run-file field ("training.seq_len"), or null when the input as a whole was refused. */
    public String field() { return field; }

    /** What was expected, as the message says it after the field. */
    public String expected() { return expected; }
}
