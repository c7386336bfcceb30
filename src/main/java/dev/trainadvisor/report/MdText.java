package dev.trainadvisor.report;

/**
 * Text the run, its files or a user's rules wrote (a run's name, a model's, a rule's title and explanation, a remedy's
 * action), as the Markdown reports quote it: shown as text, never as a link, an image, raw HTML or an autolink, as the
 * HTML reports already escape it. CommonMark makes a link or image only from {@code ](}, {@code ][} or a reference
 * definition {@code ]:}, raw HTML and autolinks only from {@code <} before a letter, {@code /}, {@code !} or {@code ?};
 * each of those is escaped, and a backslash before punctuation is doubled so that the user's own backslash cannot undo
 * an escape. Text without them (everything train-advisor writes itself) is left byte for byte as it was.
 */
final class MdText {
    private MdText() {}

    /** Prose: a sentence, a heading, a list item. */
    static String prose(String s) {
        if (s == null) return "";
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            char next = i + 1 < s.length() ? s.charAt(i + 1) : '\0';
            String r = null;
            if (c == ']' && (next == '(' || next == '[' || next == ':')) r = "\\]";
            else if (c == '<' && (Character.isLetter(next) || next == '/' || next == '!' || next == '?')) r = "&lt;";
            else if (c == '\\' && isAsciiPunctuation(next)) r = "\\\\";
            else if (c == '\n' || c == '\r') r = " ";   // a user's newline cannot start a block (a definition, HTML)
            if (r != null) {
                if (b == null) b = new StringBuilder(s.length() + 16).append(s, 0, i);
                b.append(r);
            } else if (b != null) b.append(c);
        }
        return b == null ? s : b.toString();
    }

    /** A table cell: prose, and a pipe that would end the cell escaped. */
    static String cell(String s) { return prose(s).replace("|", "\\|"); }

    /** Inside a code span: nothing renders there, but a backtick would end it early. */
    static String code(String s) { return s == null ? "" : s.replace('`', '\'').replace('\n', ' ').replace('\r', ' '); }

    private static boolean isAsciiPunctuation(char c) {
        return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~';
    }
}
