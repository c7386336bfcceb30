package dev.trainadvisor.perf;

/**
 * Levenberg-Marquardt least squares as MINPACK's lmder (Moré, "The Levenberg-Marquardt algorithm: implementation and
 * theory", Lecture Notes in Mathematics 630, 1978) and commons-math 3.6.1's {@code LevenbergMarquardtOptimizer} (its
 * Java translation, Apache License 2.0) run it with lazy evaluation, no convergence checker and no weights: the same
 * operations in the same order on plain arrays, so that it reaches the same points, bit for bit, after the same
 * evaluations ({@code LevenbergMarquardtTest} holds it to the library's optimizer on random problems).
 *
 * <p>Why not the library's: {@code Fit} runs it two dozen times a run, on problems of one to six parameters. The
 * library's optimizer is one method of some 250 lines with its helpers over {@code RealMatrix} and {@code RealVector}
 * objects, which the JVM's optimizing compiler compiled 22 times in a cold 10,000-run batch (its profile changed under
 * it: 2.4 s of the compiler's 17 s there, JFR's {@code jdk.Compilation} events; issue 22, item 6, docs/development.md),
 * and which allocates the matrices and vectors every step. Here the same algorithm is split into its steps, each a
 * small method on arrays. Commons-math stays for what the fit does once per hypothesis (the covariance's
 * decompositions).
 */
final class LevenbergMarquardt {
    private LevenbergMarquardt() {}

    /** A least-squares problem whose target is zero: its residuals are the negated values. */
    interface Problem {
        /** The model's values at {@code x} (not changed by the caller). */
        double[] values(double[] x);

        /** The model's Jacobian at {@code x}, one row a value (not changed by the caller: it decomposes a copy). */
        double[][] jacobian(double[] x);
    }

    /** commons-math's defaults, which the fit keeps: the initial step bound factor (MINPACK's factor). */
    static final double INITIAL_STEP_BOUND_FACTOR = 100;
    /** commons-math's default orthogonality tolerance (MINPACK's gtol). */
    static final double ORTHO_TOLERANCE = 1e-10;
    /** commons-math's default QR ranking threshold: Precision.SAFE_MIN, the smallest normal double. */
    static final double QR_RANKING_THRESHOLD = 0x1.0p-1022;
    /** Twice commons-math's Precision.EPSILON (2^-53): the tolerances below which no further decrease is possible. */
    private static final double TWO_EPS = 2 * 0x1.0p-53;

    /**
     * The optimum from {@code start}, or null where the library's optimizer throws: more than {@code maxEvaluations}
     * evaluations or {@code maxIterations} iterations, tolerances too small for a further decrease, or a Jacobian with
     * an infinite or NaN column.
     */
    static double[] minimize(Problem f, double[] start, int maxEvaluations, int maxIterations,
                             double costRelativeTolerance, double parRelativeTolerance) {
        return new Run(f, start.length, maxEvaluations, maxIterations, costRelativeTolerance, parRelativeTolerance)
                .minimize(start);
    }

    /** Where the library's optimizer would throw. */
    private static final class Stop extends Exception {
        Stop() { super(null, null, false, false); }
    }

    /** The QR decomposition with column pivoting of the negated Jacobian (the library's InternalData). */
    private static final class Qr {
        final double[][] a;
        final int[] permutation;
        final double[] diagR, jacNorm, beta;
        int rank;

        Qr(double[][] a, int nC) {
            this.a = a;
            permutation = new int[nC];
            diagR = new double[nC];
            jacNorm = new double[nC];
            beta = new double[nC];
        }
    }

    /**
     * One minimization: the library's optimize with its counters, work arrays and state. determineLMParameter,
     * determineLMDirection, qrDecomposition and qTy keep the library's signatures, their parameters named as the library
     * names them (most of them this state's fields), so that each can be read against its original line by line.
     */
    private static final class Run {
        final Problem f;
        final int nC, maxEvaluations, maxIterations;
        final double costTolerance, parTolerance;
        int evaluations, iterations, solvedCols, nR;

