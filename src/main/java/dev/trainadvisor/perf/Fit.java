package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.FlopsConvention;
import dev.trainadvisor.spec.IntraNodeLink;
import dev.trainadvisor.spec.Measurements;
import dev.trainadvisor.spec.Network;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.RunMetrics;
import org.apache.commons.math3.exception.MathIllegalStateException;
import org.apache.commons.math3.fitting.leastsquares.LeastSquaresBuilder;
import org.apache.commons.math3.fitting.leastsquares.LeastSquaresOptimizer;
import org.apache.commons.math3.fitting.leastsquares.LeastSquaresProblem;
import org.apache.commons.math3.fitting.leastsquares.LevenbergMarquardtOptimizer;
import org.apache.commons.math3.fitting.leastsquares.MultivariateJacobianFunction;
import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.ArrayRealVector;
import org.apache.commons.math3.linear.RealMatrix;
import org.apache.commons.math3.linear.RealVector;
import org.apache.commons.math3.util.Pair;

import java.util.ArrayList;
import java.util.List;

/**
 * Fits what the step model cannot know from the datasheet to what a run measured (DESIGN.md section 5, "Fit"):
 * achieved compute efficiency, the effective intra-node bus bandwidth, the effective inter-node bandwidth per
 * node, and the fraction of an overlap window that hides communication. It is a maximum a posteriori estimate:
 * Levenberg-Marquardt least squares over whitened residuals, one per measured time (relative, as a log ratio)
 * and one per parameter (its Gaussian prior around the catalogue or default value, in log space). A parameter
 * whose effect on the measured times is negligible keeps its prior; whether the data constrained a parameter
 * is read from the posterior covariance.
 *
 * <p>Observations. The step time comes from {@code step_time_s}, else from {@code tokens_per_gpu_per_s}
 * ({@code tokensPerReplica / (tp pp cp) / tokens}), else from {@code tflops_per_gpu} counted with its
 * {@code tflops_convention}, else from {@code mfu} (house count); they are the same quantity, so only the first
 * one present is used. {@code fwd_bwd_time_s} is matched to {@link StepPrediction#fwdBwdSeconds()} and
 * {@code optimizer_time_s} to the rest of the step, {@code stepTimeS - fwdBwdSeconds()}: the optimizer update
 * plus the data-parallel collectives that run after backward without overlap (ZeRO's parameter all-gather or
 * broadcast, a gradient reduction that is not overlapped). That is where the frameworks' timers put them:
 * InternEvo's {@code fwd-bwd} timer brackets {@code trainer.execute_schedule} only, and
 * {@code trainer.step()} (HybridZeroOptimizer: the last gradient bucket's reduce, clipping, the update and
 * the parameter broadcast) runs after it (InternLM train.py, 2023-07); Megatron-LM's {@code optimizer} timer
 * covers the distributed optimizer's step with its parameter all-gather when that is not overlapped with
 * the next forward. Megatron finishes a non-overlapped gradient reduction inside {@code forward-backward}
 * ({@code finalize_model_grads}), which this split puts with the optimizer; for such runs give step and
 * forward-backward times and leave {@code optimizer_time_s} out. The split is the one
 * {@link StepPrediction#fwdBwdSeconds()} defines, so the three predicted times add up.
 */
public final class Fit {
    public static final String COMPUTE = "compute-scale";
    public static final String INTRA = "intra-node-busbw";
    public static final String INTER = "inter-node-gbps";
    public static final String OVERLAP = "overlap-fraction";

    /**
     * Relative standard deviation of a measured time. Steady-state step times of one run vary by 1-3% step to
     * step, and frameworks round them (InternEvo prints fwd_bwd_time to 0.01 s, under 0.3% at 4-6 s); 3% lets
     * the data dominate priors that are tens of percent wide, which is the point of the fit. It does not cover
     * the model's own structural error, so a residual left after the fit is a finding, not noise.
     */
    static final double OBSERVATION_SIGMA = 0.03;

