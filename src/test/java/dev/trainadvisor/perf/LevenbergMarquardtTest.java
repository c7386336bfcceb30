package dev.trainadvisor.perf;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.commons.math3.exception.MathIllegalStateException;
import org.apache.commons.math3.fitting.leastsquares.LeastSquaresBuilder;
import org.apache.commons.math3.fitting.leastsquares.LevenbergMarquardtOptimizer;
import org.apache.commons.math3.fitting.leastsquares.ValueAndJacobianFunction;
import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.ArrayRealVector;
import org.apache.commons.math3.linear.RealMatrix;
import org.apache.commons.math3.linear.RealVector;
import org.apache.commons.math3.util.Pair;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The port is held to commons-math 3.6.1's LevenbergMarquardtOptimizer, run as the fit ran it (lazy evaluation, a zero
 * target, the fit's tolerances and evaluation limit): on random problems both must ask for the same points in the same
 * order, values and Jacobians alike, and end at the same point bit for bit, or both stop. The problems are of the fit's
 * shape (log-ratio residuals of a step time with max() kinks, where a hidden collective leaves the cost flat, and prior
 * rows), a classic exponential-decay fit, and Rosenbrock's valley with too few evaluations.
 */
class LevenbergMarquardtTest {

    /**
     * A problem whose calls are recorded: each a kind ('v' values, 'j' Jacobian) and the point, as the fit's Evaluator
     * sees them (it answers the values of the point it was last asked from what it kept).
     */
    abstract static class Recorded {
        final List<String> calls = new ArrayList<>();

        abstract double[] f(double[] x);

        abstract int size();

        /** The values; asked again at the point just asked (the library's lazy evaluation does), not recorded again. */
        double[] values(double[] x) {
            String call = "v" + Arrays.toString(x);
            if (calls.isEmpty() || !calls.get(calls.size() - 1).equals(call)) calls.add(call);
            return f(x);
        }

        /** A forward-difference Jacobian as the fit's (the step actually taken after rounding). */
        double[][] jacobian(double[] x) {
            calls.add("j" + Arrays.toString(x));
            double[] f0 = f(x);
            double[][] jac = new double[f0.length][x.length];
            for (int j = 0; j < x.length; j++) {
                double[] xh = x.clone();
                xh[j] += 1e-6;
                double h = xh[j] - x[j];
                double[] fj = f(xh);
                for (int i = 0; i < f0.length; i++) jac[i][j] = (fj[i] - f0[i]) / h;
            }
            return jac;
        }
    }

    /**
     * The fit's shape: a step of compute {@code c / e^x0} and a collective {@code b / e^x1} hidden behind {@code w} of
     * the compute up to the overlap {@code 1 / (1 + e^-x2)}, observed as log ratios over a sigma, with prior rows.
     */
    static Recorded stepLike(double compute, double comm, double window, double[] measured, double[] mean, double[] sigma) {
        return new Recorded() {
            @Override
            double[] f(double[] x) {
                double c = compute / Math.exp(x[0]);
                double b = comm / Math.exp(x[1]);
                double overlap = 1 / (1 + Math.exp(-x[2]));
                double hidden = Math.min(b, overlap * window * c);
                double step = c + b - hidden;
                double[] r = new double[measured.length + x.length];
                r[0] = (Math.log(step) - Math.log(measured[0])) / 0.05;
                for (int i = 1; i < measured.length; i++)
                    r[i] = (Math.log(i == 1 ? c / 3 : b) - Math.log(measured[i])) / 0.05;
                for (int j = 0; j < x.length; j++) r[measured.length + j] = (x[j] - mean[j]) / sigma[j];
                return r;
            }

            @Override
            int size() { return measured.length + 3; }
        };
    }

    static double[] port(Recorded p, double[] start, int maxEvaluations, double tolerance) {
        return LevenbergMarquardt.minimize(new LevenbergMarquardt.Problem() {
            @Override
            public double[] values(double[] x) { return p.values(x); }

            @Override
            public double[][] jacobian(double[] x) { return p.jacobian(x); }
        }, start, maxEvaluations, maxEvaluations, tolerance, tolerance);
    }

    /** The library's optimizer as Fit ran it before the port; null where it threw. */
    static double[] library(Recorded p, double[] start, int maxEvaluations, double tolerance) {
        ValueAndJacobianFunction model = new ValueAndJacobianFunction() {
            @Override
            public RealVector computeValue(double[] x) { return new ArrayRealVector(p.values(x)); }

            @Override
            public RealMatrix computeJacobian(double[] x) { return new Array2DRowRealMatrix(p.jacobian(x), false); }

            @Override
            public Pair<RealVector, RealMatrix> value(RealVector point) {
                double[] x = point.toArray();
                return new Pair<>(computeValue(x), computeJacobian(x));
            }
        };
        try {
            return new LevenbergMarquardtOptimizer().withCostRelativeTolerance(tolerance).withParameterRelativeTolerance(tolerance)
                    .optimize(new LeastSquaresBuilder().start(start).model(model).target(new double[p.size()])
                            .maxEvaluations(maxEvaluations).maxIterations(maxEvaluations).lazyEvaluation(true).build())
                    .getPoint().toArray();
        } catch (MathIllegalStateException e) {
            return null;
        }
    }