        // the optimizer's state between its steps (the library's locals)
        double[] lmDir, diag, oldX, work1, work2, work3, qtf;
        double lmPar, delta, xNorm, maxCosine;
        /** The points of the current and the previous evaluation, and the point the step works on. */
        double[] current, previous, currentPoint, currentResiduals;
        double currentCost;
        boolean firstIteration = true, converged;
        /** The decomposition of the Jacobian at the point of the current iteration. */
        Qr qr;

        Run(Problem f, int nC, int maxEvaluations, int maxIterations, double costTolerance, double parTolerance) {
            this.f = f;
            this.nC = nC;
            this.maxEvaluations = maxEvaluations;
            this.maxIterations = maxIterations;
            this.costTolerance = costTolerance;
            this.parTolerance = parTolerance;
        }

        /** The residuals at {@code x}: zero minus the values, as the library subtracts them from its target. */
        double[] residuals(double[] x) {
            double[] v = f.values(x);
            double[] r = new double[v.length];
            for (int i = 0; i < v.length; i++) r[i] = 0.0 - v[i];
            return r;
        }

        /** The Euclidean norm of the residuals (the library's cost). */
        static double cost(double[] r) {
            double dot = 0;
            for (double v : r) dot += v * v;
            return Math.sqrt(dot);
        }

        void countEvaluation() throws Stop {
            if (++evaluations > maxEvaluations) throw new Stop();
        }

        double[] minimize(double[] start) {
            try {
                return optimize(start);
            } catch (Stop e) {
                return null;
            }
        }

        /**
         * The library's optimize: its outer iterations (a Jacobian, its QR decomposition, the convergence on the
         * gradient) around its inner loop (steps from the current point until one reduces the cost enough), each step
         * a method of its own, so that the loops here stay small (the whole as one method was compiled five times,
         * on-stack, in a cold batch).
         */
        double[] optimize(double[] start) throws Stop {
            lmDir = new double[nC];
            diag = new double[nC];
            oldX = new double[nC];
            work1 = new double[nC];
            work2 = new double[nC];
            work3 = new double[nC];
            countEvaluation();
            current = start.clone();
            currentResiduals = residuals(current);
            nR = currentResiduals.length;
            solvedCols = Math.min(nR, nC);
            qtf = new double[nR];
            currentCost = cost(currentResiduals);
            currentPoint = current.clone();
            while (true) {
                if (++iterations > maxIterations) throw new Stop();
                previous = current;
                if (beginIteration()) return current;
                for (double ratio = 0; ratio < 1.0e-4; ) {
                    ratio = step();
                    if (converged) return current;
                }
            }
        }

        /**
         * The Jacobian at the current point decomposed, the residuals rotated by it, the variables' scaling (on the
         * first iteration, with the step bound); true where the residuals are orthogonal to the Jacobian's columns.
         */
        boolean beginIteration() throws Stop {
            qr = qrDecomposition(f.jacobian(current.clone()), nR);
            System.arraycopy(currentResiduals, 0, qtf, 0, nR);
            qTy(qtf, qr, nR);
            // the upper triangle of R in the Jacobian's place, its diagonal apart
            for (int k = 0; k < solvedCols; ++k) {
                int pk = qr.permutation[k];
                qr.a[k][pk] = qr.diagR[pk];
            }
            if (firstIteration) {
                // the variables scaled by the Jacobian's column norms, and the step bound
                xNorm = 0;
                for (int k = 0; k < nC; ++k) {
                    double dk = qr.jacNorm[k];
                    if (dk == 0) dk = 1.0;
                    double xk = dk * currentPoint[k];
                    xNorm += xk * xk;
                    diag[k] = dk;
                }
                xNorm = Math.sqrt(xNorm);
                delta = xNorm == 0 ? INITIAL_STEP_BOUND_FACTOR : INITIAL_STEP_BOUND_FACTOR * xNorm;
            }
            maxCosine = maxCosine();
            if (maxCosine <= ORTHO_TOLERANCE) return true;
            for (int j = 0; j < nC; ++j) diag[j] = Math.max(diag[j], qr.jacNorm[j]);
            return false;
        }