    /**
     * Prior on ln(compute scale) around 1. After the calibration of Efficiency.TRAINING_FRACTION_OF_BENCHMARK,
     * observed/predicted throughput of the 226 reference runs has an interquartile range of 0.96-1.06 and a
     * standard deviation of ln 0.10; single frameworks miss by more (torchtitan's runs by +13% on average,
     * README "Calibration"), and a run outside the catalogued hardware, kernels and frameworks more again, so 0.3
     * (a factor 1.35 at one sigma, 1.8 at two) keeps the prior weak next to the 3% of a measured time.
     */
    static final double COMPUTE_PRIOR_SIGMA = 0.3;

    /**
     * Prior on ln(bandwidth) around the catalogue value. Catalogue bus bandwidths are typical nodes; real ones
     * miss them by integer factors: PCIe GPUs behind different switches or root complexes, P2P disabled so NCCL
     * stages through host memory, a degraded NVLink, InfiniBand without GPUDirect RDMA or on the wrong NIC.
     * 0.7 is a factor 2 at one sigma and 4 at two, wide enough that a few percent-accurate times move it, yet a
     * link that delivers 25 GB/s where NVLink4 gives 300 (ln 12 = 3.5 sigma) needs strong evidence.
     */
    static final double BANDWIDTH_PRIOR_SIGMA = 0.7;

    /**
     * Prior on ln(bandwidth) when the run file gives a measured bus bandwidth: nccl-tests repeats within a
     * few percent, but a training step's collectives use other sizes (25 MB buckets, not the largest size) and
     * share the GPU with compute, so 10%.
     */
    static final double MEASURED_BANDWIDTH_PRIOR_SIGMA = 0.1;

    /**
     * Prior on the log-odds of the overlap fraction, ln(f / (1 - f)), around Efficiency.OVERLAP_FRACTION (0.8,
     * log-odds 1.39). The log-odds keeps the fitted fraction in (0, 1). Its source gives 60-90% hidden
     * (log-odds 0.41-2.20); a sigma of 1 spans 0.60-0.92 at one sigma.
     */
    static final double OVERLAP_PRIOR_SIGMA = 1.0;

    /**
     * A parameter counts as constrained by the data when its posterior sigma is below half its prior sigma,
     * that is when the measurements carry at least three times the prior's information about it.
     */
    public static final double CONSTRAINED_RATIO = 0.5;

    /** Forward-difference step in the fit's coordinates (log space): a 1e-6 relative change. */
    static final double FD_STEP = 1e-6;

    /**
     * Evaluations of the residual function (each is 1 + parameters step-model predictions, a few microseconds
     * each): the example runs take 4-5, times the model cannot match (a step ten times the prediction, a
     * forward-backward longer than the step) 15-45. On exhaustion the best point seen is kept.
     */
    static final int MAX_EVALUATIONS = 80;

    /**
     * Relative tolerances of Levenberg-Marquardt on cost and parameters. The coordinates are logs of values
     * known to a few percent, so 1e-6 is far below anything a rule reads and saves iterations over the
     * optimizer's 1e-10 default.
     */
    static final double TOLERANCE = 1e-6;

    private static final double COVARIANCE_THRESHOLD = 1e-14;

    private Fit() {}

    /** Fits with the default efficiencies of the cluster's GPU as priors. */
    public static FitResult fit(Cluster cluster, RunMetrics run) {
        return fit(cluster, run, Efficiency.defaults(cluster.gpu(), run.training().precision()));
    }

    /**
     * Fits with {@code prior} as the efficiencies the compute scale multiplies and the overlap fraction's prior.
     */
    public static FitResult fit(Cluster cluster, RunMetrics run, Efficiency prior) {
        return fit(cluster, run, prior, MAX_EVALUATIONS);
    }

