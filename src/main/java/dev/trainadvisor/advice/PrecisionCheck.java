package dev.trainadvisor.advice;

import dev.trainadvisor.facts.PrecisionMismatchFact;
import dev.trainadvisor.perf.ObservedThroughput;
import dev.trainadvisor.perf.StepModel;
import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.Training;

import java.util.List;

/**
 * Whether a run's times are those of a lower precision than it says: the Trainer without {@code bf16=True} runs its
 * matmuls in fp32 (TF32 off, PyTorch's default for matmuls), Lightning without {@code precision="bf16-mixed"} the
 * same, an fp8 recipe that falls back runs bf16. Such a run is slower than the model at its configured precision by
 * about the ratio of the two peaks over the GEMM share of its step, a gap no other single cause the model knows
 * reaches, and close to the model at the lower precision.
 *
 * <p>Thresholds: observed at least {@link #MIN_GAP} x the configured prediction, and within {@link #MAX_FIT} of the
 * lower one's, three times nearer in log terms. The gap's floor is set above the slowest cause of the H200 Trainer runs
 * (src/test/resources/logs/h200-trainer): eager attention runs 1.48x the model's step at FlashAttention's, and an
 * input pipeline of 15 ms a sample 1.16x; their fp32 run, 6.9x. The fit's band is the model's spread on the validated
 * rows, widened: 8 in 10 land within 0.90-1.08 for dense compute-bound runs and 0.90-1.16 over every class, predicted
 * out of source (knowledge-base/prediction-intervals.json), and a
 * fp32 run's GEMMs run on CUDA cores, which the catalogue's efficiency curves do not calibrate.
 */
final class PrecisionCheck {
    private PrecisionCheck() {}

    static final double MIN_GAP = 2.0, MAX_FIT = 1.35;

    /** The lower precisions a configured one may fall back to, in the order tried. */
    static List<Precision> lower(Precision p) {
        return switch (p) {
            case BF16, FP16 -> List.of(Precision.TF32, Precision.FP32);
            case FP8 -> List.of(Precision.BF16);
            default -> List.of();
        };
    }

    /**
     * The mismatch, or null: none measured, no lower precision the GPU has, the times match the configured one, or
     * the fit of the run at its configured precision ({@code b}) explains them by something other than compute (a
     * link, an overlap): a precision changes only the compute, and a collective five times slower than the catalogue
     * can look like fp32 as well.
     */
    static PrecisionMismatchFact of(Cluster c, RunMetrics run, dev.trainadvisor.perf.Baseline b) {
        if (run.measured().isEmpty()) return null;
        if (b.fit() != null) {
            dev.trainadvisor.perf.FitParam chosen = b.fit().chosen().hypothesis().param();
            if (chosen != null && chosen != dev.trainadvisor.perf.FitParam.COMPUTE_SCALE) return null;
            // nor when a slow link explains the times as well (ZeRO-3's gathers split 1:2 between forward and backward
            // as compute does): the times cannot say it is the precision
            if (b.fit().alternatives().stream().anyMatch(h -> h.hypothesis().param() != null && h.hypothesis().param().isLink()))
                return null;
        }
        double tokens = ObservedThroughput.of(c, run).tokensPerGpuPerS();
        if (!(tokens > 0)) return null;
        double configured = StepModel.predict(c, run).tokensPerGpuPerS();
        double gap = configured / tokens;
        if (!(gap >= MIN_GAP)) return null;
        PrecisionMismatchFact best = null;
        for (Precision p : lower(run.training().precision())) {
            double peak = c.gpu().peakTflops(p);
            if (!(peak > 0)) continue;
            double at = StepModel.predict(c, at(run, p)).tokensPerGpuPerS();
            double fit = at / tokens;
            if (fit > MAX_FIT || fit < 1 / MAX_FIT || Math.abs(Math.log(fit)) * 3 > Math.log(gap)) continue;
            if (best == null || Math.abs(Math.log(fit)) < Math.abs(Math.log(best.fit()))) {
                double step = ObservedThroughput.of(c, run).stepTimeS();
                double observedS = Double.isFinite(step) ? step : Double.NaN;
                best = new PrecisionMismatchFact(run.training().precision(), p, observedS,
                        observedS / gap, observedS / fit);
            }
        }
        return best;
    }

    /** The run at another precision: what ran, for the advice to price. */
    static RunMetrics at(RunMetrics run, Precision p) {
        Training t = run.training();
        Training nt = new Training(t.seqLen(), t.microBatchSize(), t.microBatches(), t.recompute(), p,
                p == Precision.FP32 || p == Precision.TF32 ? Precision.FP32 : t.gradReducePrecision(), t.flashAttention(),
                t.recomputeFraction(), t.attentionKernel(), t.elementwiseKernels(), t.cudaGraphs(), t.fp8Recipe(),
                t.implementation(), t.offload(), t.optimizerKernel());
        return run.withTraining(nt);
    }
}