        /**
         * One step of the inner loop from the current point: the Levenberg-Marquardt step evaluated, the step bound
         * updated, the point kept or the previous one restored; its ratio of actual to predicted reduction.
         * {@link #converged} is set where the tolerances are met; a {@link Stop} where they cannot be.
         */
        double step() throws Stop {
            int[] permutation = qr.permutation;
            for (int j = 0; j < solvedCols; ++j) {
                int pj = permutation[j];
                oldX[pj] = currentPoint[pj];
            }
            double previousCost = currentCost;
            lmPar = determineLMParameter(qtf, delta, diag, qr, work1, work2, work3, lmDir, lmPar);
            double lmNorm = 0;
            for (int j = 0; j < solvedCols; ++j) {
                int pj = permutation[j];
                lmDir[pj] = -lmDir[pj];
                currentPoint[pj] = oldX[pj] + lmDir[pj];
                double s = diag[pj] * lmDir[pj];
                lmNorm += s * s;
            }
            lmNorm = Math.sqrt(lmNorm);
            if (firstIteration) delta = Math.min(delta, lmNorm);

            countEvaluation();
            current = currentPoint.clone();
            currentResiduals = residuals(current);
            currentCost = cost(currentResiduals);
            currentPoint = current.clone();

            // the actual reduction, the predicted one and their ratio
            double actRed = -1.0;
            if (0.1 * currentCost < previousCost) {
                double r = currentCost / previousCost;
                actRed = 1.0 - r * r;
            }
            double pc2 = previousCost * previousCost;
            double coeff1 = predictedReduction(permutation) / pc2;
            double coeff2 = lmPar * lmNorm * lmNorm / pc2;
            double preRed = coeff1 + 2 * coeff2;
            double dirDer = -(coeff1 + coeff2);
            double ratio = preRed == 0 ? 0 : actRed / preRed;

            // the step bound updated
            if (ratio <= 0.25) {
                double tmp = actRed < 0 ? 0.5 * dirDer / (dirDer + 0.5 * actRed) : 0.5;
                if (0.1 * currentCost >= previousCost || tmp < 0.1) tmp = 0.1;
                delta = tmp * Math.min(delta, 10.0 * lmNorm);
                lmPar /= tmp;
            } else if (lmPar == 0 || ratio >= 0.75) {
                delta = 2 * lmNorm;
                lmPar *= 0.5;
            }

            if (ratio >= 1.0e-4) {
                // a successful step: the norm of the scaled point updated
                firstIteration = false;
                xNorm = 0;
                for (int k = 0; k < nC; ++k) {
                    double xK = diag[k] * currentPoint[k];
                    xNorm += xK * xK;
                }
                xNorm = Math.sqrt(xNorm);
            } else {
                // a failed one: the previous point restored
                currentCost = previousCost;
                for (int j = 0; j < solvedCols; ++j) {
                    int pj = permutation[j];
                    currentPoint[pj] = oldX[pj];
                }
                current = previous;
            }

            // the convergence tests
            if (Math.abs(actRed) <= costTolerance && preRed <= costTolerance && ratio <= 2.0
                    || delta <= parTolerance * xNorm) {
                converged = true;
                return ratio;
            }
            // the tests of tolerances too small for any further progress
            if (Math.abs(actRed) <= TWO_EPS && preRed <= TWO_EPS && ratio <= 2.0) throw new Stop();
            if (delta <= TWO_EPS * xNorm) throw new Stop();
            if (maxCosine <= TWO_EPS) throw new Stop();
            return ratio;
        }

        /** The squared norm of R times the step (the predicted reduction's first term, before its scaling). */
        double predictedReduction(int[] permutation) {
            for (int j = 0; j < solvedCols; ++j) {
                int pj = permutation[j];
                double dirJ = lmDir[pj];
                work1[j] = 0;
                for (int i = 0; i <= j; ++i) work1[i] += qr.a[i][pj] * dirJ;
            }
            double coeff1 = 0;
            for (int j = 0; j < solvedCols; ++j) coeff1 += work1[j] * work1[j];
            return coeff1;
        }