    static FitResult fit(Cluster cluster, RunMetrics run, Efficiency prior, int maxEvaluations) {
        List<Param> params = params(cluster, prior);
        List<Obs> obs = observations(cluster, run);
        Evaluator ev = new Evaluator(cluster, run, prior, params, obs);
        int n = params.size();
        double[] mean = new double[n];
        for (int j = 0; j < n; j++) mean[j] = params.get(j).mean;

        StepPrediction expected = StepModel.predict(cluster, run, prior);
        if (obs.isEmpty()) {
            List<FitParameter> out = new ArrayList<>();
            for (Param p : params) out.add(p.result(p.value, p.sigma));
            return new FitResult(cluster, prior, expected, expected, List.copyOf(out), List.of(), 0, 0, 0, true);
        }

        LeastSquaresProblem problem = new LeastSquaresBuilder()
                .start(mean)
                .model(ev)
                .target(new double[obs.size() + n])
                .maxEvaluations(maxEvaluations)
                .maxIterations(maxEvaluations)
                .lazyEvaluation(false)
                .build();
        LevenbergMarquardtOptimizer lm = new LevenbergMarquardtOptimizer()
                .withCostRelativeTolerance(TOLERANCE)
                .withParameterRelativeTolerance(TOLERANCE);
        double[] x;
        double[][] cov;
        int evaluations, iterations;
        boolean converged = true;
        try {
            LeastSquaresOptimizer.Optimum opt = lm.optimize(problem);
            x = opt.getPoint().toArray();
            cov = opt.getCovariances(COVARIANCE_THRESHOLD).getData();
            evaluations = opt.getEvaluations();
            iterations = opt.getIterations();
        } catch (MathIllegalStateException e) {
            // too many evaluations, or no further decrease possible within the tolerances: keep the best point seen
            x = ev.best.clone();
            evaluations = ev.evaluations;
            cov = problem.evaluate(new ArrayRealVector(x)).getCovariances(COVARIANCE_THRESHOLD).getData();
            iterations = -1;
            converged = false;
        }

        Cluster fittedCluster = ev.cluster(x);
        Efficiency fittedEff = ev.efficiency(x);
        StepPrediction fitted = StepModel.predict(fittedCluster, run, fittedEff);
        double cost = 0;
        for (double r : ev.residuals(x, ev.logPredictions(fitted))) cost += r * r;

        List<FitParameter> out = new ArrayList<>();
        for (int j = 0; j < n; j++) {
            Param p = params.get(j);
            out.add(p.result(p.natural(x[j]), Math.sqrt(Math.max(0, cov[j][j]))));
        }
        List<FitObservation> observed = new ArrayList<>();
        for (Obs o : obs) {
            observed.add(new FitObservation(o.name, o.source, o.measured, o.kind.of(expected), o.kind.of(fitted),
                    OBSERVATION_SIGMA));
        }
        return new FitResult(fittedCluster, fittedEff, fitted, expected, List.copyOf(out), List.copyOf(observed),
                cost, evaluations, iterations, converged);
    }

    /** The change from {@code expected} to {@code fitted} in the fit's coordinate for parameter {@code name}. */
    static double coordinateShift(String name, double expected, double fitted) {
        return OVERLAP.equals(name) ? logit(fitted) - logit(expected) : Math.log(fitted / expected);
    }

    // ---------------------------------------------------------------- parameters and observations

    /** One fitted parameter: its prior value, and its coordinate (log or log-odds) with mean and sigma. */
    private static final class Param {
        final String name, unit, source;
        final double value, mean, sigma;
        final boolean logOdds;

        Param(String name, String unit, double value, double sigma, boolean logOdds, String source) {
            this.name = name;
            this.unit = unit;
            this.value = value;
            this.sigma = sigma;
            this.logOdds = logOdds;
            this.source = source;
            this.mean = logOdds ? logit(value) : Math.log(value);
        }

        /** The natural value at coordinate {@code x}; exactly the prior value at the prior mean. */
        double natural(double x) {
            if (x == mean) return value;
            return logOdds ? 1 / (1 + Math.exp(-x)) : Math.exp(x);
        }

        FitParameter result(double fitted, double posteriorSigma) {
            return new FitParameter(name, unit, value, fitted, fitted / value - 1, sigma, posteriorSigma,
                    posteriorSigma < CONSTRAINED_RATIO * sigma, source);
        }
    }

