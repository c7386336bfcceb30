package dev.trainadvisor.perf;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Efficiency writes out its equals and hashCode (they match memoized predictions in every fit); the oracle is what
 * Java generates for a record of the same components: the same hash, and equal exactly when the generated equals says
 * so, -0.0 and NaN included.
 */
class EfficiencyEqualityTest {
    /** A record as Efficiency was before, its equals and hashCode generated. */
    record Generated(double gemmFractionOfPeak, double attentionFractionOfPeak, double hbmFraction, double overlapFraction,
                     double elementwiseTraffic) {}

    static Efficiency efficiency(double[] v) { return new Efficiency(v[0], v[1], v[2], v[3], v[4]); }

    static Generated generated(double[] v) { return new Generated(v[0], v[1], v[2], v[3], v[4]); }

    @Property(tries = 2000)
    void asAGeneratedRecord(@ForAll("components") double[] a, @ForAll("components") double[] b) {
        assertEquals(generated(a).hashCode(), efficiency(a).hashCode());
        assertEquals(generated(a).equals(generated(b)), efficiency(a).equals(efficiency(b)));
        double[] c = a.clone();
        c[(int) Math.floorMod(Double.doubleToLongBits(b[0]), 5L)] = b[1];   // one component changed, or not
        assertEquals(generated(a).equals(generated(c)), efficiency(a).equals(efficiency(c)));
        assertEquals(true, efficiency(a).equals(efficiency(a.clone())));
    }

    /**
     * Equal but perhaps for the overlap (what StepModel.Recent keeps a micro-batch's compute by): as the generated record
     * says of {@code a} and {@code b} given {@code a}'s overlap, whatever {@code b}'s was.
     */
    @Property(tries = 2000)
    void besidesTheOverlapAsAGeneratedRecord(@ForAll("components") double[] a, @ForAll("components") double[] b) {
        double[] c = a.clone();
        c[(int) Math.floorMod(Double.doubleToLongBits(b[0]), 5L)] = b[1];   // one component changed, or not
        for (double[] other : new double[][]{b, c}) {
            double[] sameOverlap = other.clone();
            sameOverlap[3] = a[3];
            assertEquals(generated(a).equals(generated(sameOverlap)), efficiency(a).equalsBesidesOverlap(efficiency(other)));
        }
    }

    @Provide
    Arbitrary<double[]> components() {
        // few values, so that equal ones are drawn often; the two zeros and NaN, which == and Double.compare tell apart
        return Arbitraries.of(0.0, -0.0, Double.NaN, 0.5, 0.85, 1.0, Double.POSITIVE_INFINITY).array(double[].class).ofSize(5);
    }
}