        /** The largest cosine between the residuals and a column of the Jacobian (MINPACK's gnorm). */
        double maxCosine() {
            double max = 0;
            if (currentCost != 0) {
                for (int j = 0; j < solvedCols; ++j) {
                    int pj = qr.permutation[j];
                    double s = qr.jacNorm[pj];
                    if (s != 0) {
                        double sum = 0;
                        for (int i = 0; i <= j; ++i) sum += qr.a[i][pj] * qtf[i];
                        max = Math.max(max, Math.abs(sum) / (s * currentCost));
                    }
                }
            }
            return max;
        }

        /**
         * The Levenberg-Marquardt parameter (MINPACK's lmpar): the step {@code lmDir} of norm within 10% of
         * {@code delta}, or the Gauss-Newton step where that is shorter.
         */
        double determineLMParameter(double[] qy, double delta, double[] diag, Qr qr, double[] work1, double[] work2,
                                    double[] work3, double[] lmDir, double lmPar) {
            double[][] a = qr.a;
            int[] permutation = qr.permutation;
            int rank = qr.rank;
            double[] diagR = qr.diagR;

            // the Gauss-Newton direction; a rank-deficient Jacobian gives a least-squares solution
            for (int j = 0; j < rank; ++j) lmDir[permutation[j]] = qy[j];
            for (int j = rank; j < nC; ++j) lmDir[permutation[j]] = 0;
            for (int k = rank - 1; k >= 0; --k) {
                int pk = permutation[k];
                double ypk = lmDir[pk] / diagR[pk];
                for (int i = 0; i < k; ++i) lmDir[permutation[i]] -= ypk * a[i][pk];
                lmDir[pk] = ypk;
            }

            // its scaled norm; an acceptable one ends here
            double dxNorm = scaledNorm(diag, lmDir, work1, permutation);
            double fp = dxNorm - delta;
            if (fp <= 0.1 * delta) return 0;

            // a lower bound parl of the parameter from the Newton step, where the Jacobian has full rank
            double sum2;
            double parl = 0;
            if (rank == solvedCols) {
                for (int j = 0; j < solvedCols; ++j) {
                    int pj = permutation[j];
                    work1[pj] *= diag[pj] / dxNorm;
                }
                sum2 = 0;
                for (int j = 0; j < solvedCols; ++j) {
                    int pj = permutation[j];
                    double sum = 0;
                    for (int i = 0; i < j; ++i) sum += a[i][pj] * work1[permutation[i]];
                    double s = (work1[pj] - sum) / diagR[pj];
                    work1[pj] = s;
                    sum2 += s * s;
                }
                parl = fp / (delta * sum2);
            }

            // an upper bound paru
            sum2 = 0;
            for (int j = 0; j < solvedCols; ++j) {
                int pj = permutation[j];
                double sum = 0;
                for (int i = 0; i <= j; ++i) sum += a[i][pj] * qy[i];
                sum /= diag[pj];
                sum2 += sum * sum;
            }
            double gNorm = Math.sqrt(sum2);
            double paru = gNorm / delta;
            if (paru == 0) paru = QR_RANKING_THRESHOLD / Math.min(delta, 0.1);

            // the parameter within its bounds, then at most ten corrections
            lmPar = Math.min(paru, Math.max(lmPar, parl));
            if (lmPar == 0) lmPar = gNorm / dxNorm;
            for (int countdown = 10; countdown >= 0; --countdown) {
                if (lmPar == 0) lmPar = Math.max(QR_RANKING_THRESHOLD, 0.001 * paru);
                double sPar = Math.sqrt(lmPar);
                for (int j = 0; j < solvedCols; ++j) {
                    int pj = permutation[j];
                    work1[pj] = sPar * diag[pj];
                }
                determineLMDirection(qy, work1, work2, qr, work3, lmDir);
                dxNorm = scaledNorm(diag, lmDir, work3, permutation);
                double previousFP = fp;
                fp = dxNorm - delta;
                if (Math.abs(fp) <= 0.1 * delta || parl == 0 && fp <= previousFP && previousFP < 0) return lmPar;

                // the Newton correction
                for (int j = 0; j < solvedCols; ++j) {
                    int pj = permutation[j];
                    work1[pj] = work3[pj] * diag[pj] / dxNorm;
                }
                for (int j = 0; j < solvedCols; ++j) {
                    int pj = permutation[j];
                    work1[pj] /= work2[j];
                    double tmp = work1[pj];
                    for (int i = j + 1; i < solvedCols; ++i) work1[permutation[i]] -= a[i][pj] * tmp;
                }
                sum2 = 0;
                for (int j = 0; j < solvedCols; ++j) {
                    double s = work1[permutation[j]];
                    sum2 += s * s;
                }
                double correction = fp / (delta * sum2);
                if (fp > 0) parl = Math.max(parl, lmPar);
                else if (fp < 0) paru = Math.min(paru, lmPar);
                lmPar = Math.max(parl, lmPar + correction);
            }
            return lmPar;
        }

