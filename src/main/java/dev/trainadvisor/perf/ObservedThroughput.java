package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.FlopsConvention;
import dev.trainadvisor.spec.Measurements;
import dev.trainadvisor.spec.Metric;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.RunMetrics;

/**
 * A run's measured throughput in tokens per GPU per second, from the most direct measurement it
 * gave: tokens/GPU/s, else the step time, else the printed TFLOPS through its FLOPs convention,
 * else the MFU through the house count and the GPU's dense bf16 peak.
 *
 * @param source the metric it came from, or null when the run measured none of these
 */
public record ObservedThroughput(double tokensPerGpuPerS, double stepTimeS, Metric source) {

    public static ObservedThroughput of(Cluster c, RunMetrics run) {
        Measurements m = run.measured();
        double tokensPerGpuStep = (double) run.training().tokensPerReplica() / run.parallel().modelParallel();
        FlopsConvention conv = FlopsConvention.parse(m.tflopsConvention());
        double tokens = Double.NaN;
        Metric source = null;
        if (!Double.isNaN(m.tokensPerGpuPerS())) {
            tokens = m.tokensPerGpuPerS();
            source = Metric.TOKENS_PER_GPU_PER_S;
        } else if (!Double.isNaN(m.stepTimeS())) {
            tokens = tokensPerGpuStep / m.stepTimeS();
            source = Metric.STEP_TIME_S;
        } else if (!Double.isNaN(m.tflopsPerGpu()) && conv != null) {
            tokens = m.tflopsPerGpu() * 1e12 / ConventionFlops.perToken(conv, run.model(), run.training());
            source = Metric.TFLOPS_PER_GPU;
        } else if (!Double.isNaN(m.mfu())) {
            tokens = m.mfu() * c.gpu().peakTflops(Precision.BF16) * 1e12 / FlopsPerToken.of(run.model(), run.training()).model();
            source = Metric.MFU;
        }
        double step = !Double.isNaN(m.stepTimeS()) ? m.stepTimeS() : tokensPerGpuStep / tokens;
        return new ObservedThroughput(tokens, step, source);
    }

    public boolean measured() { return source != null; }
}
