package dev.trainadvisor.ingest;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * InternLM / InternEvo logs (log-formats.md section 1): the {@code record_current_batch_training_metrics} line in all
 * three layouts (2023-07 comma-separated, with or without {@code tflops=}; 2023-09 onwards space-separated) and all
 * logger prefixes (standard {@code train.py:323 in ... --}, uniscale {@code [training_internlm.py, line 413, in ...] -
 * pid=N :}, DeepLink {@code [record_metrics.py, line 341, in ...] - pid=N :}).
 *
 * <p>The payload starts at the first {@code tflops=} (or {@code step=} in the pre-tflops format) after the function
 * name and is split into {@code key=value} pairs in one pass: a key runs to the next {@code =} (keys may hold spaces
 * and {@code /}: {@code tgs (tokens/gpu/second)}, {@code acc/en}); a value runs to the next space or comma, except
 * a {@code {...}} or {@code [...]} value (grad_norm dicts), which runs to its balanced closing bracket.
 *
 * <p>Metrics: {@code tflops} → tflops_per_gpu (convention {@code internevo}); {@code tgs (tokens/gpu/second)} (or
 * {@code tgs (tokens per gpu per second)}) → tokens_per_gpu_per_s; {@code fwd_bwd_time} → fwd_bwd_time_s;
 * {@code loss_scale} → loss_scale; skipped_steps = the larger of the cumulative {@code inf_nan_skip_batches} at its
 * largest and the number of distinct {@code skip parameter update at step N} lines (a skipped step prints no metrics
 * line); steps = the last step + 1 (steps count from 0). Configuration: training.micro_batches from
 * {@code micro_num}. Extra: real_tokens_per_gpu_per_s ({@code real_tgs}), tokens_per_step (the increase of
 * {@code num_consumed_tokens} per step, all DP ranks).
 */
public final class InternEvoLog implements LogParser {
    public static final String FORMAT = "internevo";
    static final String MARKER = "record_current_batch_training_metrics";
    static final String SKIP = "skip parameter update at step";

    @Override
    public String format() { return FORMAT; }

    @Override
    public double confidence(String text) {
        try {
            int[] c = new int[3];
            Lines.scan(text, line -> {
                if (payloadStart(line) >= 0) {
                    if (line.contains(MARKER)) c[0]++;
                    else c[1]++;
                } else if (line.contains(SKIP)) {
                    c[2]++;
                }
                return c[0] < 3;
            });
            if (c[0] > 0) return 0.95;
            if (c[1] > 0) return 0.8;
            return c[2] > 0 ? 0.4 : 0;
        } catch (RuntimeException e) {
            return 0;
        }
    }

    /**
     * Where the key=value payload starts: the first {@code tflops=} or {@code step=} after the function name; without
     * the function name, a line that holds {@code tgs (tokens} and {@code step=} (a paste without the logger prefix).
     * -1 if the line is not a metrics line.
     */
    static int payloadStart(String line) {
        int m = line.indexOf(MARKER);
        int from;
        if (m >= 0) {
            from = m + MARKER.length();
        } else {
            if (line.indexOf("tgs (tokens") < 0) return -1;
            from = 0;
        }
        int tf = Lines.indexOfWord(line, "tflops=", from);
        int st = Lines.indexOfWord(line, "step=", from);
        if (st < 0) return -1;
        return tf >= 0 && tf < st ? tf : st;
    }

    /** key=value pairs from {@code start}; the first value of a key wins. One pass. */
    /** The keys {@link #read} uses; others are skipped without copying them (a parse runs at 100+ MB/s). */
    static final java.util.Set<String> WANTED = java.util.Set.of("fwd_bwd_time", "inf_nan_skip_batches", "loss_scale",
            "micro_num", "num_consumed_tokens", "real_tgs", "step", "tflops", "tgs (tokens per gpu per second)",
            "tgs (tokens/gpu/second)");

    static Map<String, String> pairs(String s, int start) { return pairs(s, start, null); }

    /** key=value pairs from {@code start}; with {@code wanted}, only those keys are kept. */
    static Map<String, String> pairs(String s, int start, java.util.Set<String> wanted) {
        Map<String, String> out = new java.util.HashMap<>();
        int n = s.length();
        int i = start;
        while (i < n) {
            while (i < n && (s.charAt(i) == ' ' || s.charAt(i) == ',' || s.charAt(i) == '\t')) i++;
            int eq = s.indexOf('=', i);
            if (eq < 0) break;
            int j = eq + 1;
            int ks = i, ke = eq;
            while (ks < ke && Character.isWhitespace(s.charAt(ks))) ks++;
            while (ke > ks && Character.isWhitespace(s.charAt(ke - 1))) ke--;
            boolean keep = wanted == null || wantedKey(s, ks, ke, wanted);
            String key = keep ? s.substring(ks, ke) : "";
            if (j < n && (s.charAt(j) == '{' || s.charAt(j) == '[')) {
                j = closing(s, j);
            } else {
                while (j < n && s.charAt(j) != ' ' && s.charAt(j) != ',' && s.charAt(j) != '\t') j++;
            }
            if (keep && !key.isEmpty() && out.size() < 10_000) out.putIfAbsent(key, s.substring(eq + 1, j));
            i = Math.max(j, eq + 1);
        }
        return out;
    }

