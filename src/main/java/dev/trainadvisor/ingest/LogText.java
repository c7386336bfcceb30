package dev.trainadvisor.ingest;

import java.util.regex.Pattern;

/** Clean-up every log parser needs: ANSI colour codes and launcher prefixes (log-formats.md section 0). */
public final class LogText {
    private static final Pattern ANSI = Pattern.compile("\u001B\\[[0-9;]*[A-Za-z]");
    /** torchrun "[rank0]:", slurm "0:", mpirun "[0]" or "[1,0]<stdout>:" at the start of a line. */
    private static final Pattern PREFIX = Pattern.compile("^(?:\\[rank\\d+\\]:|\\d+:\\s|\\[\\d+(?:,\\d+)?\\](?:<std(?:out|err)>:)?)\\s*");

    private LogText() {}

    public static String clean(String line) {
        // fast paths: most lines have no escape and start with neither '[' nor a digit
        String s = line.indexOf('\u001B') < 0 ? line : ANSI.matcher(line).replaceAll("");
        if (!s.isEmpty() && (s.charAt(0) == '[' || Character.isDigit(s.charAt(0)))) s = PREFIX.matcher(s).replaceFirst("");
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
    }
}
