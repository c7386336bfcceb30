package dev.trainadvisor.ingest;

import java.util.Map;

/**
 * InternLM / InternEvo logs (docs/logs.md (InternLM / InternEvo)): the {@code record_current_batch_training_metrics} line in all
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
 *
 * <p>History: tgs, the line's timestamp, {@code loss}, {@code lr}, {@code loss_scale}, {@code grad_norm} (a dict per
 * parameter group gives the groups' norm, sqrt of the sum of squares), skipped (0 on a metrics line, 1 for a
 * {@code skip parameter update at step N} line) and {@code fwd_bwd_time} as a timer of one rank (no fastest).
 * Configuration also from the launch line ({@code Distributed environment is initialized, data parallel size: 8,
 * pipeline parallel size: 1, tensor parallel size: 1}: parallel.dp/pp/tp) and the Data Info block
 * ({@code seq_len:}, {@code micro_num:}, {@code micro_bsz:}): training.seq_len, micro_batch_size (micro_bsz),
 * global_batch_size (micro_bsz x micro_num x dp, else tokens per step / seq_len).
 */
public final class InternEvoLog extends GuardedLogParser {
    public static final String FORMAT = "internevo";
    static final String MARKER = "record_current_batch_training_metrics";
    static final String SKIP = "skip parameter update at step";
    /** Marks a step whose skip line was counted. */
    static final String SKIP_MARK = "\u0000internevo-skip";

    public InternEvoLog() { super(FORMAT); }

    @Override
    double score(String text) {
        int[] c = new int[3];
        Lines.scan(text, line -> {
            if (payloadStart(line) >= 0) {
                if (line.contains(MARKER)) c[0]++;
                else c[1]++;
            } else if (line.contains(SKIP)) {
                c[2]++;
            }
            return c[0] == 0;                       // one metrics line decides
        });
        if (c[0] > 0) return 0.95;
        if (c[1] > 0) return 0.8;
        return c[2] > 0 ? 0.4 : 0;
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

    /** The keys {@link #read} uses; others are skipped without copying them (a parse runs at 100+ MB/s). */
    static final String[] KEYS = {"step", "tflops", "tgs (tokens/gpu/second)", "tgs (tokens per gpu per second)",
            "real_tgs", "fwd_bwd_time", "loss_scale", "micro_num", "num_consumed_tokens", "inf_nan_skip_batches", "loss",
            "lr", "grad_norm"};
    static final int STEP = 0, TFLOPS = 1, TGS = 2, TGS_WORDS = 3, REAL_TGS = 4, FWD_BWD = 5, LOSS_SCALE = 6, MICRO_NUM = 7,
            CONSUMED = 8, SKIPPED = 9, LOSS = 10, LR = 11, GRAD_NORM = 12;

    /**
     * The key=value pairs from {@code start} in one pass, for {@link #KEYS}: {@code at[2k], at[2k+1]} are the bounds of
     * the value of key k in {@code s} (the first of a key wins), -1 when absent. No map and no copies: the line is
     * the only string.
     */
    static int[] pairs(String s, int start) {
        int[] at = new int[2 * KEYS.length];
        java.util.Arrays.fill(at, -1);
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
            int k = key(s, ks, ke);
            if (j < n && (s.charAt(j) == '{' || s.charAt(j) == '[')) {
                j = closing(s, j);
            } else {
                while (j < n && s.charAt(j) != ' ' && s.charAt(j) != ',' && s.charAt(j) != '\t') j++;
            }
            if (k >= 0 && at[2 * k] < 0) {
                at[2 * k] = eq + 1;
                at[2 * k + 1] = j;
            }
            i = Math.max(j, eq + 1);
        }
        return at;
    }

    /** {@link #KEYS} by length: a line has twenty keys, and most have no wanted key of their length. */
    private static final int[][] KEYS_BY_LENGTH = byLength(KEYS);

    private static int[][] byLength(String[] keys) {
        int max = 0;
        for (String k : keys) max = Math.max(max, k.length());
        int[][] out = new int[max + 1][0];
        for (int k = 0; k < keys.length; k++) {
            int[] old = out[keys[k].length()];
            out[keys[k].length()] = java.util.Arrays.copyOf(old, old.length + 1);
            out[keys[k].length()][old.length] = k;
        }
        return out;
    }

    /** Which of {@link #KEYS} is {@code s[from, to)}, or -1. */
    private static int key(String s, int from, int to) {
        int len = to - from;
        if (len >= KEYS_BY_LENGTH.length) return -1;
        for (int k : KEYS_BY_LENGTH[len]) if (matches(s, from, KEYS[k])) return k;
        return -1;
    }

