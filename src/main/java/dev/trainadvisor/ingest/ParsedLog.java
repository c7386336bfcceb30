package dev.trainadvisor.ingest;

import java.util.List;
import java.util.Map;

/**
 * What was read from one log, in run-file terms.
 *
 * <p>A log may carry no training throughput: nccl-tests and nvidia-smi topo outputs, an argument dump alone, the
 * Hugging Face Trainer's per-step dicts without the final speed dict, DeepSpeed engine lines without timers.
 * {@link #hasThroughput()} says whether it does (a pace metric among the metrics); {@link #steps()} may be above 0
 * without one (steps were seen, none timed).
 *
 * <p>Configuration keys the log may print (where the framework prints them; absent otherwise):
 * training.global_batch_size (sequences per optimizer step: Megatron's global_batch_size or the iteration line's
 * global batch size, DeepSpeed's train_batch_size, the Trainer's "Total train batch size", torchtitan's "global batch
 * size", InternEvo's micro_bsz x micro_num x dp, nanotron's global_batch_size), training.micro_batch_size,
 * training.micro_batches, training.seq_len, training.precision (bf16, fp16, fp8, fp32), training.recompute,
 * parallel.tp/pp/cp/ep/dp, parallel.zero_stage (DeepSpeed's zero_optimization_stage or "ZeRO stage N", Megatron's
 * use_distributed_optimizer as 1, torch FSDP2 as 3), and the model's dimensions from Megatron's argument dump.
 *
 * @param format     "internevo", "megatron", "megatron-deepspeed", "deepspeed", "torchtitan", "nanotron",
 *                   "composer", "hf-trainer", "lightning", "nccl-tests" or "nvidia-smi-topo"
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
 * @param history    the per-step series, warm-up included (StepHistory.EMPTY for logs without steps): step time,
 *                   tokens/GPU/s, timestamp, loss, loss scale, grad norm, memory, learning rate, skipped, and the
 *                   timers ranks print (a timer printed by one rank has NaN as its fastest rank); its warmupSteps and
 *                   warmupReason say which entries the medians leave out and why (StepSeries' warm-up rule)
 * @param printedOn  the day (UTC) the log's first timestamped step line was printed, or null where no step line carried
 *                   a time with its year (the Trainer's dicts, Megatron before 2024, nanotron since 2025): which version
 *                   of its framework can have written the log (a version that began later did not)
 */
public record ParsedLog(String format, int steps, int steadySteps, Map<String, Double> metrics, String tflopsConvention,
                        Map<String, Object> config, Map<String, Object> extra, List<String> warnings,
                        dev.trainadvisor.history.StepHistory history, java.time.LocalDate printedOn) {

    public ParsedLog(String format, int steps, int steadySteps, Map<String, Double> metrics, String tflopsConvention,
                     Map<String, Object> config, Map<String, Object> extra, List<String> warnings) {
        this(format, steps, steadySteps, metrics, tflopsConvention, config, extra, warnings,
                dev.trainadvisor.history.StepHistory.EMPTY, null);
    }

    /** A log read without a date: no step line carried a dated time. */
    public ParsedLog(String format, int steps, int steadySteps, Map<String, Double> metrics, String tflopsConvention,
                     Map<String, Object> config, Map<String, Object> extra, List<String> warnings,
                     dev.trainadvisor.history.StepHistory history) {
        this(format, steps, steadySteps, metrics, tflopsConvention, config, extra, warnings, history, null);
    }

    /**
     * The release of its framework's package the log states (DeepSpeed's {@code DeepSpeed info: version=}, kept in
     * {@link #extra()}), or null: it chooses the framework's version where its profile tells versions apart by release.
     */
    public String release() {
        return extra.get(DeepSpeedLog.RELEASE) instanceof String s ? s : null;
    }

    /** Ends the warning that counts the printed values a log's parser dropped as no measurement (StepSeries.putPositive). */
    public static final String DROPPED = "dropped as no measurement";

    /** The warnings that count dropped values: what a run file's log tells its reader even when the rest is quiet. */
    public List<String> droppedWarnings() {
        return warnings.stream().filter(w -> w.contains(DROPPED)).toList();
    }

    /** Metrics that time training: a log with none of them carries no training throughput. */
    public static final java.util.Set<String> PACE_METRICS = java.util.Set.of("step_time_s", "tokens_per_gpu_per_s",
            "tflops_per_gpu", "mfu");

    /** Whether the log times training: one of {@link #PACE_METRICS} among its metrics. */
    public boolean hasThroughput() {
        for (String k : PACE_METRICS) if (metrics.containsKey(k)) return true;
        return false;
    }

    public ParsedLog {
        metrics = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(metrics));
        config = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(config));
        extra = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(extra));
        warnings = List.copyOf(warnings);
        if (history == null) history = dev.trainadvisor.history.StepHistory.EMPTY;
    }
}
