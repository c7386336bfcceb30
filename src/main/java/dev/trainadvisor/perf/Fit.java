package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.FlopsConvention;
import dev.trainadvisor.spec.Measurements;
import dev.trainadvisor.spec.Metric;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.RunMetrics;
import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.ArrayRealVector;
import org.apache.commons.math3.linear.LUDecomposition;
import org.apache.commons.math3.linear.RealMatrix;
import org.apache.commons.math3.linear.RealVector;
import org.apache.commons.math3.util.Pair;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Fits what the step model cannot know from the datasheet to what a run measured (docs/model.md, "How the advice reasons"), and
 * weighs which of them went wrong: the achieved compute efficiency, the intra-node bus bandwidth, the network
 * bandwidth per node, and the share of an overlap window that hides communication ({@link FitParam}).
 *
 * <p>A slow run can be explained in several ways, and a single maximum a posteriori fit with every quantity free picks
 * whichever costs its prior least, not the one that happened. So the fit weighs hypotheses ({@link FitHypothesis}):
 * every quantity within its ordinary spread (NOMINAL), one of them far off (a fault: its prior widened to what a fault
 * can do), or several at once. Each hypothesis is fitted by Levenberg-Marquardt least squares over whitened residuals,
 * one per measured time (a log ratio) and one per quantity (its Gaussian prior in log or log-odds space), and scored by
 * its evidence, the marginal likelihood of the times under it in the Laplace approximation:
 * {@code ln Z = -cost/2 - ln det(J^T J)/2 - sum ln sigma_j + ln P(H)} (MacKay, "Information Theory, Inference, and
 * Learning Algorithms", 2003, section 28.1: the best-fit likelihood times the Occam factor, posterior over prior
 * width). A hypothesis that frees a quantity the times do not constrain gains nothing and pays its prior, so NOMINAL
 * keeps a run whose times the catalogue already explains. The chosen hypothesis has the highest posterior; those within
 * a Bayes factor of {@link #AMBIGUOUS_BAYES_FACTOR} of it are alternatives the times cannot rule out.
 *
 * <p>Observations. The step time comes from {@code step_time_s}, else from {@code tokens_per_gpu_per_s}, else from
 * {@code tflops_per_gpu} counted with its {@code tflops_convention}, else from {@code mfu} (house count); they are the
 * same quantity, so only the first one present is used. {@code forward_time_s} and {@code backward_time_s} are matched
 * to {@link StepPrediction#forwardSeconds()} and {@link StepPrediction#backwardSeconds()}, {@code fwd_bwd_time_s}
 * (when the two are not both given) to {@link StepPrediction#fwdBwdSeconds()}, and {@code optimizer_time_s} to
 * {@link StepPrediction#afterBackwardSeconds()}: the optimizer update plus the data-parallel collectives that run after
 * backward without overlap (ZeRO's parameter all-gather or broadcast, a gradient reduction that is not overlapped).
 * That is where the frameworks' timers put them: InternEvo's {@code fwd-bwd} timer brackets
 * {@code trainer.execute_schedule} only, and {@code trainer.step()} (HybridZeroOptimizer: the last gradient bucket's
 * reduce, clipping, the update and the parameter broadcast) runs after it (InternLM train.py, 2023-07); Megatron-LM's
 * {@code optimizer} timer covers the distributed optimizer's step with its parameter all-gather when that is not
 * overlapped with the next forward. Megatron finishes a non-overlapped gradient reduction inside
 * {@code forward-backward} ({@code finalize_model_grads}), which this split puts with the optimizer; for such runs give
 * step and forward-backward times and leave {@code optimizer_time_s} out. Forward and backward separate compute from
 * communication: compute splits 1:2 between them, a tensor-parallel collective 1:1, a gradient reduction 0:1.
 */
public final class Fit {
    /**
     * Relative standard deviation of a measured time: twice the step-to-step spread of the timers of one run measured
     * on an H200 (bench/h200_step_overheads.py: forward 1.4%, backward 1.0%, after the backward 0.9% over 8 steady
     * steps), for a median over fewer steps and frameworks that print to 0.01 s. It does not cover the model's own
     * error, which the priors carry (the compute scale's ordinary spread is the model's error on published runs).
     */
    static final double OBSERVATION_SIGMA = 0.02;

    /**
     * Absolute standard deviation of a measured time, in seconds, added in quadrature to the relative one: what a
     * framework's step spends beside the modelled kernels, measured on one H200 ({@link Overheads#STEP_OVERHEAD_S}).
     */
    static final double OBSERVATION_FLOOR_S = Overheads.STEP_OVERHEAD_S;

    /**
     * Absolute standard deviation of a forward, backward or forward-backward time, in seconds: these timers hold no
     * framework time around the optimizer, only the kernels and the launches between them; twice the step-to-step
     * spread measured on one H200 (bench/h200_step_overheads.py: forward 0.73 ms, backward 1.05 ms standard deviation
     * over 8 steady steps).
     */
    static final double PHASE_FLOOR_S = 0.002;

    /**
     * Ordinary spread of the compute scale around 1, ln units: the root mean square of ln(predicted / observed)
     * tokens/GPU/s over the "tune" rows of knowledge-base/reference-runs (151 runs), which is what the compute scale
     * absorbs when the catalogue is right about everything else (ValidationTest checks it against the current rows).
     */
    public static final double COMPUTE_NOMINAL_SIGMA = 0.097;

    /**
     * A compute fault: GPUs held below their clocks by a power or thermal limit, another process on them, a slow kernel
     * path. Such faults cost 5-30% (NVIDIA documents the clocks_event_reasons nvidia-smi reports for them); 0.2 puts
     * 0.8x at 1.1 sigma and 0.7x at 1.8, and a halving, a different problem, at 3.5.
     */
    static final double COMPUTE_FAULT_SIGMA = 0.2;

    /**
     * A gross compute fault, beyond what throttling does: math in another precision than the run file says (fp32 on
     * tensor cores runs at 1/16 of bf16 on an H100 without TF32, H100 datasheet), a debug or unfused build, a step
     * starved of data or bound by the host that only the kernels' time can absorb when the run measured nothing else.
     * As wide as a link fault ({@link #LINK_FAULT_SIGMA}): 0.29x is 0.8 sigma down, 0.05x two.
     */
    static final double COMPUTE_GROSS_SIGMA = 1.5;

    /**
     * The share of compute faults that are gross ({@link #COMPUTE_GROSS_SIGMA}) rather than throttling
     * ({@link #COMPUTE_FAULT_SIGMA}): the fault prior is the contaminated mixture {@code (1 - eps) N(0, 0.2) + eps
     * N(0, 1.5)} (Berger, "Statistical Decision Theory and Bayesian Analysis", 1985, section 4.7: epsilon-contamination,
     * eps 0.1-0.2, for a prior whose tails are a judgement nobody checked). A judgement, not a measurement: without it a
     * run described only by its throughput and 3.5x slow was a link fault with certainty, because the narrow throttling
     * prior put compute at 0.29x at eight sigma, though one number cannot tell the two apart.
     */
    static final double GROSS_SHARE = 0.2;

    /**
     * Ordinary spread of a link's bandwidth around its catalogue value, ln units: measured 8-GPU all-reduce bus
     * bandwidths of one link kind spread by about a quarter (NVLink3: 200-232 GB/s, knowledge-base/links.json; PCIe4
     * 18-26 GB/s with P2P).
     */
    static final double LINK_NOMINAL_SIGMA = 0.25;

    /**
     * A link fault: a link can deliver 5% of its rating (P2P disabled so traffic goes through host memory or
     * sockets, a PCIe switch with ACS on, a degraded NVLink, InfiniBand without RDMA). 1.5 puts 5% (ln 0.05 = -3.0) at
     * two sigma.
     */
    static final double LINK_FAULT_SIGMA = 1.5;

    /**
     * The gross component of a link's contaminated fault prior ({@link #GROSS_SHARE}): NCCL over sockets delivers
     * about 1% of NVLink's rating (3.5 of 370 GB/s measured on an H200 pair, knowledge-base/transports.json "socket"), three link fault sigmas
     * down; at 3.0 it is 1.5 sigma, as gross as a gross compute fault at 0.1x.
     */
    static final double LINK_GROSS_SIGMA = 3.0;

    /**
     * Prior on ln(bandwidth) when the run file gives a measured bus bandwidth: nccl-tests repeats within a few
     * percent, but a training step's collectives use other sizes and share the GPU with compute, so 10%; a measured
     * link has no fault hypothesis, since the measurement already says what it delivers.
     */
    static final double MEASURED_LINK_SIGMA = 0.1;

    /**
     * Ordinary spread of the overlap fraction, log-odds around Efficiency.OVERLAP_FRACTION (0.8): 0.75 spans
     * 0.65-0.89 at one sigma, the 60-90% its source gives.
     */
    static final double OVERLAP_NOMINAL_SIGMA = 0.75;

    /** An overlap fault: anything from nothing hidden to all of it; 2.5 in log-odds spans 0.2-0.98 at one sigma. */
    static final double OVERLAP_FAULT_SIGMA = 2.5;

    /**
     * Prior probabilities of the hypotheses (a judgement, not a measurement): a run is as likely healthy as not
     * before its times are seen, the single faults share 0.45 equally, and several at once get 0.05.
     */
    static final double NOMINAL_PRIOR = 0.5, FAULTS_PRIOR = 0.45, SEVERAL_PRIOR = 0.05;

    /**
     * Hypotheses within this Bayes factor of the chosen one are alternatives the times cannot rule out: below 3 the
     * evidence is "not worth more than a bare mention" (Kass and Raftery, "Bayes Factors", JASA 1995, section 3.2).
     */
    public static final double AMBIGUOUS_BAYES_FACTOR = 3;

    /**
     * Hypotheses whose best fits miss the times by as little as the chosen one's (their observations' costs within 2,
     * a likelihood ratio within e) are alternatives too, whatever the priors say: the times do not separate them, only
     * the priors do, and a reader should be told what would decide.
     */
    public static final double EQUALLY_GOOD_FIT = 2;

    /**
     * Whether the times cannot tell hypothesis b from hypothesis a (posterior and observations' cost of each): b is
     * within {@link #AMBIGUOUS_BAYES_FACTOR} of a, or fits the times as well ({@link #EQUALLY_GOOD_FIT}).
     */
    public static boolean indistinguishable(double posteriorA, double dataCostA, double posteriorB, double dataCostB) {
        return posteriorB * AMBIGUOUS_BAYES_FACTOR >= posteriorA || dataCostB <= dataCostA + EQUALLY_GOOD_FIT;
    }

    /**
     * A parameter counts as constrained by the data when its posterior sigma is below half its prior sigma,
     * that is when the measurements carry at least three times the prior's information about it.
     */
    public static final double CONSTRAINED_RATIO = 0.5;

    /** Forward-difference step in the fit's coordinates (log space): a 1e-6 relative change. */
    static final double FD_STEP = 1e-6;

    /**
     * Evaluations of the residual function per hypothesis (each is 1 + parameters step-model predictions): the
     * example runs take 4-8, times the model cannot match 15-45. On exhaustion the best point seen is kept.
     */
    static final int MAX_EVALUATIONS = 80;

    /** Relative tolerances of Levenberg-Marquardt on cost and parameters: far below anything a rule reads. */
    static final double TOLERANCE = 1e-6;

    /**
     * A start whose run accepts a point within this of an optimum an earlier start of the same hypothesis converged to
     * (in every coordinate: log or log-odds, a 0.3% change), at no lower a cost, stops there: most of a hypothesis's
     * starts end at the same optimum (their ends differ in the seventh digit), and a run's last steps inside it only
     * refine what is known. Measured on bench/fleet.py's fleet (53rd stop, a probe build following every run past the
     * point it would stop): of the 108,018 Levenberg-Marquardt runs that came within 3e-3 of an earlier optimum no
     * costlier, none went on to end lower by more than 0.01 of the cost (within 1e-2, two did, by 0.017 at most); the
     * predictions after that point were 12% of the runs' predictions at 1e-3, 23% at 1e-2. At 3e-3: B/A CPU 0.980
     * over three pairs (1e-2: 0.968), and `batch --format csv` prints another last digit in 61 runs, by at most 0.11%
     * (at 1e-2 one share by 2.8%, a run with two optima that close). FitStartsTest holds the fit to running every
     * start to its end.
     */
    static final double AT_OPTIMUM = 3e-3;

    private static final double COVARIANCE_THRESHOLD = 1e-14;

    private Fit() {}

    /** Fits with the default efficiencies of the cluster's GPU as priors. */
    public static FitResult fit(Cluster cluster, RunMetrics run) {
        return fit(Scenario.catalogue(cluster, run));
    }

    /** Fits with {@code prior}'s values as the expected ones. */
    public static FitResult fit(Scenario prior) {
        return fit(prior, true);
    }

    /**
     * As {@link #fit(Scenario)}; {@code stopAtOptima}: a start that reaches an optimum an earlier start of the same
     * hypothesis converged to stops there ({@link #AT_OPTIMUM}), else every start runs to its end (tests compare the two).
     */
    static FitResult fit(Scenario prior, boolean stopAtOptima) {
        List<Param> params = params(prior);
        List<Obs> obs = observations(prior);
        StepPrediction expected = prior.predict();
        List<FitHypothesis> hypotheses = hypotheses(params);
        int faults = (int) hypotheses.stream().filter(h -> h.param() != null).count();
        List<HypothesisFit> fits = new ArrayList<>();
        // SEVERAL starts at the prior and where the single faults that fit the times best ended (severalStarts): a
        // combination of faults is searched from the single faults that explain part of the gap, not along every axis
        List<double[]> optima = new ArrayList<>();
        Points points = new Points(obs.isEmpty() ? null : FitTimes.of(prior));
        for (FitHypothesis h : hypotheses) {
            double p = switch (h) {
                case NOMINAL -> NOMINAL_PRIOR;
                case SEVERAL -> SEVERAL_PRIOR;
                default -> FAULTS_PRIOR / faults;
            };
            double[] x = new double[params.size()];
            Param q = h.param() == null ? null : params.get(indexOf(params, h.param()));
            boolean contaminated = q != null && !Double.isNaN(q.grossSigma) && !obs.isEmpty();
            HypothesisFit f = fitOne(prior, params, obs, points, stopAtOptima, h,
                    contaminated ? p * (1 - GROSS_SHARE) : p,
                    h == FitHypothesis.SEVERAL ? withPrior(means(params), severalStarts(fits, optima)) : null, x, false);
            if (contaminated) {
                // a contaminated fault prior: the evidence is the mixture's, the fit the likelier component's. The wide
                // component of a quantity started beyond the prior (a link) starts where the narrow one ended and far
                // down, where the wide prior allows an optimum the narrow one's starts do not reach (wideStarts)
                double[] xg = new double[params.size()];
                HypothesisFit narrow = f;
                HypothesisFit wide = fitOne(prior, params, obs, points, stopAtOptima, h, p * GROSS_SHARE,
                        wideStarts(params, q, x), xg, true);
                double hi = Math.max(narrow.logEvidence(), wide.logEvidence());
                double logZ = hi + Math.log(Math.exp(narrow.logEvidence() - hi) + Math.exp(wide.logEvidence() - hi));
                HypothesisFit best = wide.logEvidence() > narrow.logEvidence() ? wide : narrow;
                if (best == wide) System.arraycopy(xg, 0, x, 0, x.length);
                f = new HypothesisFit(h, p, logZ, Double.NaN, best.cost(), best.dataCost(), best.scenario(),
                        best.parameters(), best.converged());
            }
            fits.add(f);
            optima.add(x);
        }
        // posterior probabilities from the evidences
        double max = fits.stream().mapToDouble(HypothesisFit::logEvidence).max().orElse(0);
        double sum = 0;
        for (HypothesisFit f : fits) sum += Math.exp(f.logEvidence() - max);
        List<HypothesisFit> weighed = new ArrayList<>();
        for (HypothesisFit f : fits)
            weighed.add(new HypothesisFit(f.hypothesis(), f.prior(), f.logEvidence(), Math.exp(f.logEvidence() - max) / sum,
                    f.cost(), f.dataCost(), f.scenario(), f.parameters(), f.converged()));
        weighed.sort(Comparator.comparingDouble(HypothesisFit::posterior).reversed()
                .thenComparing(f -> f.hypothesis().ordinal()));
        // a run slower than the catalogue by more than the model's error is not nominal, whatever the priors say: the
        // likeliest explanation that moves a quantity beyond its ordinary spread is chosen (one that leaves its freed
        // quantity where the catalogue has it is the healthy explanation under another name); without one, NOMINAL stays
        boolean ruledOut = false;
        if (slowerThanModel(obs, expected) && weighed.get(0).hypothesis() == FitHypothesis.NOMINAL) {
            for (HypothesisFit f : weighed) {
                if (f.hypothesis() != FitHypothesis.NOMINAL && f.departs()) {
                    weighed.remove(f);
                    weighed.add(0, f);
                    ruledOut = true;
                    break;
                }
            }
        }
        if (ruledOut) {
            // the healthy explanation is ruled out: the others' probabilities are conditioned on it being false, so
            // that a probability printed for a fault is the share it has of what can explain the run
            double nominal = 0;
            for (HypothesisFit f : weighed) if (f.hypothesis() == FitHypothesis.NOMINAL) nominal = f.posterior();
            List<HypothesisFit> conditioned = new ArrayList<>();
            for (HypothesisFit f : weighed)
                conditioned.add(new HypothesisFit(f.hypothesis(), f.prior(), f.logEvidence(),
                        f.hypothesis() == FitHypothesis.NOMINAL ? 0 : f.posterior() / Math.max(1 - nominal, Double.MIN_NORMAL), f.cost(), f.dataCost(),
                        f.scenario(), f.parameters(), f.converged()));
            weighed = conditioned;
        }
        HypothesisFit chosen = weighed.get(0);
        StepPrediction fitted = chosen.scenario().predict();
        List<FitObservation> observed = new ArrayList<>();
        StepModel.Times expectedTimes = expected.times(), fittedTimes = fitted.times();
        for (Obs o : obs) observed.add(new FitObservation(o.metric, o.source, o.measured, o.of(expectedTimes),
                o.of(fittedTimes), o.sigma));
        return new FitResult(chosen.scenario(), fitted, expected, List.copyOf(weighed), List.copyOf(observed), ruledOut);
    }

    /**
     * The model's error on published runs: the "tune" rows' mean absolute error is 7.1% and their root mean square
     * 9.7% (ln units, {@link #COMPUTE_NOMINAL_SIGMA}); a run 10% or more off its prediction is off beyond it.
     */
    public static final double MODEL_ERROR = 0.10;

    /** Whether the measured step is longer than the expected one by more than the model's error (throughput). */
    private static boolean slowerThanModel(List<Obs> obs, StepPrediction expected) {
        for (Obs o : obs)
            if (o.metric == Metric.STEP_TIME_S) return expected.stepTimeS() / o.measured < 1 - MODEL_ERROR;
        return false;
    }

    /** Bisection steps of {@link #needed}: 2^-30 of a range of ln(1e4), a relative precision of 1e-8. */
    static final int NEEDED_STEPS = 30;

    /**
     * The value {@code p} would need, alone and everything else as in {@code at}, for the predicted step to take
     * {@code stepS}: the value each explanation of a slowdown needs, when the times cannot say which it is. Searched
     * between the value in {@code at} and 1e-4 of it (the overlap: down to none hidden); NaN when the step is not
     * slower than {@code at} predicts or {@code p} cannot make it so slow.
     */
    public static double needed(Scenario at, FitParam p, double stepS) {
        double v0 = at.value(p);
        if (!(v0 > 0) || !(stepS > at.predict().stepTimeS())) return Double.NaN;
        boolean overlap = p == FitParam.OVERLAP_FRACTION;
        double lo = overlap ? 0 : Math.log(v0 * 1e-4), hi = overlap ? v0 : Math.log(v0);
        // each point of the bisection is asked for once (StepModel#times)
        java.util.function.DoubleUnaryOperator step = x -> at.with(p, overlap ? x : Math.exp(x)).times().stepTimeS();
        if (step.applyAsDouble(lo) < stepS) return Double.NaN;
        for (int i = 0; i < NEEDED_STEPS; i++) {
            double mid = (lo + hi) / 2;
            if (step.applyAsDouble(mid) >= stepS) lo = mid;
            else hi = mid;
        }
        double x = (lo + hi) / 2;
        return overlap ? x : Math.exp(x);
    }

    /** NOMINAL, one fault per quantity the run has (a measured link has none), and SEVERAL when two or more can. */
    private static List<FitHypothesis> hypotheses(List<Param> params) {
        List<FitHypothesis> out = new ArrayList<>();
        out.add(FitHypothesis.NOMINAL);
        for (Param p : params) if (p.faultSigma > p.nominalSigma) out.add(FitHypothesis.of(p.param));
        if (out.size() > 2) out.add(FitHypothesis.SEVERAL);
        return out;
    }

    /** The change from {@code expected} to {@code fitted} in the fit's coordinate for {@code p}. */
    static double coordinateShift(FitParam p, double expected, double fitted) {
        return p == FitParam.OVERLAP_FRACTION ? logit(fitted) - logit(expected) : Math.log(fitted / expected);
    }

    // ---------------------------------------------------------------- one hypothesis

    /**
     * Fits one hypothesis from {@code starts} (null: the prior and the freed quantities' fault sigmas towards a slower
     * step, {@link #starts}); its optimum's coordinates are written into {@code optimum}. {@code gross}: the freed
     * quantity's prior is the wide component of its contaminated fault prior.
     */
    private static HypothesisFit fitOne(Scenario prior, List<Param> params, List<Obs> obs, Points points,
                                        boolean stopAtOptima, FitHypothesis h, double p, List<double[]> starts,
                                        double[] optimum, boolean gross) {
        int n = params.size();
        double[] mean = new double[n], sigma = new double[n];
        for (int j = 0; j < n; j++) {
            Param q = params.get(j);
            mean[j] = q.mean;
            sigma[j] = !h.frees(q.param) ? q.nominalSigma : gross && !Double.isNaN(q.grossSigma) ? q.grossSigma : q.faultSigma;
        }
        Evaluator ev = new Evaluator(prior, params, obs, sigma, points);
        double[] x = mean.clone();
        boolean converged = true;
        if (!obs.isEmpty()) {
            // A collective hidden behind compute does not move the times until its bandwidth drops far enough to
            // stick out: at the prior the derivative is zero and Levenberg-Marquardt would not leave it. So a freed
            // quantity is also started fault sigmas towards the slow side (START_SIGMAS), and the best fit is kept.
            double bestCost = Double.POSITIVE_INFINITY;
            for (double[] start : starts != null ? starts : starts(params, mean, h)) {
                ev.resetBest();
                double[] xs;
                try {
                    xs = LevenbergMarquardt.minimize(ev, start, MAX_EVALUATIONS, MAX_EVALUATIONS, TOLERANCE, TOLERANCE);
                } catch (Evaluator.AtAnOptimum known) {
                    continue;   // this start has reached an optimum an earlier one converged to, no lower than it
                }
                boolean ok = xs != null;
                // too many evaluations, or no further decrease within the tolerances: keep the best point seen
                if (!ok) xs = ev.best.clone();
                double c = ev.cost(xs);
                if (ok && stopAtOptima) ev.converged(xs, c);
                if (c < bestCost) {
                    bestCost = c;
                    x = xs;
                    converged = ok;
                }
            }
            ev.forgetOptima();   // the optimum's own Jacobian, asked for below, must not stop anything
        }
        System.arraycopy(x, 0, optimum, 0, n);
        Pair<RealVector, RealMatrix> at = ev.at(x);
        double cost = at.getFirst().dotProduct(at.getFirst());
        RealMatrix jtj = at.getSecond().transpose().multiply(at.getSecond());
        double det = new LUDecomposition(jtj, COVARIANCE_THRESHOLD).getDeterminant();
        double[][] cov = new org.apache.commons.math3.linear.QRDecomposition(jtj, COVARIANCE_THRESHOLD)
                .getSolver().getInverse().getData();
        double logZ = -0.5 * cost - 0.5 * Math.log(Math.max(det, Double.MIN_NORMAL)) + Math.log(p);
        for (double s : sigma) logZ -= Math.log(s);
        int freed = h.param() == null ? -1 : indexOf(params, h.param());
        if (freed >= 0 && !obs.isEmpty()) logZ = semiLaplace(ev, x, cost, jtj, cov, freed, sigma, p);

        List<FitParameter> out = new ArrayList<>();
        for (int j = 0; j < n; j++) {
            Param q = params.get(j);
            double post = Math.sqrt(Math.max(0, cov[j][j]));
            out.add(new FitParameter(q.param, q.value, q.natural(x[j]), q.natural(x[j] - post), q.natural(x[j] + post),
                    sigma[j], q.nominalSigma, post, post < CONSTRAINED_RATIO * sigma[j], q.source));
        }
        double dataCost = 0;
        for (int i = 0; i < obs.size(); i++) dataCost += at.getFirst().getEntry(i) * at.getFirst().getEntry(i);
        return new HypothesisFit(h, p, logZ, Double.NaN, cost, dataCost, ev.scenario(x), List.copyOf(out), converged);
    }

    private static int indexOf(List<Param> params, FitParam p) {
        for (int j = 0; j < params.size(); j++) if (params.get(j).param == p) return j;
        return -1;
    }

    /**
     * The evidence of a hypothesis that frees one quantity, integrated numerically along that quantity and in the
     * Laplace approximation across the others. The Laplace approximation alone takes the posterior to be normal; a
     * collective hidden behind compute, or an overlap near nothing, makes it one-sided (any bandwidth above a bound
     * fits, any overlap below one), and the normal then counts prior mass the times exclude. The line follows the
     * posterior's regression of the other quantities on the freed one, {@code x(t) = x* + (t - t*) cov[:,j] / cov[j][j]},
     * so that for a quadratic cost it reproduces the Laplace value exactly:
     * {@code ln Z = ln integral exp(-cost(x(t))/2) dt - ln(2 pi)/2 - ln det(A without j)/2 - sum ln sigma + ln P(H)}.
     * The integral spans twelve posterior sigmas (or twelve of the prior's, where that is narrower) on 41 points
     * placed where the line bends ({@link LineIntegral}). Until the 52nd stop they were evenly spaced, 0.3 sigma apart:
     * where a link's collective starts to hide the integrand has a kink they straddled, and on bench/fleet.py's 10,000
     * runs the CSV differed from 641 evenly spaced points' in 142 rows, 14 cells by more than 1% (two top severities, a
     * top impact by 87%); the same 41 points placed where the line bends differ in 41 rows, by at most 0.09% a cell.
     */
    private static double semiLaplace(Evaluator ev, double[] x, double cost, RealMatrix jtj, double[][] cov, int j,
                                      double[] sigma, double prior) {
        int n = x.length;
        double vj = cov[j][j];
        if (!(vj > 0) || !Double.isFinite(vj)) return Double.NEGATIVE_INFINITY;
        double half = Math.min(6 * Math.sqrt(vj), 6 * sigma[j]);
        half = Math.max(half, 0.05);
        double logI = LineIntegral.logIntegral(t -> {
            double[] xt = x.clone();
            for (int k = 0; k < n; k++) xt[k] = x[k] + (t - x[j]) * cov[k][j] / vj;
            xt[j] = t;
            return -0.5 * ev.costOnly(xt);
        }, x[j] - half, x[j] + half);
        double logDetRest = 0;
        if (n > 1) {
            int[] rest = new int[n - 1];
            for (int k = 0, m = 0; k < n; k++) if (k != j) rest[m++] = k;
            RealMatrix sub = jtj.getSubMatrix(rest, rest);
            logDetRest = Math.log(Math.max(new LUDecomposition(sub, COVARIANCE_THRESHOLD).getDeterminant(), Double.MIN_NORMAL));
        }
        double logZ = logI - 0.5 * Math.log(2 * Math.PI) - 0.5 * logDetRest + Math.log(prior);
        for (double s : sigma) logZ -= Math.log(s);
        return logZ;
    }

    /**
     * How many of its own (wide) sigmas down the wide component of a link's contaminated fault prior is started, beside
     * the narrow component's optimum ({@link #wideStarts}).
     */
    private static final double WIDE_START_SIGMAS = 2;

    /**
     * The starts of the wide component of a contaminated prior: for a link, the narrow component's optimum and
     * {@link #WIDE_START_SIGMAS} wide sigmas down (6 in ln units: 0.25% of the rating); null for the compute, whose
     * components both start at the prior alone. Until the 53rd stop a link's wide component started at the prior and
     * the narrow optimum (the 48th stop had measured that pair against the narrow component's own starts, not against
     * the lowest optimum): on bench/fleet.py's fleet that pair missed the lowest optimum of 18 starts (those two and
     * every quarter of a wide sigma to four down) by more than 0.01 of the cost in 671 of the 14,663 wide link fits, by
     * 654 in all (in 205 fits and by 201 on its first 3,000 runs; 466 and 453 on the other 7,000), where a wide
     * component's optimum far down, which the wide prior allows, went unseen. Chosen on the first 3,000 runs among
     * every pair and triple of those starts: a start far down is what is needed (with the narrow optimum, any from 1.5
     * to 4 wide sigmas misses in 5 to 9 fits by 0.12 to 0.33 in all; two, 6 by 0.14, and held out on the other 7,000,
     * 10 by 0.43; with the prior instead of the narrow optimum 7 and 15). Two starts as before: the same cost (B/A CPU
     * 1.007 over three pairs); `batch --format csv` prints other numbers in 5 runs, by at most 2.8% a cell, as the
     * line integral around the old optimum had mostly reached the lower one. FitStartsTest.
     */
    private static List<double[]> wideStarts(List<Param> params, Param q, double[] narrowOptimum) {
        if (!startsBeyondPrior(q)) return null;
        double[] far = means(params);
        int j = params.indexOf(q);
        far[j] -= WIDE_START_SIGMAS * q.grossSigma;
        return List.of(narrowOptimum.clone(), far);
    }

    /** Every quantity at its prior mean, in the fit's coordinates. */
    private static double[] means(List<Param> params) {
        double[] mean = new double[params.size()];
        for (int j = 0; j < mean.length; j++) mean[j] = params.get(j).mean;
        return mean;
    }

    /** Whether a freed quantity is started beyond the prior ({@link #starts}): a link's bandwidth or the overlap. */
    private static boolean startsBeyondPrior(Param q) {
        return q.faultSigma > q.nominalSigma && q.param != FitParam.COMPUTE_SCALE;
    }

    /**
     * How many single faults' optima the several-faults hypothesis starts from, beside the prior: those of the single
     * faults that fit the times best (the lowest cost of their observations), in the hypotheses' order.
     */
    private static final int SEVERAL_STARTS = 2;

    /**
     * The optima of the {@link #SEVERAL_STARTS} single faults whose fits match the times best ({@code fits} and
     * {@code optima} in the hypotheses' order, the healthy one first). A combination of faults is searched from the
     * faults that explain most of the gap. Until the 53rd stop it started from every single hypothesis's optimum (5.5
     * starts a fit on bench/fleet.py's fleet); the two best of them reach the lowest end of those starts in every one of
     * the fleet's 9,906 fits (to 0.01 of the cost; the best one alone misses in 38 by 63 in all, the prior alone in 152),
     * on its first 3,000 runs and its other 7,000 alike; and the earlier probe of the stop, every quarter sigma to four
     * down along each link and the overlap, found a lower optimum of several faults in 2 fits. Three starts rather than
     * 5.5: B/A CPU 0.982 over four pairs; `batch --format csv` prints another last digit in 6 runs (by at most 0.08%), the
     * starts left out having reached the same optimum to within Levenberg-Marquardt's tolerance. FitStartsTest.
     */
    private static List<double[]> severalStarts(List<HypothesisFit> fits, List<double[]> optima) {
        List<Integer> faults = new ArrayList<>();
        for (int i = 0; i < fits.size(); i++) if (fits.get(i).hypothesis() != FitHypothesis.NOMINAL) faults.add(i);
        faults.sort(Comparator.comparingDouble((Integer i) -> fits.get(i).dataCost()).thenComparingInt(i -> i));
        List<Integer> chosen = new ArrayList<>(faults.subList(0, Math.min(SEVERAL_STARTS, faults.size())));
        java.util.Collections.sort(chosen);
        List<double[]> out = new ArrayList<>();
        for (int i : chosen) out.add(optima.get(i));
        return out;
    }

    /** The prior, then {@code starts} other than the prior. */
    private static List<double[]> withPrior(double[] mean, List<double[]> starts) {
        List<double[]> out = new ArrayList<>();
        out.add(mean.clone());
        for (double[] s : starts) if (!java.util.Arrays.equals(s, mean)) out.add(s.clone());
        return out;
    }

    /**
     * How many fault sigmas towards a slower step a freed link or overlap is started beyond the prior ({@link #starts}):
     * a link at 5% of its rating is three link fault sigmas down, and from nearer the prior the fit would slow compute
     * instead, a local minimum; nearer ones find the optima between. Chosen by how often the best of the starts misses
     * the lowest optimum of 25 (the prior and every quarter sigma to six down), on bench/fleet.py's fleet (53rd stop): on
     * its first 3,000 runs (7,415 narrow link and overlap fits) the starts 1, 2 and 3 missed it (by more than 1e-6 of the
     * cost) in 107 fits, 23 of them by more than 0.01, in all by 4.5; 0.75, 1.75 and 3, the best three with 3 among
     * them, 73, 1 and 0.06. On the other 7,000 runs, not used to choose (17,154 fits): 1, 2 and 3 missed in 280, 46 by
     * more than 0.01, 6.6 in all; 0.75, 1.75 and 3 in 205, 7 and 1.9 (two starts, 0.75 and 3, missed by 94 in all
     * there). Over the whole fleet (24,569 fits) the new starts end lower than the old by more than 0.01 in 64 fits and
     * higher in 3; `batch --format csv` differs from the 25 starts' in 18 runs where the old starts' differed in 31
     * (by at most 1.1% a cell; the new starts' largest, 0.4 points of a 1.5% share lost, in a run the old starts had
     * right); the same number of starts, the same CPU (`bench/ab.sh` B/A 1.003 over three pairs). FitStartsTest.
     */
    private static final double[] START_SIGMAS = {0.75, 1.75, 3};

    /**
     * Starting points: the prior, and for each link or overlap the hypothesis frees, its coordinate
     * {@link #START_SIGMAS} fault sigmas towards a slower step (lower bandwidth, less overlap).
     */
    private static List<double[]> starts(List<Param> params, double[] mean, FitHypothesis h) {
        List<double[]> out = new ArrayList<>();
        out.add(mean.clone());
        for (int j = 0; j < params.size(); j++) {
            Param q = params.get(j);
            // compute moves every time at every value: from the prior the fit finds its way; only a quantity that can
            // hide (a link's bandwidth, the overlap) has flat stretches to start beyond
            if (!h.frees(q.param) || !startsBeyondPrior(q)) continue;
            for (double k : START_SIGMAS) {
                double[] s = mean.clone();
                s[j] = mean[j] - k * q.faultSigma;
                out.add(s);
            }
        }
        if (h == FitHypothesis.NOMINAL) {
            int j = indexOf(params, FitParam.OVERLAP_FRACTION);
            double[] s = mean.clone();
            s[j] = mean[j] - NOMINAL_OVERLAP_START_SIGMAS * params.get(j).nominalSigma;
            out.add(s);
        }
        return out;
    }

    /**
     * How many of its ordinary sigmas down the healthy hypothesis also starts the overlap (to 0.38 of the step's
     * collectives hidden from the catalogue's 0.8). Within its ordinary spread the overlap can still hide all of a
     * step's collectives at the prior, where Levenberg-Marquardt sees no slope along it, and a run slower than the
     * catalogue is then fitted by the compute alone: on bench/fleet.py's fleet (53rd stop, a probe build starting the
     * healthy fit also every quarter sigma to four down along each link and the overlap) the prior alone missed a lower
     * optimum by more than 0.01 of the cost in 123 of 9,906 fits, by 422 in all (by 26 at most), underrating the healthy
     * explanation's evidence; every one of them is found by lowering the overlap. One start: on the first 3,000 runs,
     * from 2 to 3 sigmas down, 2 misses by 0.69-0.77 (at 1.75, 8 by 17.5; at 3.25, 1 by 0.33 but 8 by 1.6 on the
     * others); held out on the other 7,000, 2.25 to 2.75 miss once, by 0.06 (2, twice by 1.19; 3, once by 0.4). One
     * more Levenberg-Marquardt run a run (B/A CPU 1.005 over four pairs); `batch --format csv` prints other numbers in
     * 102 runs (26 by more than 1% a cell or another word: 5 best remedies; no top cause or severity). The hypotheses
     * that free a quantity miss by lowering the overlap rarely (the compute's narrow fit 9 of 9,906 by 4.3 in all, the
     * links' 1 and 3), and are not started so.
     */
    private static final double NOMINAL_OVERLAP_START_SIGMAS = 2.5;

    // ---------------------------------------------------------------- parameters and observations

    /** One fitted quantity: its prior value, and its coordinate (log or log-odds) with mean and sigmas. */
    private static final class Param {
        final FitParam param;
        final String source;
        final double value, mean, nominalSigma, faultSigma, grossSigma;

        Param(FitParam param, double value, double nominalSigma, double faultSigma, String source) {
            this(param, value, nominalSigma, faultSigma, Double.NaN, source);
        }

        /** {@code grossSigma}: the wide component of a contaminated fault prior ({@link #GROSS_SHARE}), NaN for none. */
        Param(FitParam param, double value, double nominalSigma, double faultSigma, double grossSigma, String source) {
            this.param = param;
            this.value = value;
            this.nominalSigma = nominalSigma;
            this.faultSigma = faultSigma;
            this.grossSigma = grossSigma;
            this.source = source;
            this.mean = param == FitParam.OVERLAP_FRACTION ? logit(value) : Math.log(value);
        }

        /** The natural value at coordinate {@code x}; exactly the prior value at the prior mean. */
        double natural(double x) {
            if (x == mean) return value;
            return param == FitParam.OVERLAP_FRACTION ? 1 / (1 + Math.exp(-x)) : Math.exp(x);
        }
    }

    private static List<Param> params(Scenario s) {
        Cluster c = s.cluster();
        Efficiency base = s.base();
        List<Param> out = new ArrayList<>();
        out.add(new Param(FitParam.COMPUTE_SCALE, s.computeScale(), COMPUTE_NOMINAL_SIGMA, COMPUTE_FAULT_SIGMA,
                COMPUTE_GROSS_SIGMA, Sources.of(
                        java.util.Arrays.asList("compute", base.gemmFractionOfPeak(), base.attentionFractionOfPeak()),
                        () -> String.format(java.util.Locale.ROOT,
                                "default efficiency: GEMMs %.3f, attention %.3f of peak",
                                base.gemmFractionOfPeak(), base.attentionFractionOfPeak()))));
        if (s.hasIntraLink()) {
            boolean measured = c.intraNode().busbwMeasured();
            out.add(new Param(FitParam.INTRA_NODE_BUSBW, s.value(FitParam.INTRA_NODE_BUSBW),
                    measured ? MEASURED_LINK_SIGMA : LINK_NOMINAL_SIGMA, measured ? MEASURED_LINK_SIGMA : LINK_FAULT_SIGMA,
                    measured ? Double.NaN : LINK_GROSS_SIGMA,
                    measured ? "measured intra_node.busbw_gbps" : "catalogue " + c.intraNode().key()));
        }
        if (s.hasNetwork()) {
            boolean measured = !Double.isNaN(c.interNode().busbwGbps());
            out.add(new Param(FitParam.INTER_NODE_GBPS, s.value(FitParam.INTER_NODE_GBPS),
                    measured ? MEASURED_LINK_SIGMA : LINK_NOMINAL_SIGMA, measured ? MEASURED_LINK_SIGMA : LINK_FAULT_SIGMA,
                    measured ? Double.NaN : LINK_GROSS_SIGMA, measured ? "measured inter_node.busbw_gbps" : Sources.of(
                            java.util.Arrays.asList(c.interNode().key(), c.interNode().nicsPerNode(),
                                    c.interNode().lineRateGbitS(), c.interNode().efficiency()),
                            () -> String.format(java.util.Locale.ROOT, "catalogue %s: %d x %s Gbit/s x %s",
                                    c.interNode().key(), c.interNode().nicsPerNode(),
                                    num(c.interNode().lineRateGbitS()), num(c.interNode().efficiency())))));
        }
        // log-odds of exactly 0 or 1 is infinite: a prior at the bound starts just inside it
        double overlap = Math.min(0.999, Math.max(0.001, s.overlap()));
        out.add(new Param(FitParam.OVERLAP_FRACTION, overlap, OVERLAP_NOMINAL_SIGMA, OVERLAP_FAULT_SIGMA,
                overlap == Efficiency.OVERLAP_FRACTION ? "Efficiency.OVERLAP_FRACTION" : "given efficiency"));
        return out;
    }

    /**
     * The sources of the fitted quantities' priors, each formatted once for the values it quotes: a fleet's runs share
     * a few GPUs and networks, and String.format at every fit was 1% of a batch's samples. Bounded: past
     * {@link #MAX_SOURCES} values (a fleet of user-given efficiencies) a source is formatted each time. Not a
     * {@link LayoutCache}: a string formatted is no layout's work, and its look-ups, two a fit, would count among the
     * layout caches' hits that LayoutCacheAdviceTest holds to the layouts a fleet repeats.
     */
    private static final class Sources {
        static final int MAX_SOURCES = 4096;
        private static final java.util.concurrent.ConcurrentHashMap<List<Object>, String> FORMATTED =
                new java.util.concurrent.ConcurrentHashMap<>();

        static String of(List<Object> values, java.util.function.Supplier<String> format) {
            String s = FORMATTED.get(values);
            if (s != null) return s;
            s = format.get();
            if (FORMATTED.size() < MAX_SOURCES) FORMATTED.putIfAbsent(values, s);
            return s;
        }
    }

    /** A measured time and the part of the predicted step it is matched to. */
    private record Obs(Metric metric, Metric source, double measured, double sigma) {
        /** The predicted time this observation is matched to, of a prediction's times (StepPrediction#times, StepModel#times). */
        double of(StepModel.Times p) {
            return switch (metric) {
                case FORWARD_TIME_S -> p.forwardSeconds();
                case BACKWARD_TIME_S -> p.backwardSeconds();
                case FWD_BWD_TIME_S -> p.fwdBwdSeconds();
                case OPTIMIZER_TIME_S -> p.afterBackwardSeconds();
                default -> p.stepTimeS();
            };
        }

        static Obs of(Metric metric, Metric source, double seconds) {
            boolean phase = metric == Metric.FORWARD_TIME_S || metric == Metric.BACKWARD_TIME_S || metric == Metric.FWD_BWD_TIME_S;
            double floor = (phase ? PHASE_FLOOR_S : OBSERVATION_FLOOR_S) / seconds;
            return new Obs(metric, source, seconds, Math.sqrt(OBSERVATION_SIGMA * OBSERVATION_SIGMA + floor * floor));
        }
    }

    /** The largest share of the step a measured wait for data may take off it (above: the wait is not taken off). */
    static final double MAX_DATA_WAIT_SHARE = 0.9;

    /** The wait for data a step of the history shows: its batch-generator timer's steady median, else its mean, else 0. */
    static double dataWait(dev.trainadvisor.history.StepHistory h) {
        dev.trainadvisor.history.StepHistory.RankTimer t = h.timer(dev.trainadvisor.history.StepHistory.BATCH_GENERATOR);
        if (t != null) {
            double median = dev.trainadvisor.history.HistoryAnalysis.steadyMedian(h, t.maxS());
            if (median >= 0) return median;
        }
        dev.trainadvisor.history.StepHistory.MeanTimer mean = h.meanTimer(dev.trainadvisor.history.StepHistory.BATCH_GENERATOR);
        return mean != null ? mean.meanS() : 0;
    }

    private static List<Obs> observations(Scenario s) {
        RunMetrics run = s.run();
        Measurements m = run.measured();
        List<Obs> out = new ArrayList<>();
        if (m == null) return out;
        double tokensPerGpuStep = (double) run.training().tokensPerReplica() / run.parallel().modelParallel();
        FlopsConvention conv = FlopsConvention.parse(m.tflopsConvention());
        // a wait for data the log measured (Megatron's batch-generator timer step by step, Lightning's profiler as its
        // mean) is no part of the step the model prices: the model is fitted to the rest, and the wait is the history's
        // data-loader cause. The step observed is the steady steps' median, so the wait taken off is the timer's median
        // over the same steps (the slowest rank's), or the profiler's mean
        double wait = usable(m.stepTimeS()) ? dataWait(m.history()) : 0;
        // a wait of nearly the whole step leaves the model nothing to fit: the timer is then likelier wrong than the step
        if (!(wait < MAX_DATA_WAIT_SHARE * m.stepTimeS())) wait = 0;
        if (usable(m.stepTimeS())) {
            out.add(Obs.of(Metric.STEP_TIME_S, Metric.STEP_TIME_S, m.stepTimeS() - wait));
        } else if (usable(m.tokensPerGpuPerS())) {
            out.add(Obs.of(Metric.STEP_TIME_S, Metric.TOKENS_PER_GPU_PER_S, tokensPerGpuStep / m.tokensPerGpuPerS()));
        } else if (usable(m.tflopsPerGpu()) && conv != null) {
            double tokens = m.tflopsPerGpu() * 1e12 / ConventionFlops.perToken(conv, run.model(), run.training());
            out.add(Obs.of(Metric.STEP_TIME_S, Metric.TFLOPS_PER_GPU, tokensPerGpuStep / tokens));
        } else if (usable(m.mfu())) {
            double tokens = m.mfu() * s.cluster().gpu().peakTflops(Precision.BF16) * 1e12
                    / FlopsPerToken.of(run.model(), run.training()).model();
            if (usable(tokens)) out.add(Obs.of(Metric.STEP_TIME_S, Metric.MFU, tokensPerGpuStep / tokens));
        }
        boolean split = usable(m.forwardTimeS()) && usable(m.backwardTimeS());
        if (usable(m.fwdBwdTimeS()) && !split) out.add(Obs.of(Metric.FWD_BWD_TIME_S, Metric.FWD_BWD_TIME_S, m.fwdBwdTimeS()));
        if (usable(m.forwardTimeS())) out.add(Obs.of(Metric.FORWARD_TIME_S, Metric.FORWARD_TIME_S, m.forwardTimeS()));
        if (usable(m.backwardTimeS())) out.add(Obs.of(Metric.BACKWARD_TIME_S, Metric.BACKWARD_TIME_S, m.backwardTimeS()));
        if (usable(m.optimizerTimeS())) out.add(Obs.of(Metric.OPTIMIZER_TIME_S, Metric.OPTIMIZER_TIME_S, m.optimizerTimeS()));
        return out;
    }

    // ---------------------------------------------------------------- the residual function

    /**
     * Whitened residuals {@code ln(predicted / measured) / sigma} for each observation and
     * {@code (x - mean) / sigma} for each prior, with a forward-difference Jacobian of the observations (the
     * priors' rows are diagonal). Keeps the lowest-cost point it evaluated.
     *
     * <p>Levenberg-Marquardt asks for the residuals at every point it tries and for the Jacobian only at the points it
     * accepts (lazy evaluation, as commons-math's ValueAndJacobianFunction has it): the n predictions of a forward difference are
     * made only there, not at the trial points it rejects (fitOne asks for the optimum's itself). Each is what the same point
     * gave before (the model is a pure function of x), so the fit takes the same path to the same optimum; the last
     * point's residuals are kept, since the lazy evaluation asks for them more than once.
     */
    private static final class Evaluator implements LevenbergMarquardt.Problem {
        final Scenario prior;
        final List<Param> params;
        final List<Obs> obs;
        final double[] sigma, logMeasured;
        final Points points;
        double[] best;
        double bestCost = Double.POSITIVE_INFINITY;

        /** The optima earlier starts of this hypothesis converged to, with their costs: a run that reaches one stops. */
        private final List<double[]> optima = new ArrayList<>();
        private final List<Double> optimaCosts = new ArrayList<>();

        /** A start that has reached an optimum an earlier start converged to, at no lower a cost. */
        static final class AtAnOptimum extends RuntimeException {
            AtAnOptimum() { super(null, null, false, false); }
        }

        private static final AtAnOptimum AT_AN_OPTIMUM = new AtAnOptimum();

        /** An optimum a start converged to, at which later starts stop. */
        void converged(double[] x, double cost) {
            optima.add(x.clone());
            optimaCosts.add(cost);
        }

        /** No optimum stops a run any more (the starts are done). */
        void forgetOptima() {
            optima.clear();
            optimaCosts.clear();
        }

        /** Whether {@code x}, at {@code cost}, lies within {@link #AT_OPTIMUM} of a known optimum no costlier than it. */
        private boolean atKnownOptimum(double[] x, double cost) {
            for (int q = 0; q < optima.size(); q++) {
                if (cost < optimaCosts.get(q)) continue;
                double[] o = optima.get(q);
                boolean near = true;
                for (int k = 0; k < x.length && near; k++) near = Math.abs(x[k] - o[k]) < AT_OPTIMUM;
                if (near) return true;
            }
            return false;
        }

        Evaluator(Scenario prior, List<Param> params, List<Obs> obs, double[] sigma, Points points) {
            this.prior = prior;
            this.params = params;
            this.obs = obs;
            this.sigma = sigma;
            this.points = points;
            logMeasured = obs.stream().mapToDouble(o -> Math.log(o.measured)).toArray();
        }

        void resetBest() {
            best = null;
            bestCost = Double.POSITIVE_INFINITY;
            lastX = null;   // the next point is evaluated afresh, and so counted for the best
        }

        /** The cost at {@code x}: the sum of its squared residuals (no Jacobian). */
        double cost(double[] x) {
            double c = 0;
            for (double v : values(x)) c += v * v;
            return c;
        }

        /** The cost at {@code x} without the Jacobian: one prediction, of a point asked for once (not remembered). */
        double costOnly(double[] x) {
            double[] f0 = logPredictions(x, false);
            double c = 0;
            for (int i = 0; i < f0.length; i++) {
                double r = (f0[i] - logMeasured[i]) / obs.get(i).sigma;
                c += r * r;
            }
            for (int k = 0; k < params.size(); k++) {
                double r = (x[k] - params.get(k).mean) / sigma[k];
                c += r * r;
            }
            return c;
        }

        /** The four quantities' values at the last point asked for, the fitted ones' set at each ({@link #natural}). */
        private double[] naturalValues;

        /**
         * The four quantities' values at {@code x}, by FitParam's ordinal ({@link FitTimes#at(double[])}): the fitted
         * ones' from {@code x}, the others' the scenario's own. One array, filled again at each point (the fit runs on
         * one thread, and FitTimes reads it before it returns).
         */
        private double[] natural(double[] x) {
            if (naturalValues == null) naturalValues = points.model.values();
            double[] v = naturalValues;
            for (int j = 0; j < params.size(); j++) {
                Param q = params.get(j);
                v[q.param.ordinal()] = q.natural(x[j]);
            }
            return v;
        }

        Scenario scenario(double[] x) {
            Scenario s = prior;
            for (int j = 0; j < params.size(); j++) {
                Param q = params.get(j);
                if (x[j] != q.mean) s = s.with(q.param, q.natural(x[j]));
            }
            return s;
        }

        /**
         * The log predictions of the observed quantities at {@code x}; {@code remember}: as the advice's other
         * predictions, in the prediction memo, else as a point asked for once (a forward difference away from the
         * prior, a point of the evidence's quadrature): its times as the fit's layout worked out once gives them
         * ({@link Points#model}, FitTimes: the same times to rounding), else its times alone (StepModel#times).
         */
        double[] logPredictions(double[] x, boolean remember) {
            // the times worked out once, for every observation
            StepModel.Times p = remember ? scenario(x).predict().times()
                    : points.model != null ? points.model.at(natural(x)) : scenario(x).times();
            double[] out = new double[obs.size()];
            for (int i = 0; i < out.length; i++) out[i] = Math.log(obs.get(i).of(p));
            return out;
        }

        /** The point last evaluated, its log predictions and its residuals. */
        private double[] lastX, lastF0, lastR;

        /** The log predictions at {@code x}, from the last evaluation when it was of {@code x}. */
        private double[] f0(double[] x) {
            if (lastX != null && java.util.Arrays.equals(x, lastX)) return lastF0;
            // the prior's predictions are read again (the facts, the pricing): remembered whole; elsewhere a point's
            // times alone, kept for the rest of the fit by the point (another hypothesis starts or steps there again)
            double[] f0 = atPrior(x) ? logPredictions(x, true) : points.values(x);
            if (f0 == null) {
                f0 = logPredictions(x, false);
                points.putValues(x, f0);
            }
            int m = obs.size(), n = params.size();
            double[] r = new double[m + n];
            for (int i = 0; i < m; i++) r[i] = (f0[i] - logMeasured[i]) / obs.get(i).sigma;
            for (int j = 0; j < n; j++) r[m + j] = (x[j] - params.get(j).mean) / sigma[j];
            double cost = 0;
            for (double v : r) cost += v * v;
            if (cost < bestCost || best == null) {
                bestCost = cost;
                best = x.clone();
            }
            lastX = x.clone();
            lastF0 = f0;
            lastR = r;
            return f0;
        }

        /** Whether {@code x} is the prior's point, every coordinate at its mean. */
        private boolean atPrior(double[] x) {
            for (int j = 0; j < x.length; j++) if (x[j] != params.get(j).mean) return false;
            return true;
        }

        /** The residuals at {@code x} (the caller does not change them). */
        @Override
        public double[] values(double[] x) {
            f0(x);
            return lastR;
        }

        /** The residuals and the Jacobian at {@code x}, as the covariance's decompositions take them. */
        Pair<RealVector, RealMatrix> at(double[] x) {
            RealVector r = new ArrayRealVector(values(x));
            return new Pair<>(r, new Array2DRowRealMatrix(jacobian(x), false));
        }

        @Override
        public double[][] jacobian(double[] x) {
            int m = obs.size(), n = params.size();
            double[] f0 = f0(x);
            // Levenberg-Marquardt asks for the Jacobian at the points it accepts: one at a known optimum ends the run
            if (!optima.isEmpty()) {
                double c = 0;
                for (double v : lastR) c += v * v;
                if (atKnownOptimum(x, c)) throw AT_AN_OPTIMUM;
            }
            // the forward differences around the prior are every hypothesis' first (each starts there): remembered;
            // elsewhere each point is asked for once
            boolean prior = atPrior(x);
            double[][] stepped = points.stepped(x);
            if (stepped == null) {
                stepped = new double[n][];
                for (int j = 0; j < n; j++) {
                    double[] xh = x.clone();
                    xh[j] += FD_STEP;
                    stepped[j] = logPredictions(xh, prior);
                }
                points.putStepped(x, stepped);
            }
            double[][] jac = new double[m + n][n];
            for (int j = 0; j < n; j++) {
                double h = (x[j] + FD_STEP) - x[j];   // the step actually taken after rounding
                double[] fj = stepped[j];
                for (int i = 0; i < m; i++) jac[i][j] = (fj[i] - f0[i]) / h / obs.get(i).sigma;
                jac[m + j][j] = 1 / sigma[j];
            }
            return jac;
        }
    }

    /**
     * What the model gave at a fit's points, by point: the model at a point does not depend on the hypothesis, and a
     * fit comes back to its points. The log predictions of a Jacobian's forward differences, by the point they were
     * taken around (the narrow and wide fits of a contaminated prior start from the prior, the wide one of a link at the
     * narrow one's optimum too, a fit's optimum is where its last accepted step took one, and SEVERAL starts from each
     * single fault's optimum): a tenth of a fit's forward differences, each {@code n} predictions (counted over 1,000
     * runs of bench/fleet.py: 15,280 of 147,462 Jacobians away from the prior, whose own points the prediction memo
     * already keeps). And Levenberg-Marquardt's values away from the prior: their times alone ({@link StepModel#times}),
     * where they had been whole predictions in the prediction memo, which nothing reads again but the optimum's (the
     * facts and the pricing predict the chosen fit once more); `bench/ab.sh` against the build before, three pairs: B/A
     * CPU 0.970, wall 0.990, the same reports (50th stop). The same points give the same predictions, so the fit takes
     * the same path. Since the 58th stop a point's times come from the fit's layout worked out once ({@link #model}),
     * which costs about what a look-up here does (without the two memos: B/A CPU 1.000 over four pairs); they are kept
     * for the runs whose layout cannot be so worked out.
     */
    private static final class Points {
        /** The step model worked out once for the fit's layout and cluster (null: each point predicted whole). */
        final FitTimes model;
        private final java.util.HashMap<Point, double[][]> stepped = new java.util.HashMap<>();
        private final java.util.HashMap<Point, double[]> values = new java.util.HashMap<>();

        Points(FitTimes model) { this.model = model; }

        /** The log predictions of the forward differences around {@code x}, one array a coordinate; else null. */
        double[][] stepped(double[] x) { return stepped.get(new Point(x)); }

        void putStepped(double[] x, double[][] logPredictions) { stepped.put(new Point(x.clone()), logPredictions); }

        /** The log predictions at {@code x} away from the prior; else null. */
        double[] values(double[] x) { return values.get(new Point(x)); }

        void putValues(double[] x, double[] logPredictions) { values.put(new Point(x.clone()), logPredictions); }

        /** A point of the fit's coordinates, equal bit for bit (by its values, not as a record of its array). */
        private static final class Point {
            private final double[] x;

            Point(double[] x) { this.x = x; }

            @Override
            public boolean equals(Object o) { return o instanceof Point p && java.util.Arrays.equals(x, p.x); }

            @Override
            public int hashCode() { return java.util.Arrays.hashCode(x); }
        }
    }

    private static boolean usable(double v) { return v > 0 && Double.isFinite(v); }

    private static double logit(double f) { return Math.log(f / (1 - f)); }

    private static String num(double v) { return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v); }
}
