package dev.trainadvisor.input;

/**
 * What a message may quote of the user's input: one line, at most {@link #MAX_CHARS} characters, control characters
 * and other invisible ones shown as escapes, so that no file can make an error message long, multi-line, or a carrier
 * of terminal escape sequences. A longer text is cut and says how long it was.
 */
public final class Excerpt {
    private Excerpt() {}

    /** The most characters a message quotes of one thing the user wrote (issue 23: error excerpts up to 200). */
    public static final int MAX_CHARS = 200;

    /** {@code text} as a message may quote it: {@link #MAX_CHARS} characters at most. */
    public static String of(String text) { return of(text, MAX_CHARS); }

    /** {@code text} on one line, its invisible characters escaped, cut to {@code max} characters with its length said. */
    public static String of(String text, int max) {
        if (text == null) return "null";
        StringBuilder b = new StringBuilder(Math.min(text.length(), max) + 32);
        int shown = 0, i = 0;
        for (; i < text.length() && shown < max; ) {
            int cp = text.codePointAt(i);
            String piece = visible(cp);
            if (shown + piece.length() > max && shown > 0) break;
            b.append(piece);
            shown += piece.length();
            i += Character.charCount(cp);
        }
        if (i < text.length())
            b.append("... (").append(String.format(java.util.Locale.ROOT, "%,d", text.codePointCount(0, text.length())))
                    .append(" characters)");
        return b.toString();
    }

    /** Whether a message may show {@code text} as it is: short, one line, nothing invisible. */
    public static boolean isPlain(String text) { return text != null && of(text).equals(text); }

    private static String visible(int cp) {
        if (cp == '\n') return "\\n";
        if (cp == '\r') return "\\r";
        if (cp == '\t') return "\\t";
        int type = Character.getType(cp);
        boolean invisible = Character.isISOControl(cp) || type == Character.FORMAT || type == Character.LINE_SEPARATOR
                || type == Character.PARAGRAPH_SEPARATOR || type == Character.UNASSIGNED || type == Character.PRIVATE_USE
                || type == Character.SURROGATE;
        return invisible ? String.format(java.util.Locale.ROOT, "\\u%04X", cp) : new String(Character.toChars(cp));
    }
}
