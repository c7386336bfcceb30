package dev.trainadvisor.search;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The search's divisors against trying every number. */
class DivisorsTest {
    @Test
    void divisorsUpToAMaximumAreWhatTryingEveryNumberGives() {
        for (int n = 1; n <= 400; n++)
            for (int max : new int[] {0, 1, 2, 7, 8, 20, 64, n - 1, n, 1000}) {
                List<Integer> expected = new ArrayList<>();
                for (int d = 1; d <= Math.min(n, Math.max(1, max)); d++) if (n % d == 0) expected.add(d);
                assertEquals(expected, LayoutSearch.Space.divisors(n, max), n + " up to " + max);
            }
        assertEquals(21, LayoutSearch.Space.divisors(1 << 20, 1 << 20).size(), "2^0 to 2^20");
        assertEquals(List.of(1, 2, 4, 8), LayoutSearch.Space.divisors(1 << 20, 8));
    }
}
