package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.FlopsConvention;
import dev.trainadvisor.spec.Measurements;
import dev.trainadvisor.spec.Metric;
import dev.trainadvisor.spec.RunMetrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A measurement the hardware cannot produce, or two that contradict each other. A run with one is not fitted: its
 * times would move the model's quantities to absurd values (a PCIe link at 11,900 GB/s).
 *
 * @param kind     what is wrong
 * @param metric   the measurement at fault
 * @param measured its value, in the unit of {@code limit}
 * @param limit    the most (or, for a mismatch, the other value) the hardware or the other measurement allows
 * @param ratio    measured over limit
 */
public record MeasurementCheck(Kind kind, Metric metric, double measured, double limit, double ratio) {

    public enum Kind {
        /** Observed tokens/s times the model's FLOPs per token exceed the GPU's dense peak in the run's precision. */
        MFU_ABOVE_PEAK("what the hardware allows"),
        /** The step is shorter than its hardware FLOPs (with recomputation) take at the GPU's peak. */
        STEP_BELOW_PEAK_COMPUTE("the least its FLOPs take at the GPU's peak"),
        /** The printed TFLOPS and tokens x FLOPs per token (the framework's own convention) disagree. */
        PRINTED_TFLOPS_MISMATCH("what the measured tokens/s times the framework's own FLOPs per token give"),
        /** A part of the step (forward-backward, forward + backward, the optimizer) takes longer than the step. */
        TIMER_EXCEEDS_STEP("the step it is part of");

        /** What the measured value is compared with, as "tflops_per_gpu is 0.48x ..." ends. */
        public final String against;

        Kind(String against) { this.against = against; }

        public String key() { return name().toLowerCase(Locale.ROOT).replace('_', '-'); }

        /** The kind whose {@link #key()} is {@code key}. */
        public static Kind of(String key) { return valueOf(key.toUpperCase(Locale.ROOT).replace('-', '_')); }
    }

    /** Printed TFLOPS may differ from tokens x FLOPs by rounding and warm-up averaging, not by more than a quarter. */
    public static final double PRINTED_TFLOPS_TOLERANCE = 0.25;

    /**
     * A framework's timers and its step time come from different clocks and averages (InternEvo's tgs over a window,
     * fwd_bwd_time of the last step); a part may read up to 10% over the whole before it is a contradiction.
     */
    public static final double TIMER_TOLERANCE = 0.10;

    /** Every check the run fails; empty when its measurements are possible. */
    public static List<MeasurementCheck> of(Cluster c, RunMetrics run, StepPrediction p) {
        List<MeasurementCheck> out = new ArrayList<>();
        Measurements m = run.measured();
        ObservedThroughput o = ObservedThroughput.of(c, run);
        double peak = c.gpu().peakTflops(run.training().precision());
        if (o.measured() && o.tokensPerGpuPerS() > 0) {
            double mfu = o.tokensPerGpuPerS() * p.flopsPerToken().model() / 1e12 / peak;
            if (mfu > 1) out.add(new MeasurementCheck(Kind.MFU_ABOVE_PEAK, o.source(), mfu, 1, mfu));
            double stepAtPeak = run.training().tokensPerReplica() / (double) run.parallel().modelParallel()
                    * p.flopsPerToken().hardware() / (peak * 1e12);
            if (o.stepTimeS() < stepAtPeak) out.add(new MeasurementCheck(Kind.STEP_BELOW_PEAK_COMPUTE,
                    o.source(), o.stepTimeS(), stepAtPeak, o.stepTimeS() / stepAtPeak));
        }
        FlopsConvention conv = FlopsConvention.parse(m.tflopsConvention());
        boolean tokensOrStep = !Double.isNaN(m.tokensPerGpuPerS()) || !Double.isNaN(m.stepTimeS());
        if (conv != null && !Double.isNaN(m.tflopsPerGpu()) && tokensOrStep && o.tokensPerGpuPerS() > 0) {
            double implied = o.tokensPerGpuPerS() * ConventionFlops.perToken(conv, run.model(), run.training()) / 1e12;
            double ratio = m.tflopsPerGpu() / implied;
            if (Math.abs(ratio - 1) > PRINTED_TFLOPS_TOLERANCE)
                out.add(new MeasurementCheck(Kind.PRINTED_TFLOPS_MISMATCH, Metric.TFLOPS_PER_GPU, m.tflopsPerGpu(), implied,
                        ratio));
        }
        double step = o.measured() ? o.stepTimeS() : Double.NaN;
        if (step > 0) {
            timer(out, Metric.FWD_BWD_TIME_S, m.fwdBwdTimeS(), step);
            timer(out, Metric.OPTIMIZER_TIME_S, m.optimizerTimeS(), step);
            if (!Double.isNaN(m.forwardTimeS()) && !Double.isNaN(m.backwardTimeS()))
                timer(out, Metric.BACKWARD_TIME_S, m.forwardTimeS() + m.backwardTimeS(), step);
        }
        return List.copyOf(out);
    }

    private static void timer(List<MeasurementCheck> out, Metric metric, double seconds, double step) {
        if (seconds > step * (1 + TIMER_TOLERANCE))
            out.add(new MeasurementCheck(Kind.TIMER_EXCEEDS_STEP, metric, seconds, step, seconds / step));
    }
}
