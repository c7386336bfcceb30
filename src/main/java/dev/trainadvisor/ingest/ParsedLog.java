package dev.trainadvisor.ingest;

import java.util.List;
import java.util.Map;

/**
 * What was read from one log, in run-file terms.
 *
 * @param format     "internevo", "megatron", "megatron-deepspeed", "deepspeed", "torchtitan", "nanotron",
 *                   "composer", "hf-trainer", "nccl-tests" or "nvidia-smi-topo"
 * @param steps      training steps (iterations) found, after merging duplicate lines from several ranks
 * @param steadySteps steps the medians are taken over (warm-up dropped)
 * @param metrics    steady-state medians keyed by run-file metric names (tokens_per_gpu_per_s, step_time_s,
 *                   tflops_per_gpu, fwd_bwd_time_s, mfu, peak_memory_gb, loss_scale, skipped_steps, ...);
 *                   numbers only
 * @param tflopsConvention the FlopsConvention key of the framework's printed TFLOPS, or null
 * @param config     configuration found in the log, keyed by dotted run-file fields ("model.layers",
 *                   "parallel.tp", "training.seq_len", ...); values are numbers, booleans or strings
 * @param extra      format-specific values with no run-file name (nccl-tests: busbw_gbps, peak_busbw_gbps;
 *                   topology: gpus, intra_node)
 * @param warnings   what the parser noticed but could not use (e.g. "all iterations skipped")
 * @param history    the per-step series (dev.trainadvisor.history.StepHistory.EMPTY for logs without steps)
 */
public record ParsedLog(String format, int steps, int steadySteps, Map<String, Double> metrics, String tflopsConvention,
                        Map<String, Object> config, Map<String, Object> extra, List<String> warnings,
                        dev.trainadvisor.history.StepHistory history) {

    public ParsedLog(String format, int steps, int steadySteps, Map<String, Double> metrics, String tflopsConvention,
                     Map<String, Object> config, Map<String, Object> extra, List<String> warnings) {
        this(format, steps, steadySteps, metrics, tflopsConvention, config, extra, warnings,
                dev.trainadvisor.history.StepHistory.EMPTY);
    }

    public ParsedLog {
        metrics = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(metrics));
        config = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(config));
        extra = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(extra));
        warnings = List.copyOf(warnings);
        if (history == null) history = dev.trainadvisor.history.StepHistory.EMPTY;
    }
}
