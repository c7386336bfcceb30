package dev.trainadvisor.facts;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Numbers as explanations print them: significant digits, plain notation, no trailing zeros. */
class FmtTest {
    @Test
    void numRoundsToSignificantDigits() {
        assertEquals("0.00166", Fmt.num(0.00166031));
        assertEquals("313", Fmt.num(313.195));
        assertEquals("1", Fmt.num(1.00379));
        assertEquals("1.35", Fmt.num(1.3504));
        assertEquals("12000", Fmt.num(12345.6, 2));
    }

    /** A ratio near 1 keeps the digits that say which side of 1 it is on (an MFU of 100.379% is 1.004x the peak). */
    @Test
    void ratioKeepsANearOneRatioOffOne() {
        assertEquals("1.004", Fmt.ratio(1.00379));
        assertEquals("0.9996", Fmt.ratio(0.99961));
        assertEquals("1.00001", Fmt.ratio(1.0000123));
        assertEquals("1", Fmt.ratio(1.0000001), "past six digits it is 1");
        assertEquals("1", Fmt.ratio(1.0));
        assertEquals("1.35", Fmt.ratio(1.3504), "away from 1, three digits as num");
        assertEquals("2.89", Fmt.ratio(2.8903));
    }

    /**
     * {@code fixed} prints what the JDK's Formatter prints for {@code %.Nf}: ties of the shortest decimal rounded half
     * up (0.1235, whose double is 0.12349999..., as 0.124), the sign of a negative that rounds to zero, the special
     * values, large and tiny magnitudes, and a hundred thousand seeded random values over twelve decades.
     */
    @Test
    void fixedPrintsWhatTheFormatterPrints() {
        double[] cases = {0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.1235, 0.0005, 0.00049999, -0.0004, -0.3, 99.95, 99.949999,
                123456789.125, 1e20, 1e-7, -1e-7, 4.6, 4.65, 0.045, Double.MIN_VALUE, Double.MAX_VALUE, Double.NaN,
                Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY};
        for (int decimals = 0; decimals <= 3; decimals++)
            for (double x : cases)
                assertEquals(String.format(java.util.Locale.ROOT, "%." + decimals + "f", x), Fmt.fixed(x, decimals),
                        x + " to " + decimals + " decimals");
        java.util.Random r = new java.util.Random(22);
        for (int i = 0; i < 100_000; i++) {
            double x = (r.nextBoolean() ? 1 : -1) * Math.pow(10, -6 + 12 * r.nextDouble());
            int decimals = r.nextInt(4);
            assertEquals(String.format(java.util.Locale.ROOT, "%." + decimals + "f", x), Fmt.fixed(x, decimals), x + "");
        }
        assertEquals("46%", Fmt.pct(0.455), "a percentage rounds its tie up, as the Formatter did");
        assertEquals("4.6%", RuledOut.share(0.0455));
        assertEquals("5%", RuledOut.share(0.05));
    }
}
