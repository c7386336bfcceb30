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

    /**
     * The message, bounded whatever the input: the file and field names on one line, each value the message quotes
     * ('...') cut to {@link Excerpt#MAX_CHARS}, every line to {@link #MAX_LINE_CHARS}, invisible characters escaped.
     */
    private static String format(String file, String field, String expected) {
        StringBuilder s = new StringBuilder();
        s.append(file == null ? "<input>" : Excerpt.of(file, MAX_LINE_CHARS / 2));
        if (field != null && !field.isEmpty()) s.append(": field '").append(Excerpt.of(field)).append('\'');
        s.append(": ");
        // a quoted value on one line and cut; then the message's own lines (a rule file's compile errors take several)
        String quoted = QUOTED.matcher(String.valueOf(expected)).replaceAll(m -> java.util.regex.Matcher.quoteReplacement(
                "'" + Excerpt.of(m.group(1)) + "'"));
        String[] lines = (s + quoted).split("\n", -1);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < lines.length; i++) {
            if (i > 0) out.append('\n');
            out.append(Excerpt.of(lines[i], MAX_LINE_CHARS));
        }
        return out.toString();
    }

    /** The longest line a message holds (the longest train-advisor writes itself, a list of known keys, is under 600). */
    public static final int MAX_LINE_CHARS = 2000;

    /** A value quoted in a message: what it quotes is the user's, shown as an excerpt. */
    private static final java.util.regex.Pattern QUOTED = java.util.regex.Pattern.compile("'([^']*)'");

    public String file() { return file; }
    public String field() { return field; }
    public String expected() { return expected; }
}
