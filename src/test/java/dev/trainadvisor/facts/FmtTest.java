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
}
