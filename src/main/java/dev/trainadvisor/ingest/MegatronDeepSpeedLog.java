package dev.trainadvisor.ingest;

/**
 * Megatron-DeepSpeed logs (docs/logs.md (Megatron-DeepSpeed)): Megatron's training_log with {@code consumed tokens},
 * {@code actual seqlen}, {@code samples per second}, {@code tokens per gpu per second (tgs)} and {@code TFLOPs};
 * the argonne fork's {@code key=value |} layout; the ModelLink tail {@code tgs (tokens/gpu/second): N}.
 *
 * <p>Metrics as {@link MegatronLog}, plus {@code tokens per gpu per second (tgs)} → tokens_per_gpu_per_s (else
 * derived as for Megatron), {@code TFLOPs} → tflops_per_gpu with convention {@code megatron-deepspeed} (the formula
 * before PR #371; a warning when the log is dated 2024-08-19 or later). {@code actual seqlen} gives training.seq_len
 * when the argument dump does not; {@code samples per second} goes to extra as samples_per_s; the dump's
 * {@code zero_stage} gives parallel.zero_stage.
 *
 * <p>The DeepSpeed engine underneath prints its own lines in the same log ({@code step=N, skipped=K}, the pipeline
 * engine's {@code steps: N ... iter time (s)}, timers); they are read as {@link DeepSpeedLog} reads them, so a log
 * gives the same metrics whichever of the two formats detection picks. In particular skipped_steps is the larger of
 * the iteration lines' sum and the engine's cumulative count: under the pipeline engine Megatron-DeepSpeed prints
 * {@code number of skipped iterations: 0} while the engine counts its overflow skips.
 */
public final class MegatronDeepSpeedLog extends GuardedLogParser {
    public static final String FORMAT = "megatron-deepspeed";

    public MegatronDeepSpeedLog() { super(FORMAT); }

    @Override
    double score(String text) {
        MegatronCore.Census c = MegatronCore.census(text);
        if (c.mdsIterations() > 0) return 0.9;
        if (c.iterations() > 0) return c.deepspeedArg() ? 0.92 : 0.3;
        if (c.argLines() >= 3 && c.deepspeedArg()) return 0.65;
        return 0;
    }

    @Override
    ParsedLog read(LogSource log) {
        return DeepSpeedLog.read(log, FORMAT);
    }

    /** Megatron-DeepSpeed's reading of a Megatron state, shared with {@link DeepSpeedLog}. */
    static void fill(MegatronCore.State st, LogResult r) {
        MegatronCore.fill(st, r);
        r.convention = "megatron-deepspeed";
        if (st.lastDate != null && st.lastDate.compareTo("2024-08-19") >= 0)
            r.warn("the log is dated " + st.lastDate + ", on or after Megatron-DeepSpeed PR #371 (2024-08-19) replaced"
                    + " its TFLOPs formula; forks differ, the TFLOPs are read with the older megatron-deepspeed convention");
    }
}
