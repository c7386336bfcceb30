package dev.trainadvisor.facts;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;

/** Number formatting for explanations: fixed locale, so the same input gives the same bytes. */
public final class Fmt {
    private Fmt() {}

    /** {@code x} to {@code digits} significant digits, plain notation. */
    public static String num(double x, int digits) {
        if (Double.isNaN(x)) return "n/a";
        if (Double.isInfinite(x)) return x > 0 ? "inf" : "-inf";
        if (x == 0) return "0";
        // the shortest decimal that reads back as x (Double.toString), not its exact binary expansion: what a reader
        // would round, and a tenth of the work
        return BigDecimal.valueOf(x).round(new MathContext(digits)).stripTrailingZeros().toPlainString();
    }

    public static String num(double x) { return num(x, 3); }

    /**
     * A ratio to three significant digits, or to as many more (up to six) as keep one that is not 1 from reading as 1:
     * an MFU of 100.4% is 1.004x the peak, not "1x".
     */
    public static String ratio(double x) {
        String s = num(x);
        for (int d = 4; s.equals("1") && x != 1 && d <= 6; d++) s = num(x, d);
        return s;
    }

    public static String pct(double fraction) { return fixed(fraction * 100, 0) + "%"; }

    /**
     * {@code x} with {@code decimals} digits after the point, as {@code String.format(Locale.ROOT, "%.<decimals>f", x)}
     * prints it, character for character: the Formatter rounds the shortest decimal that reads back as x
     * (Double.toString's digits) half up, and keeps the sign of a negative value that rounds to zero ("-0.0"). The
     * explanations print percentages at every run of a batch, where the Formatter's parsing of its pattern and its
     * locale's symbols were 2% of the samples. {@code FmtTest} holds the two to each other.
     */
    public static String fixed(double x, int decimals) {
        if (!Double.isFinite(x)) return String.format(Locale.ROOT, "%." + decimals + "f", x);
        String digits = BigDecimal.valueOf(Math.abs(x)).setScale(decimals, java.math.RoundingMode.HALF_UP).toPlainString();
        return Double.compare(x, 0.0) < 0 ? "-" + digits : digits;
    }

    public static String gb(double bytes) { return num(bytes / 1e9, 3) + " GB"; }
}