    private static boolean wantedKey(String s, int from, int to, java.util.Set<String> wanted) {
        int len = to - from;
        for (String w : wanted) if (w.length() == len && s.regionMatches(from, w, 0, len)) return true;
        return false;
    }

    /** Index just past the bracket that closes the one at {@code open}, or the end of the string. */
    private static int closing(String s, int open) {
        int depth = 0;
        for (int k = open; k < s.length(); k++) {
            char c = s.charAt(k);
            if (c == '{' || c == '[' || c == '(') depth++;
            else if (c == '}' || c == ']' || c == ')') {
                depth--;
                if (depth == 0) return k + 1;
            }
        }
        return s.length();
    }

    @Override
    public ParsedLog parse(String text) {
        try {
            return read(text);
        } catch (RuntimeException e) {
            return LogResult.failed(FORMAT, e);
        }
    }

    private static ParsedLog read(String text) {
        LogResult r = new LogResult(FORMAT);
        StepSeries s = r.series;
        java.util.Set<Long> skipLines = new java.util.HashSet<>();
        double maxCumSkipped = Double.NaN;
        long last = -1;
        int lines = 0;
        for (String line : Lines.of(text)) {
            int start = payloadStart(line);
            if (start < 0) {
                int k = line.indexOf(SKIP);
                if (k >= 0) {
                    long step = Num.digitsAt(line, k + SKIP.length());
                    if (step >= 0) {
                        skipLines.add(step);
                        s.touch(step);
                        last = Math.max(last, step);
                    }
                }
                continue;
            }
            Map<String, String> p = pairs(line, start, WANTED);
            double stepValue = Num.parse(p.get("step"));
            if (!(stepValue >= 0) || stepValue != Math.rint(stepValue) || stepValue > 1e15) continue;
            long step = (long) stepValue;
            lines++;
            s.touch(step);
            last = Math.max(last, step);
            double tflops = Num.parse(p.get("tflops"));
            if (tflops > 0) s.put(step, "tflops_per_gpu", tflops);
            String tgs = p.getOrDefault("tgs (tokens/gpu/second)", p.get("tgs (tokens per gpu per second)"));
            double t = Num.parse(tgs);
            if (t > 0) s.put(step, "tokens_per_gpu_per_s", t);
            double real = Num.parse(p.get("real_tgs"));
            if (real > 0) s.put(step, "real_tokens_per_gpu_per_s", real);
            double fb = Num.parse(p.get("fwd_bwd_time"));
            if (fb > 0) s.put(step, "fwd_bwd_time_s", fb);
            double ls = Num.parse(p.get("loss_scale"));
            if (ls > 0) s.put(step, "loss_scale", ls);
            double micro = Num.parse(p.get("micro_num"));
            if (micro > 0) s.put(step, "micro_num", micro);
            double consumed = Num.parse(p.get("num_consumed_tokens"));
            if (consumed > 0) s.put(step, "consumed_tokens", consumed);
            double cum = Num.parse(p.get("inf_nan_skip_batches"));
            if (cum >= 0 && (Double.isNaN(maxCumSkipped) || cum > maxCumSkipped)) maxCumSkipped = cum;
        }
        // tokens per step from consecutive num_consumed_tokens
        long[] prev = {-1};
        double[] prevTokens = {Double.NaN};
        java.util.List<Double> perStep = new java.util.ArrayList<>();
        java.util.List<Double> micros = new java.util.ArrayList<>();
        s.forEach((step, m) -> {
            Double c = m.remove("consumed_tokens");
            Double mn = m.remove("micro_num");
            if (mn != null) micros.add(mn);
            if (c == null) return;
            if (prev[0] >= 0 && step > prev[0] && c > prevTokens[0]) perStep.add((c - prevTokens[0]) / (step - prev[0]));
            prev[0] = step;
            prevTokens[0] = c;
        });
        double tokensPerStep = Num.median(perStep);
        if (Double.isFinite(tokensPerStep)) r.extra.put("tokens_per_step", tokensPerStep);
        double micro = Num.median(micros);
        if (micro >= 1 && micro == Math.rint(micro) && micro <= Integer.MAX_VALUE) r.config.put("training.micro_batches", (int) micro);
        r.convention = "internevo";
        if (last >= 0) r.totalSteps = last + 1;
        double skipped = skipLines.size();
        if (Double.isFinite(maxCumSkipped)) skipped = Math.max(skipped, maxCumSkipped);
        if (lines > 0 || !skipLines.isEmpty()) r.skippedSteps = skipped;
        if (lines == 0) r.warn("no record_current_batch_training_metrics lines found");
        return r.build();
    }
}