    private static List<Param> params(Cluster c, Efficiency prior) {
        List<Param> out = new ArrayList<>();
        out.add(new Param(COMPUTE, "x", 1.0, COMPUTE_PRIOR_SIGMA, false, String.format(
                "default efficiency: GEMMs %.3f, attention %.3f of peak", prior.gemmFractionOfPeak(),
                prior.attentionFractionOfPeak())));
        IntraNodeLink link = c.intraNode();
        if (c.gpusPerNode() > 1 && link != null && usable(link.busbwGbps())) {
            out.add(new Param(INTRA, "GB/s", link.busbwGbps(),
                    link.busbwMeasured() ? MEASURED_BANDWIDTH_PRIOR_SIGMA : BANDWIDTH_PRIOR_SIGMA, false,
                    link.busbwMeasured() ? "measured intra_node.busbw_gbps" : "catalogue " + link.key()));
        }
        Network net = c.interNode();
        if (c.nodes() > 1 && net != null && usable(net.nodeGbps())) {
            boolean measured = !Double.isNaN(net.busbwGbps());
            out.add(new Param(INTER, "GB/s per node", net.nodeGbps(),
                    measured ? MEASURED_BANDWIDTH_PRIOR_SIGMA : BANDWIDTH_PRIOR_SIGMA, false,
                    measured ? "measured inter_node.busbw_gbps" : String.format("catalogue %s: %d x %s Gbit/s x %s",
                            net.key(), net.nicsPerNode(), num(net.lineRateGbitS()), num(net.efficiency()))));
        }
        // log-odds of exactly 0 or 1 is infinite: a prior at the bound starts just inside it
        double overlap = Math.min(0.999, Math.max(0.001, prior.overlapFraction()));
        out.add(new Param(OVERLAP, "fraction", overlap, OVERLAP_PRIOR_SIGMA, true,
                overlap == Efficiency.OVERLAP_FRACTION ? "Efficiency.OVERLAP_FRACTION" : "given efficiency"));
        return out;
    }

    private enum Kind {
        STEP, FWD_BWD, OPTIMIZER;

        double of(StepPrediction p) {
            return switch (this) {
                case STEP -> p.stepTimeS();
                case FWD_BWD -> p.fwdBwdSeconds();
                case OPTIMIZER -> p.stepTimeS() - p.fwdBwdSeconds();
            };
        }
    }

    private record Obs(String name, String source, double measured, Kind kind) {}

    private static List<Obs> observations(Cluster c, RunMetrics run) {
        Measurements m = run.measured();
        List<Obs> out = new ArrayList<>();
        if (m == null) return out;
        double tokensPerGpuStep = (double) run.training().tokensPerReplica() / run.parallel().modelParallel();
        FlopsConvention conv = FlopsConvention.parse(m.tflopsConvention());
        if (usable(m.stepTimeS())) {
            out.add(new Obs("step_time_s", "step_time_s", m.stepTimeS(), Kind.STEP));
        } else if (usable(m.tokensPerGpuPerS())) {
            out.add(new Obs("step_time_s", "tokens_per_gpu_per_s", tokensPerGpuStep / m.tokensPerGpuPerS(), Kind.STEP));
        } else if (usable(m.tflopsPerGpu()) && conv != null) {
            double tokens = m.tflopsPerGpu() * 1e12 / ConventionFlops.perToken(conv, run.model(), run.training());
            out.add(new Obs("step_time_s", "tflops_per_gpu", tokensPerGpuStep / tokens, Kind.STEP));
        } else if (usable(m.mfu())) {
            double tokens = m.mfu() * c.gpu().peakTflops(Precision.BF16) * 1e12
                    / FlopsPerToken.of(run.model(), run.training()).model();
            if (usable(tokens)) out.add(new Obs("step_time_s", "mfu", tokensPerGpuStep / tokens, Kind.STEP));
        }
        if (usable(m.fwdBwdTimeS())) out.add(new Obs("fwd_bwd_time_s", "fwd_bwd_time_s", m.fwdBwdTimeS(), Kind.FWD_BWD));
        if (usable(m.optimizerTimeS())) {
            out.add(new Obs("optimizer_time_s", "optimizer_time_s", m.optimizerTimeS(), Kind.OPTIMIZER));
        }
        return out;
    }

    // ---------------------------------------------------------------- the residual function

    /**
     * Whitened residuals {@code ln(predicted / measured) / sigma} for each observation and
     * {@code (x - mean) / sigma} for each prior, with a forward-difference Jacobian of the observations (the
     * priors' rows are diagonal). Keeps the lowest-cost point it evaluated.
     */
    private static final class Evaluator implements MultivariateJacobianFunction {
        final Cluster cluster;
        final RunMetrics run;
        final Efficiency prior;
        final List<Param> params;
        final List<Obs> obs;
        final double[] logMeasured;
        final int compute, intra, inter, overlap;
        double[] best;
        double bestCost = Double.POSITIVE_INFINITY;
        int evaluations;

