package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Metric;

/**
 * One measured time the fit matches, with what the model predicts for it before and after the fit.
 *
 * @param metric   which time: step_time_s, fwd_bwd_time_s, forward_time_s, backward_time_s or optimizer_time_s
 * @param source   the run-file metric it was derived from (the step time may come from tokens_per_gpu_per_s,
 *                 tflops_per_gpu with its convention, or mfu)
 * @param measured seconds
 * @param expected the model's seconds with the priors
 * @param fitted   the model's seconds with the fitted parameters
 * @param sigma    the relative (log) standard deviation the fit gives this observation
 */
public record FitObservation(Metric metric, Metric source, double measured, double expected, double fitted,
                             double sigma) {

    public String name() { return metric.key(); }

    /** {@code ln(fitted / measured)}: what the fitted model still misses, relative. */
    public double residual() { return Math.log(fitted / measured); }

    /** {@code ln(expected / measured)}: what the model missed before the fit. */
    public double expectedResidual() { return Math.log(expected / measured); }
}