        /** The norm of {@code diag} times {@code dir} over the solved columns, each product written into {@code out}. */
        double scaledNorm(double[] diag, double[] dir, double[] out, int[] permutation) {
            double norm = 0;
            for (int j = 0; j < solvedCols; ++j) {
                int pj = permutation[j];
                double s = diag[pj] * dir[pj];
                out[pj] = s;
                norm += s * s;
            }
            return Math.sqrt(norm);
        }

        /**
         * The step for a given parameter (MINPACK's qrsolv): the least-squares solution of the Jacobian's system with
         * the diagonal {@code diag} appended, by Givens rotations of R; {@code lmDiag} gets the diagonal of the
         * rotated triangle.
         */
        void determineLMDirection(double[] qy, double[] diag, double[] lmDiag, Qr qr, double[] work, double[] lmDir) {
            int[] permutation = qr.permutation;
            double[][] a = qr.a;
            double[] diagR = qr.diagR;

            // R's upper triangle copied to its lower one, and R's diagonal and qy kept
            for (int j = 0; j < solvedCols; ++j) {
                int pj = permutation[j];
                for (int i = j + 1; i < solvedCols; ++i) a[i][pj] = a[j][permutation[i]];
                lmDir[j] = diagR[pj];
                work[j] = qy[j];
            }

            // the diagonal eliminated by Givens rotations
            for (int j = 0; j < solvedCols; ++j) {
                int pj = permutation[j];
                double dpj = diag[pj];
                if (dpj != 0) java.util.Arrays.fill(lmDiag, j + 1, lmDiag.length, 0);
                lmDiag[j] = dpj;
                double qtbpj = 0;
                for (int k = j; k < solvedCols; ++k) {
                    int pk = permutation[k];
                    if (lmDiag[k] != 0) {
                        double sin, cos;
                        double rkk = a[k][pk];
                        if (Math.abs(rkk) < Math.abs(lmDiag[k])) {
                            double cotan = rkk / lmDiag[k];
                            sin = 1.0 / Math.sqrt(1.0 + cotan * cotan);
                            cos = sin * cotan;
                        } else {
                            double tan = lmDiag[k] / rkk;
                            cos = 1.0 / Math.sqrt(1.0 + tan * tan);
                            sin = cos * tan;
                        }
                        a[k][pk] = cos * rkk + sin * lmDiag[k];
                        double temp = cos * work[k] + sin * qtbpj;
                        qtbpj = -sin * work[k] + cos * qtbpj;
                        work[k] = temp;
                        for (int i = k + 1; i < solvedCols; ++i) {
                            double rik = a[i][pk];
                            double temp2 = cos * rik + sin * lmDiag[i];
                            lmDiag[i] = -sin * rik + cos * lmDiag[i];
                            a[i][pk] = temp2;
                        }
                    }
                }
                lmDiag[j] = a[j][permutation[j]];
                a[j][permutation[j]] = lmDir[j];
            }

            // the triangular system solved; a singular one by least squares
            int nSing = solvedCols;
            for (int j = 0; j < solvedCols; ++j) {
                if (lmDiag[j] == 0 && nSing == solvedCols) nSing = j;
                if (nSing < solvedCols) work[j] = 0;
            }
            if (nSing > 0) {
                for (int j = nSing - 1; j >= 0; --j) {
                    int pj = permutation[j];
                    double sum = 0;
                    for (int i = j + 1; i < nSing; ++i) sum += a[i][pj] * work[i];
                    work[j] = (work[j] - sum) / lmDiag[j];
                }
            }
            for (int j = 0; j < lmDir.length; ++j) lmDir[permutation[j]] = work[j];
        }

