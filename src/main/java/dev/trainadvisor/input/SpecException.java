package dev.trainadvisor.input;

/**
 * Bad input: names the file, the field and what was expected. The command line prints
 * {@link #getMessage()} and exits with code 2, never a stack trace.
 */
public final class SpecException extends RuntimeException {
    private final String file;
    private final String field;
    private final String expected;

    public SpecException(String file, String field, String expected) {
        super(format(file, field, expected));
        this.file = file;
        this.field = field;
        this.expected = expected;
    }

    private static String format(String file, String field, String expected) {
        StringBuilder s = new StringBuilder();
        s.append(file == null ? "<input>" : file);
        if (field != null && !field.isEmpty()) s.append(": field '").append(field).append('\'');
        s.append(": ").append(expected);
        return s.toString();
    }

    public String file() { return file; }
    public String field() { return field; }
    public String expected() { return expected; }
}
