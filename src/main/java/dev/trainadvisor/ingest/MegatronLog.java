package dev.trainadvisor.ingest;

/**
 * NVIDIA Megatron-LM logs (docs/logs.md (Megatron-LM)): the {@code training_log} line of every version (with or
 * without the leading timestamp, {@code .3E} or {@code .6E} learning rate, with or without
 * {@code throughput per GPU (TFLOP/s/GPU)}), the argument dump, {@code padded vocab}, {@code memory (MB)} and the
 * timers.
 *
 * <p>Metrics: {@code elapsed time per iteration (ms)} → step_time_s; {@code throughput per GPU} → tflops_per_gpu
 * (convention {@code megatron-legacy}, or {@code megatron} when a version clue says core >= 0.12: a
 * {@code .%f} timestamp, or a printed version such as {@code core_v0.12.0} / {@code megatron-core 0.13});
 * tokens_per_gpu_per_s = global batch size x seq_length / (step time x world size) when the dump gives the last two;
 * {@code loss scale} → loss_scale; timers {@code forward-backward} (or forward-compute + backward-compute) →
 * fwd_bwd_time_s and {@code optimizer} → optimizer_time_s (the max across ranks in the {@code (min, max)} layout);
 * {@code max reserved} (else {@code max allocated}) of the memory line, MB = 2^20 bytes → peak_memory_gb (the largest
 * over ranks and lines); skipped_steps = the sum of {@code number of skipped iterations} (reset at every print);
 * steps = the last iteration.
 *
 * <p>Configuration from the argument dump: model.layers/hidden/heads/kv_heads (num_query_groups with
 * group_query_attention)/ffn_hidden/vocab (the padded size when printed)/gated_mlp (swiglu)/tied_embeddings,
 * model.moe.experts/top_k/ffn_hidden/every (num_experts, moe_router_topk, moe_ffn_hidden_size, moe_layer_freq), parallel.tp/pp/cp/ep/dp/virtual_stages/sequence_parallel/zero_stage (use_distributed_optimizer → 1)/
 * overlap_grad_reduce/overlap_param_gather/rank_order (use_tp_pp_dp_mapping), training.seq_len/micro_batch_size/
 * micro_batches (global batch / (micro batch x dp))/recompute/precision/flash_attention. Extra: world_size, global_batch_size, nan_iterations.
 *
 * <p>History (one entry per iteration line; see {@link StepSeries}): step time, tokens/GPU/s (printed or derived as
 * above), the line's timestamp, {@code lm loss}, {@code learning rate}, {@code grad norm}, {@code loss scale}, skipped
 * (the skipped and nan iterations over the iterations the line covers), memory (the memory line of iteration K, the
 * largest over ranks), and every timer the log prints, under its printed name in lower case, in seconds: the
 * {@code (min, max) time across ranks} block gives the fastest and the slowest rank, its max-only variant and the older
 * single-line {@code time (ms) | name: value} layout one value (the slowest known; no fastest), the all-ranks layout
 * ({@code times across ranks}, {@code rank N: value}) the smallest and largest over the ranks. Configuration also:
 * training.global_batch_size (the dump's global_batch_size, else the iteration lines' global batch size).
 */
public final class MegatronLog extends GuardedLogParser {
    public static final String FORMAT = "megatron";

    public MegatronLog() { super(FORMAT); }

    @Override
    double score(String text) {
        MegatronCore.Census c = MegatronCore.census(text);
        if (c.iterations() > 0) {
            if (c.mdsIterations() == 0) return c.dsLines() > c.iterations() ? 0.6 : 0.9;
            return c.mdsIterations() < c.iterations() ? 0.7 : 0.55;
        }
        if (c.argLines() >= 3) return c.deepspeedArg() ? 0.55 : 0.6;
        return 0;
    }


    @Override
    ParsedLog read(LogSource log) {
        LogResult r = new LogResult(FORMAT);
        MegatronCore.State st = new MegatronCore.State(r.series);
        try (LogSource.Pass lines = log.lines()) {
            for (String line : lines) st.line(line);
        }
        st.finish();
        MegatronCore.fill(st, r);
        if (st.core012 == 1) {
            r.convention = "megatron";
        } else {
            r.convention = "megatron-legacy";
            if (st.core012 < 0 && st.lastDate != null && st.lastDate.compareTo("2025-03-06") >= 0)
                r.warn("the log is dated " + st.lastDate + ", after Megatron-LM began counting causal attention at half"
                        + " (core_v0.12.0); with no version printed the TFLOPS are read as megatron-legacy");
        }
        if (st.iterationLines == 0) r.warn("no training_log iteration lines found");
        return r.build();
    }
}