        Evaluator(Cluster cluster, RunMetrics run, Efficiency prior, List<Param> params, List<Obs> obs) {
            this.cluster = cluster;
            this.run = run;
            this.prior = prior;
            this.params = params;
            this.obs = obs;
            logMeasured = obs.stream().mapToDouble(o -> Math.log(o.measured)).toArray();
            compute = index(COMPUTE);
            intra = index(INTRA);
            inter = index(INTER);
            overlap = index(OVERLAP);
        }

        private int index(String name) {
            for (int j = 0; j < params.size(); j++) if (params.get(j).name.equals(name)) return j;
            return -1;
        }

        Efficiency efficiency(double[] x) {
            double scale = params.get(compute).natural(x[compute]);
            double f = params.get(overlap).natural(x[overlap]);
            if (scale == 1.0 && f == prior.overlapFraction()) return prior;
            return prior.withComputeScale(scale).withOverlap(f);
        }

        Cluster cluster(double[] x) {
            IntraNodeLink link = cluster.intraNode();
            Network net = cluster.interNode();
            boolean changed = false;
            if (intra >= 0 && x[intra] != params.get(intra).mean) {
                link = new IntraNodeLink(link.key(), link.kind(), link.unidirectionalGbps(),
                        params.get(intra).natural(x[intra]), link.alphaUs(), link.busbwMeasured(), link.source());
                changed = true;
            }
            if (inter >= 0 && x[inter] != params.get(inter).mean) {
                // Network#nodeGbps returns busbwGbps when it is set: the fitted per-node bandwidth
                net = new Network(net.key(), net.lineRateGbitS(), net.efficiency(), net.alphaUs(), net.nicsPerNode(),
                        params.get(inter).natural(x[inter]), net.source());
                changed = true;
            }
            if (!changed) return cluster;
            return new Cluster(cluster.name(), cluster.gpu(), cluster.nodes(), cluster.gpusPerNode(), link, net);
        }

        double[] logPredictions(StepPrediction p) {
            double[] out = new double[obs.size()];
            for (int i = 0; i < out.length; i++) out[i] = Math.log(obs.get(i).kind.of(p));
            return out;
        }

        double[] logPredictions(double[] x) {
            return logPredictions(StepModel.predict(cluster(x), run, efficiency(x)));
        }

        double[] residuals(double[] x, double[] logPred) {
            int m = obs.size();
            double[] r = new double[m + params.size()];
            for (int i = 0; i < m; i++) r[i] = (logPred[i] - logMeasured[i]) / OBSERVATION_SIGMA;
            for (int j = 0; j < params.size(); j++) r[m + j] = (x[j] - params.get(j).mean) / params.get(j).sigma;
            return r;
        }

        @Override
        public Pair<RealVector, RealMatrix> value(RealVector point) {
            evaluations++;
            double[] x = point.toArray();
            int m = obs.size(), n = params.size();
            double[] f0 = logPredictions(x);
            double[] r = residuals(x, f0);
            double cost = 0;
            for (double v : r) cost += v * v;
            if (cost < bestCost || best == null) {
                bestCost = cost;
                best = x.clone();
            }
            double[][] jac = new double[m + n][n];
            for (int j = 0; j < n; j++) {
                double[] xh = x.clone();
                xh[j] += FD_STEP;
                double h = xh[j] - x[j];   // the step actually taken after rounding
                double[] fj = logPredictions(xh);
                for (int i = 0; i < m; i++) jac[i][j] = (fj[i] - f0[i]) / h / OBSERVATION_SIGMA;
                jac[m + j][j] = 1 / params.get(j).sigma;
            }
            return new Pair<>(new ArrayRealVector(r, false), new Array2DRowRealMatrix(jac, false));
        }
    }

    private static boolean usable(double v) { return v > 0 && Double.isFinite(v); }

    private static double logit(double f) { return Math.log(f / (1 - f)); }

    private static String num(double v) { return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v); }
}
