package dev.trainadvisor.perf;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.function.DoubleUnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The evidence's line integral ({@link LineIntegral}) on integrands whose integrals are known in closed form: a
 * normal, the one-sided shape of a collective that hides (flat, then falling as a normal past a kink that lies between
 * grid points), and a peak narrower than evenly spaced points resolve. Each is also integrated here by Simpson's rule
 * on 41 evenly spaced points, the rule it replaced, to show where the points placed by the bends gain and where they
 * give a little up.
 */
class LineIntegralTest {

    /** Simpson's rule on {@code n} evenly spaced points (n odd), in logs: what the fit did before the 52nd stop. */
    private static double evenlySpaced(DoubleUnaryOperator logF, double lo, double hi, int n) {
        double h = (hi - lo) / (n - 1), max = Double.NEGATIVE_INFINITY;
        double[] logs = new double[n];
        for (int i = 0; i < n; i++) max = Math.max(max, logs[i] = logF.applyAsDouble(lo + i * h));
        double sum = 0;
        for (int i = 0; i < n; i++) sum += (i == 0 || i == n - 1 ? 1 : i % 2 == 1 ? 4 : 2) * Math.exp(logs[i] - max);
        return max + Math.log(sum * h / 3);
    }

    /** erf to 1.5e-7 (Abramowitz and Stegun 7.1.26), enough for the tolerances below. */
    private static double erf(double x) {
        double t = 1 / (1 + 0.3275911 * Math.abs(x));
        double y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t
                * Math.exp(-x * x);
        return Math.signum(x) * y;
    }

    @Test
    void aNormalOverTwelveSigmas() {
        // integral of exp(-t^2/2) over [-6, 6]: sqrt(2 pi) erf(6 / sqrt 2), erf there 1 - 2e-9
        double exact = Math.log(Math.sqrt(2 * Math.PI) * (1 - 1.973e-9));
        DoubleUnaryOperator normal = t -> -t * t / 2;
        double placed = LineIntegral.logIntegral(normal, -6, 6);
        assertEquals(exact, placed, 1e-4);
        // a smooth line is where evenly spaced points are better: 1e-10 against the placed points' 7e-5
        assertEquals(exact, evenlySpaced(normal, -6, 6, 41), 1e-9);
    }

    @Test
    void theKinkOfACollectiveThatStartsToHide() {
        // flat up to k, then exp(-25 (t - k)^2): integral (k + 1) + sqrt(pi) / 10 erf(5 (1 - k)) over [-1, 1]
        for (double k : new double[]{0.33, -0.41, 0.77}) {
            DoubleUnaryOperator kinked = t -> t < k ? 0 : -25 * (t - k) * (t - k);
            double exact = Math.log(k + 1 + Math.sqrt(Math.PI) / 10 * erf(5 * (1 - k)));
            double placed = LineIntegral.logIntegral(kinked, -1, 1), even = evenlySpaced(kinked, -1, 1, 41);
            assertEquals(exact, placed, 2e-5, "kink at " + k);
            assertTrue(Math.abs(placed - exact) < Math.abs(even - exact) / 3,
                    "kink at " + k + ": placed " + (placed - exact) + ", evenly spaced " + (even - exact));
        }
    }

    @Test
    void aPeakNarrowerThanEvenlySpacedPoints() {
        // a normal of sigma 0.02 (0.013 from the middle) and one of 0.05 on [-1, 1]: integral sqrt(2 pi) sigma
        double[][] peaks = {{0.013, 0.02}, {0.3, 0.05}};
        for (double[] peak : peaks) {
            double c = peak[0], sd = peak[1];
            DoubleUnaryOperator narrow = t -> -(t - c) * (t - c) / (2 * sd * sd);
            double exact = Math.log(Math.sqrt(2 * Math.PI) * sd);
            double placed = LineIntegral.logIntegral(narrow, -1, 1), even = evenlySpaced(narrow, -1, 1, 41);
            assertEquals(exact, placed, 1e-4, "sigma " + sd);
            assertTrue(Math.abs(even - exact) > 1e-3, "evenly spaced, sigma " + sd + ": " + (even - exact));
        }
    }

    @Test
    void fortyOnePointsInsideTheLineEachOnce() {
        Set<Double> asked = new HashSet<>();
        int[] calls = {0};
        DoubleUnaryOperator kinked = t -> {
            calls[0]++;
            asked.add(t);
            assertTrue(t >= -1 && t <= 2, "outside the line: " + t);
            return t < 0.33 ? 0 : -25 * (t - 0.33) * (t - 0.33);
        };
        double first = LineIntegral.logIntegral(kinked, -1, 2);
        assertEquals(LineIntegral.POINTS, calls[0]);
        assertEquals(LineIntegral.POINTS, asked.size());
        assertTrue(asked.contains(-1.0) && asked.contains(2.0), "both ends");
        // the same line, the same points and the same double
        assertEquals(first, LineIntegral.logIntegral(kinked, -1, 2));
    }
}
