package dev.trainadvisor.advice;

import java.util.List;
import java.util.Map;

/**
 * A remedy evaluated through the step model.
 *
 * @param change   the edit to the run file, dotted field to new value (null: remove the field)
 * @param predictedMemoryGb peak memory per GPU with the change (a change that would overflow is not recommended)
 * @param speedup  predicted tokens/GPU/s with the change over without it
 * @param addresses the diagnosis ids it answers
 */
public record Recommendation(String id, String action, Map<String, Object> change, double predictedTflopsPerGpu,
                             double predictedTokensPerGpuPerS, double predictedStepTimeS, double predictedMemoryGb,
                             double speedup,
                             List<String> addresses, String explanation) {}
