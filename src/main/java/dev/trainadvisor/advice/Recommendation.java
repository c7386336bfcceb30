package dev.trainadvisor.advice;

import dev.trainadvisor.spec.RunChange;

import java.util.List;

/**
 * A remedy priced through the step model from the step the advice starts from (the fitted step when the run measured
 * its times): {@code speedup = changed tokens/GPU/s / fitted tokens/GPU/s}.
 *
 * @param change             the edit to the run, as it applies to the user's run file
 * @param sameMath           false when the change alters the optimisation (global batch, sequence length, weight
 *                           precision); such changes are listed after those that keep it
 * @param reason             why it helps, in words
 * @param baselineStepS      the step it is priced from, and its throughput
 * @param speedupLow         the lowest speedup under the explanations of the run's times the fit cannot rule out, and
 *                           one posterior standard deviation of the fitted quantities
 * @param memoryCapacityGb   the GPU's memory with the change
 * @param nextBottleneck     the collective that would then be exposed longest, or null when none costs 5% of the step
 * @param pricedBy           the step model, or the run's history (the wall time a remedy of a stall wins back)
 */
public record Recommendation(String id, String action, RunChange change, boolean sameMath,
                             List<String> addresses, String reason, double baselineStepS, double baselineTflopsPerGpu,
                             double predictedStepTimeS, double predictedTflopsPerGpu, double predictedTokensPerGpuPerS,
                             double predictedMemoryGb, double memoryCapacityGb, double speedup, double speedupLow,
                             double speedupHigh, String nextBottleneck, String nextBottleneckLink,
                             double nextBottleneckSeconds, PricedBy pricedBy) {

    /** What a recommendation's gain comes from. */
    public enum PricedBy {
        /** the step model, from the fitted step with the change applied */
        MODEL,
        /** the run's history: the share of its wall time the remedy wins back, measured */
        HISTORY;

        public final String key = name().toLowerCase(java.util.Locale.ROOT);
    }

    public double memoryHeadroomGb() { return memoryCapacityGb - predictedMemoryGb; }
}