        /**
         * The QR decomposition of the negated Jacobian by Householder reflections with column pivoting (MINPACK's
         * qrfac): the columns by decreasing norm, until the rest fall to the ranking threshold (the rank).
         */
        Qr qrDecomposition(double[][] jacobian, int nR) throws Stop {
            double[][] a = new double[nR][nC];
            for (int i = 0; i < nR; i++) for (int k = 0; k < nC; k++) a[i][k] = jacobian[i][k] * -1.0;
            Qr qr = new Qr(a, nC);
            int[] permutation = qr.permutation;
            for (int k = 0; k < nC; ++k) {
                permutation[k] = k;
                double norm2 = 0;
                for (int i = 0; i < nR; ++i) {
                    double akk = a[i][k];
                    norm2 += akk * akk;
                }
                qr.jacNorm[k] = Math.sqrt(norm2);
            }
            for (int k = 0; k < nC; ++k) {
                // the column of largest norm next
                int nextColumn = -1;
                double ak2 = Double.NEGATIVE_INFINITY;
                for (int i = k; i < nC; ++i) {
                    double norm2 = 0;
                    for (int j = k; j < nR; ++j) {
                        double aki = a[j][permutation[i]];
                        norm2 += aki * aki;
                    }
                    if (Double.isInfinite(norm2) || Double.isNaN(norm2)) throw new Stop();
                    if (norm2 > ak2) {
                        nextColumn = i;
                        ak2 = norm2;
                    }
                }
                if (ak2 <= QR_RANKING_THRESHOLD) {
                    qr.rank = k;
                    return qr;
                }
                int pk = permutation[nextColumn];
                permutation[nextColumn] = permutation[k];
                permutation[k] = pk;

                // the Householder reflection that zeroes the column below the diagonal, applied to the others
                double akk = a[k][pk];
                double alpha = akk > 0 ? -Math.sqrt(ak2) : Math.sqrt(ak2);
                double betak = 1.0 / (ak2 - akk * alpha);
                qr.beta[pk] = betak;
                qr.diagR[pk] = alpha;
                a[k][pk] -= alpha;
                for (int dk = nC - 1 - k; dk > 0; --dk) {
                    double gamma = 0;
                    for (int j = k; j < nR; ++j) gamma += a[j][pk] * a[j][permutation[k + dk]];
                    gamma *= betak;
                    for (int j = k; j < nR; ++j) a[j][permutation[k + dk]] -= gamma * a[j][pk];
                }
            }
            qr.rank = solvedCols;
            return qr;
        }

        /** {@code y} multiplied by Q transposed, Q the decomposition's reflections. */
        void qTy(double[] y, Qr qr, int nR) {
            double[][] a = qr.a;
            for (int k = 0; k < nC; ++k) {
                int pk = qr.permutation[k];
                double gamma = 0;
                for (int i = k; i < nR; ++i) gamma += a[i][pk] * y[i];
                gamma *= qr.beta[pk];
                for (int i = k; i < nR; ++i) y[i] -= gamma * a[i][pk];
            }
        }
    }
}