    /** {@code s} holds {@code key} at {@code from} (which fits); a loop the JIT inlines, cheaper than regionMatches. */
    private static boolean matches(String s, int from, String key) {
        for (int i = 0; i < key.length(); i++) if (s.charAt(from + i) != key.charAt(i)) return false;
        return true;
    }

    /** Num.parse of key k's value in {@code at} (see {@link #pairs}), NaN when absent. */
    private static double value(String s, int[] at, int k) {
        return at[2 * k] < 0 ? Double.NaN : Num.parse(s, at[2 * k], at[2 * k + 1]);
    }

    /** {@link Num#approx} of key k's value (history values: their 17th digit does not matter), NaN when absent. */
    private static double approx(String s, int[] at, int k) {
        return at[2 * k] < 0 ? Double.NaN : Num.approx(s, at[2 * k], at[2 * k + 1]);
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


    /**
     * The norm of {@code grad_norm}: a number, or the dict of one norm per parameter group
     * ({@code {'0_default': 87.3, '1_fp32': 0.0}}), whose groups together have the norm sqrt(sum of squares).
     */
    static double gradNorm(String s, int from, int to) {
        if (from < 0) return Double.NaN;
        if (to <= from || s.charAt(from) != '{') return Num.approx(s, from, to);
        double sum = 0;
        int found = 0;
        int i = from;
        while (true) {
            int colon = s.indexOf(':', i);
            if (colon < 0 || colon >= to) break;
            int end = colon + 1;
            while (end < to && s.charAt(end) != ',' && s.charAt(end) != '}') end++;
            int a = colon + 1;
            while (a < end && s.charAt(a) == ' ') a++;
            double v = Num.approx(s, a, end);
            if (!Double.isFinite(v)) return Double.NaN;
            sum += v * v;
            found++;
            i = end + 1;
        }
        return found == 0 ? Double.NaN : Math.sqrt(sum);
    }

    @Override
    ParsedLog read(LogSource log) {
        LogResult r = new LogResult(FORMAT);
        StepSeries s = r.series;
        boolean skipLinesSeen = false;
        double maxCumSkipped = Double.NaN;
        int lines = 0;
        long skipCount = 0;
        Setup setup = new Setup();
        try (LogSource.Pass pass = log.lines()) {
            for (String line : pass) {
                int start = payloadStart(line);
                if (start < 0) {
                    int k = line.indexOf(SKIP);
                    if (k >= 0) {
                        long step = Num.digitsAt(line, k + SKIP.length());
                        if (step >= 0) {
                            skipLinesSeen = true;
                            if (s.firstTime(step, SKIP_MARK)) skipCount++;       // once, whichever rank printed it
                            s.put(step, StepSeries.SKIPPED, 1);
                            s.timestamp(step, Stamp.at(line));
                        }
                    } else {
                        setup.line(line);
                    }
                    continue;
                }
                int[] p = pairs(line, start);
                double stepValue = value(line, p, STEP);
                if (!(stepValue >= 0) || stepValue != Math.rint(stepValue) || stepValue > 1e15) continue;
                long step = (long) stepValue;
                lines++;
                s.touch(step);
                s.timestamp(step, Stamp.at(line));
                s.putPositive(step, "tflops_per_gpu", value(line, p, TFLOPS), p[2 * TFLOPS] >= 0);
                int tgs = p[2 * TGS] >= 0 ? TGS : TGS_WORDS;
                s.putPositive(step, "tokens_per_gpu_per_s", value(line, p, tgs), p[2 * tgs] >= 0);
                double real = value(line, p, REAL_TGS);
                if (real > 0) s.put(step, "real_tokens_per_gpu_per_s", real);
                double fb = value(line, p, FWD_BWD);
                if (fb > 0) {
                    s.put(step, "fwd_bwd_time_s", fb);
                    s.timer(step, "fwd_bwd_time", Double.NaN, fb);      // printed by the logging rank only
                }
                double ls = value(line, p, LOSS_SCALE);
                if (ls > 0) s.put(step, "loss_scale", ls);
                double micro = value(line, p, MICRO_NUM);
                if (micro > 0) s.put(step, "micro_num", micro);
                double consumed = value(line, p, CONSUMED);
                if (consumed > 0) s.put(step, "consumed_tokens", consumed);
                double cum = value(line, p, SKIPPED);
                if (cum >= 0 && (Double.isNaN(maxCumSkipped) || cum > maxCumSkipped)) maxCumSkipped = cum;
                s.put(step, StepSeries.LOSS, approx(line, p, LOSS));
                s.put(step, StepSeries.LR, approx(line, p, LR));
                s.put(step, StepSeries.GRAD_NORM, gradNorm(line, p[2 * GRAD_NORM], p[2 * GRAD_NORM + 1]));
                s.put(step, StepSeries.SKIPPED, 0);                   // a metrics line is printed for updated steps only
            }
        }
        // tokens per step from consecutive num_consumed_tokens; micro_num and the token counts are not metrics
        long[] steps = s.steps();
        double[] consumed = s.remove("consumed_tokens"), micros = s.remove("micro_num");
        double[] perStep = new double[steps.length];
        int n = 0;
        long prev = -1;
        double prevTokens = Double.NaN;
        for (int i = 0; i < steps.length; i++) {
            double c = consumed[i];
            if (Double.isNaN(c)) continue;
            if (prev >= 0 && steps[i] > prev && c > prevTokens) perStep[n++] = (c - prevTokens) / (steps[i] - prev);
            prev = steps[i];
            prevTokens = c;
        }
        double tokensPerStep = Num.median(perStep, n);
        if (Double.isFinite(tokensPerStep)) r.extra.put("tokens_per_step", tokensPerStep);
        double micro = Num.median(micros, micros.length);
        if (micro >= 1 && micro == Math.rint(micro) && micro <= Integer.MAX_VALUE) r.config.put("training.micro_batches", (int) micro);
        setup.config(r.config, tokensPerStep);
        r.convention = "internevo";
        if (s.lastStep() >= 0) r.totalSteps = s.lastStep() + 1;
        double skipped = skipCount;
        if (Double.isFinite(maxCumSkipped)) skipped = Math.max(skipped, maxCumSkipped);
        if (lines > 0 || skipLinesSeen) r.skippedSteps = skipped;
        if (lines == 0) r.warn("no record_current_batch_training_metrics lines found");
        return r.build();
    }

    /**
     * What InternEvo prints before training: {@code Distributed environment is initialized, data parallel size: 8,
     * pipeline parallel size: 1, tensor parallel size: 1} (launch.py) and the Data Info block ({@code seq_len: 2048},
     * {@code micro_num: 4}, {@code micro_bsz: 2}; training_internlm.py's args check).
     */
    private static final class Setup {
        int dp = -1, pp = -1, tp = -1, seqLen = -1, microNum = -1, microBsz = -1;

        void line(String line) {
            int d = line.indexOf("Distributed environment is initialized");
            if (d >= 0) {
                dp = after(line, "data parallel size:", d);
                pp = after(line, "pipeline parallel size:", d);
                tp = after(line, "tensor parallel size:", d);
                return;
            }
            int at = line.lastIndexOf(" -- ");           // the message of the standard logger
            String m = (at >= 0 ? line.substring(at + 4) : line).strip();
            if (m.startsWith("seq_len: ")) seqLen = after(m, "seq_len:", 0);
            else if (m.startsWith("micro_num: ")) microNum = after(m, "micro_num:", 0);
            else if (m.startsWith("micro_bsz: ")) microBsz = after(m, "micro_bsz:", 0);
        }

        /** The positive integer after {@code key} (from {@code from}), or -1. */
        private static int after(String s, String key, int from) {
            int i = s.indexOf(key, from);
            if (i < 0) return -1;
            long v = Num.digitsAt(s, i + key.length());
            return v > 0 && v <= Integer.MAX_VALUE ? (int) v : -1;
        }

        /**
         * parallel.dp/pp/tp, training.seq_len, training.micro_batch_size (micro_bsz: packed sequences per micro-batch),
         * training.micro_batches (micro_num, when the metrics lines did not give it) and training.global_batch_size
         * (micro_bsz x micro_num x dp, else tokens per step / seq_len).
         */
        void config(Map<String, Object> c, double tokensPerStep) {
            if (dp > 0) c.put("parallel.dp", dp);
            if (pp > 0) c.put("parallel.pp", pp);
            if (tp > 0) c.put("parallel.tp", tp);
            if (seqLen > 0) c.put("training.seq_len", seqLen);
            if (microBsz > 0) c.put("training.micro_batch_size", microBsz);
            if (microNum > 0) c.putIfAbsent("training.micro_batches", microNum);
            Object micro = c.get("training.micro_batches");
            long global = -1;
            if (microBsz > 0 && micro instanceof Integer mn && dp > 0) global = (long) microBsz * mn * dp;
            else if (seqLen > 0 && tokensPerStep > 0 && tokensPerStep % seqLen == 0) global = (long) (tokensPerStep / seqLen);
            if (global > 0 && global <= Integer.MAX_VALUE) c.put("training.global_batch_size", (int) global);
        }
    }
}
