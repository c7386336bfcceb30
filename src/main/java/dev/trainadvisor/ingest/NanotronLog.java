package dev.trainadvisor.ingest;

import java.util.Map;

/**
 * nanotron logs (docs/logs.md (nanotron)): {@code iteration: N / M | tag: value | ...} with human-format values
 * ({@code 14.2K}, {@code 547M}, {@code 85.8G}, {@code 1.2B}; 3 significant digits).
 *
 * <p>Metrics: {@code elapsed_time_per_iteration_ms} (or {@code time_per_iteration_ms} since 2025-03) → step_time_s;
 * {@code tokens_per_sec_per_gpu} → tokens_per_gpu_per_s; {@code model_tflops_per_gpu} → tflops_per_gpu;
 * {@code cuda_max_memory_reserved} (else {@code cuda_max_memory_allocated}; bytes) → peak_memory_gb (the largest);
 * steps = the last iteration. Extra: hardware_tflops_per_gpu, global_batch_size, tokens_per_s (all GPUs).
 *
 * <p>Convention of {@code model_tflops_per_gpu}: {@code megatron-legacy}. nanotron's llama {@code get_flops} is
 * {@code 3 x (decoder forward + 2 B s h V)} where the decoder forward counts the QKV projection with GQA, the QK^T
 * logits and the attention-over-values with full {@code s^2} (not halved for the causal mask), the output
 * projection and the gated MLP ({@code 6 B s h ffn}); backward is twice forward and recomputation is not counted.
 * Term by term this is Megatron-LM's formula up to core_r0.11 (GQA-aware QKV, full s^2, gated MLP factor 3/2, logits
 * {@code V/(2Lh)}, factor 3, no recompute) — not InternEvo's (no GQA, x4 with checkpointing), not core >= 0.12's
 * (causal half) and not torchtitan's (6N + 12 L H d s, embedding excluded). Its {@code hardware_tflops_per_gpu} is a
 * placeholder equal to the model figure, so it is kept in extra only.
 *
 * <p>History: step time, tokens/GPU/s, the line's timestamp, {@code lm_loss}, {@code lr}, {@code grad_norm}, memory
 * (cuda_max_memory_reserved, bytes). Configuration: training.global_batch_size (the lines' global_batch_size).
 */
public final class NanotronLog extends GuardedLogParser {
    public static final String FORMAT = "nanotron";
    static final String HEAD = "iteration: ";

    public NanotronLog() { super(FORMAT); }

    @Override
    double score(String text) {
        int[] c = new int[1];
        Lines.scan(text, line -> {
            if (iterationAt(line) >= 0) c[0]++;
            return c[0] == 0;                       // one iteration line decides
        });
        return c[0] > 0 ? 0.95 : 0;
    }

    /** Index of {@code iteration: N / M |}, or -1. */
    static int iterationAt(String line) {
        int i = Lines.indexOfWord(line, HEAD);
        while (i >= 0) {
            int j = i + HEAD.length();
            if (Num.digitsAt(line, j) >= 0) {
                int k = Num.skipDigits(line, j);
                if (line.startsWith(" / ", k) && Num.digitsAt(line, k + 3) >= 0) return i;
            }
            i = Lines.indexOfWord(line, HEAD, i + 1);
        }
        return -1;
    }


    @Override
    ParsedLog read(LogSource log) {
        LogResult r = new LogResult(FORMAT);
        StepSeries s = r.series;
        try (LogSource.Pass lines = log.lines()) {
            for (String line : lines) {
                int at = iterationAt(line);
                if (at < 0) continue;
                long step = Num.digitsAt(line, at + HEAD.length());
                s.touch(step);
                s.timestamp(step, Stamp.at(line));
                int bar = line.indexOf('|', at);
                if (bar < 0) continue;
                Map<String, String> f = fields(line.substring(bar + 1));
                String msText = f.getOrDefault("elapsed_time_per_iteration_ms", f.get("time_per_iteration_ms"));
                s.putPositive(step, "step_time_s", Num.human(msText) / 1000, msText != null);
                s.putPositive(step, "tokens_per_gpu_per_s", Num.human(f.get("tokens_per_sec_per_gpu")), f.containsKey("tokens_per_sec_per_gpu"));
                s.putPositive(step, "tflops_per_gpu", Num.human(f.get("model_tflops_per_gpu")), f.containsKey("model_tflops_per_gpu"));
                double hw = Num.human(f.get("hardware_tflops_per_gpu"));
                if (hw > 0) s.put(step, "hardware_tflops_per_gpu", hw);
                double gbs = Num.human(f.get("global_batch_size"));
                if (gbs > 0) s.put(step, "global_batch_size", gbs);
                double tps = Num.human(f.get("tokens_per_sec"));
                if (tps > 0) s.put(step, "tokens_per_s", tps);
                double mem = Num.human(f.getOrDefault("cuda_max_memory_reserved", f.get("cuda_max_memory_allocated")));
                r.peakMemory(mem / 1e9);
                if (mem > 0) s.putMax(step, StepSeries.MEMORY, mem / 1e9);
                s.put(step, StepSeries.LOSS, Num.human(f.get("lm_loss")));
                s.put(step, StepSeries.LR, Num.human(f.get("lr")));
                s.put(step, StepSeries.GRAD_NORM, Num.human(f.get("grad_norm")));
            }
        }
        double gbs = MegatronCore.medianOf(s, "global_batch_size");
        if (gbs >= 1 && gbs == Math.rint(gbs) && gbs <= Integer.MAX_VALUE) r.config.put("training.global_batch_size", (int) gbs);
        r.convention = "megatron-legacy";
        if (s.lastStep() >= 0) r.totalSteps = s.lastStep();
        if (s.size() == 0) r.warn("no nanotron iteration lines found");
        return r.build();
    }

    /** {@code tag: value | tag: value} split on {@code |} and the first {@code ": "}. */
    static Map<String, String> fields(String s) {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        int start = 0;
        for (int i = 0; i <= s.length(); i++) {
            if (i == s.length() || s.charAt(i) == '|') {
                String seg = s.substring(start, i).strip();
                start = i + 1;
                int c = seg.indexOf(": ");
                if (c > 0) out.putIfAbsent(seg.substring(0, c).strip(), seg.substring(c + 2).strip());
            }
        }
        return out;
    }
}