    /** Both optimizers on two fresh copies of one problem: the same calls, the same end. */
    static void same(java.util.function.Supplier<Recorded> problem, double[] start, int maxEvaluations, double tolerance) {
        Recorded a = problem.get(), b = problem.get();
        double[] lib = library(a, start, maxEvaluations, tolerance);
        double[] ours = port(b, start, maxEvaluations, tolerance);
        assertEquals(a.calls, b.calls, "the points asked for, in order");
        if (lib == null) assertNull(ours, "the library stopped; so must the port");
        else assertArrayEquals(lib, ours, 0.0, "the optimum, bit for bit");
    }

    @Provide
    Arbitrary<double[]> stepProblems() {
        Arbitrary<Double> positive = Arbitraries.doubles().between(0.05, 5);
        Arbitrary<Double> coordinate = Arbitraries.doubles().between(-3, 3);
        return Combinators.combine(positive.list().ofSize(6), coordinate.list().ofSize(3)).as((p, s) -> {
            double[] out = new double[9];
            for (int i = 0; i < 6; i++) out[i] = p.get(i);
            for (int i = 0; i < 3; i++) out[6 + i] = s.get(i);
            return out;
        });
    }

    @Property(tries = 400)
    void theFitsProblemsTakeTheLibrarysPath(@ForAll("stepProblems") double[] q) {
        double[] measured = {q[3] + q[0], q[0] / 3 * q[4], q[1] * q[5]};
        double[] mean = {0, 0, 1.386};
        double[] sigma = {0.1, 0.6, 1.0};
        // the fit's starts: the prior, and beyond it towards a slower step
        for (double[] start : new double[][]{mean.clone(), {q[6] * 0.1, q[7], q[8]}, {0, -1.8, 1.386}})
            same(() -> stepLike(q[0], q[1], q[2], measured, mean, sigma), start, Fit.MAX_EVALUATIONS, Fit.TOLERANCE);
    }

    @Property(tries = 200)
    void anOnlyMeasuredStepLeavesTheJacobianRankDeficient(@ForAll("stepProblems") double[] q) {
        // one observation and no prior rows: three unknowns, one equation (rank one), often a flat direction
        Recorded template = stepLike(q[0], q[1], q[2], new double[]{q[3] + q[0]}, new double[3], new double[]{1, 1, 1});
        java.util.function.Supplier<Recorded> p = () -> new Recorded() {
            @Override
            double[] f(double[] x) { return new double[]{template.f(x)[0]}; }

            @Override
            int size() { return 1; }
        };
        same(p, new double[]{q[6], q[7], q[8]}, Fit.MAX_EVALUATIONS, Fit.TOLERANCE);
    }

    @Test
    void anExponentialDecayIsFittedAsTheLibraryFitsIt() {
        Random random = new Random(20261205);
        for (int trial = 0; trial < 200; trial++) {
            int m = 4 + random.nextInt(10);
            double a = 1 + 4 * random.nextDouble(), k = 0.1 + random.nextDouble(), c = random.nextDouble();
            double[] t = new double[m], y = new double[m];
            for (int i = 0; i < m; i++) {
                t[i] = i * 0.5;
                y[i] = a * Math.exp(-k * t[i]) + c + 0.02 * random.nextGaussian();
            }
            java.util.function.Supplier<Recorded> p = () -> new Recorded() {
                @Override
                double[] f(double[] x) {
                    double[] r = new double[m];
                    for (int i = 0; i < m; i++) r[i] = x[0] * Math.exp(-x[1] * t[i]) + x[2] - y[i];
                    return r;
                }

                @Override
                int size() { return m; }
            };
            double[] start = {random.nextDouble() * 5, random.nextDouble() * 2, random.nextDouble()};
            same(p, start, 80, trial % 2 == 0 ? 1e-6 : 1e-10);
        }
    }

    @Test
    void rosenbrocksValleyWithTooFewEvaluationsStopsBoth() {
        java.util.function.Supplier<Recorded> p = () -> new Recorded() {
            @Override
            double[] f(double[] x) { return new double[]{10 * (x[1] - x[0] * x[0]), 1 - x[0]}; }

            @Override
            int size() { return 2; }
        };
        // from (-1.2, 1), Moré, Garbow and Hillstrom's start: a handful of evaluations do not reach (1, 1)
        Recorded few = p.get();
        assertNull(port(few, new double[]{-1.2, 1}, 3, 1e-10), "three evaluations do not reach the optimum");
        same(p, new double[]{-1.2, 1}, 3, 1e-10);
        // with enough of them it reaches (1, 1), the library alike
        double[] x = port(p.get(), new double[]{-1.2, 1}, 200, 1e-10);
        assertNotNull(x);
        assertEquals(1, x[0], 1e-8);
        assertEquals(1, x[1], 1e-8);
        same(p, new double[]{-1.2, 1}, 200, 1e-10);
    }

    @Test
    void aJacobianWithANaNColumnStopsBoth() {
        java.util.function.Supplier<Recorded> p = () -> new Recorded() {
            @Override
            double[] f(double[] x) { return new double[]{x[0] - 1, x[1] > 0.5 ? Double.NaN : x[1] - 2, x[0] + x[1]}; }

            @Override
            int size() { return 3; }
        };
        same(p, new double[]{0, 0.4999999}, 80, 1e-6);
        assertTrue(p.get().f(new double[]{0, 1})[1] != p.get().f(new double[]{0, 1})[1], "the problem has its NaN");
    }
}
