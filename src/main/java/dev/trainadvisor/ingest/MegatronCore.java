package dev.trainadvisor.ingest;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What Megatron-LM and its forks print (docs/logs.md (Megatron-LM)): the {@code training_log} iteration line
 * in every version (classic {@code key: value |} and argonne's {@code key=value |}), the argument dump, the
 * {@code padded vocab} line, the {@code memory (MB)} line and both timer layouts. Shared by {@link MegatronLog},
 * {@link MegatronDeepSpeedLog} and {@link DeepSpeedLog}; single pass, no regular expressions.
 */
final class MegatronCore {
    private MegatronCore() {}

    /** Keys (normalized, see {@link #normalize}) that only Megatron-DeepSpeed's training_log prints. */
    static final List<String> MDS_KEYS = List.of("consumed tokens", "samples per second", "tflops",
            "tokens per gpu per second tgs", "actual seqlen", "curriculum seqlen", "random ltd reserved length");
    /** MB of report_memory are 2^20 bytes; run-file GB are 1e9 bytes. */
    static final double MIB_TO_GB = 1048576 / 1e9;

    /** The training_log keys read (normalized): those of {@link #MDS_KEYS} and those addIteration reads. */
    static final Segments FIELDS = new Segments("consumed tokens", "samples per second", "tflops",
            "tokens per gpu per second tgs", "actual seqlen", "curriculum seqlen", "random ltd reserved length",
            "elapsed time per iteration ms", "throughput per gpu tflop/s/gpu", "tgs tokens/gpu/second", "loss scale",
            "global batch size", "number of skipped iterations", "number of nan iterations", "lm loss", "learning rate",
            "grad norm");
    /** {@link #MDS_KEYS} as indexes of {@link #FIELDS}. */
    static final int[] MDS_FIELDS = MDS_KEYS.stream().mapToInt(FIELDS::index).toArray();
    static final int SAMPLES_PER_S = FIELDS.index("samples per second"), TFLOPS = FIELDS.index("tflops"),
            TGS = FIELDS.index("tokens per gpu per second tgs"), ACTUAL_SEQLEN = FIELDS.index("actual seqlen"),
            ELAPSED_MS = FIELDS.index("elapsed time per iteration ms"),
            THROUGHPUT = FIELDS.index("throughput per gpu tflop/s/gpu"), TGS_SLASH = FIELDS.index("tgs tokens/gpu/second"),
            LOSS_SCALE = FIELDS.index("loss scale"), GLOBAL_BATCH = FIELDS.index("global batch size"),
            SKIPPED = FIELDS.index("number of skipped iterations"), NAN = FIELDS.index("number of nan iterations"),
            LM_LOSS = FIELDS.index("lm loss"), LEARNING_RATE = FIELDS.index("learning rate"),
            GRAD_NORM = FIELDS.index("grad norm");

    /**
     * One training_log line: {@code fields} holds the bounds in {@code line} of the values of {@link #FIELDS} (see
     * {@link Segments}).
     */
    record Iteration(long iteration, long total, String line, int[] fields, String date, boolean fractionalTime,
                     boolean keyValue, double epochSeconds) {
        boolean megatronDeepSpeed() {
            if (keyValue) return true;
            for (int k : MDS_FIELDS) if (Segments.has(fields, k)) return true;
            return false;
        }

        boolean has(int key) { return Segments.has(fields, key); }

        /** The number the value of a key starts with, NaN when absent. */
        double first(int key) { return Segments.first(line, fields, key); }
    }

    /**
     * Everything read from one log, line by line ({@link #line}, then {@link #finish}): per-step values go to the series
     * the result reports (shared with {@link DeepSpeedLog}'s own lines); the rest is bounded (the argument dump is kept
     * up to {@link #MAX_ARGS} names).
     */
    static final class State {
        static final int MAX_ARGS = 4096;
        /** The column that marks a step whose iteration line was read (another rank's copy is then a duplicate). */
        static final String READ = "\u0000megatron-iteration";
        final StepSeries series;
        /** The argument dump, name to printed value. */
        final Map<String, String> args = new LinkedHashMap<>();
        int iterationLines;
        int mdsLines;
        boolean anyLoss;
        long lastIteration = -1;
        double skipped;
        double nanIterations;
        boolean skippedSeen;
        /** 1 when a version clue says Megatron core >= 0.12, 0 when it says older, -1 when nothing says. */
        int core012 = -1;
        String lastDate;
        int paddedVocab = -1;
        double peakMemoryGb = Double.NaN;
        boolean argsBlock;
        final List<String> warnings = new ArrayList<>();
        /** The timer block being read: its layout, and the timer whose "rank N:" lines follow (the "all" layout). */
        private int timerBlock;
        private String allRanksTimer;
        private double allMin = Double.NaN, allMax = Double.NaN;
        private int allRanks;
        private boolean inArgs;
        /** The timers seen, by their printed names. */
        private final PrintedNames<TimerSlot> slots;

        State(StepSeries series) {
            this.series = series;
            this.slots = new PrintedNames<>(printed -> slot(series, printed), 4 * StepSeries.MAX_TIMERS);
        }

        /** The timer printed as {@code line[from, to)}. */
        TimerSlot timerSlot(String line, int from, int to) {
            return slots.get(line, from, to);
        }

        /** One cleaned line of the log. */
        /** Megatron's (and Megatron-DeepSpeed's) line before it writes a checkpoint. */
        static final String SAVING = "saving checkpoint at iteration";

        void line(String line) {
            // the timer block: one timer per line until a line that is not one
            if (timerBlock != NONE) {
                if (timerBlockLine(this, line)) return;
                endTimerBlock(this);
            }
            // iteration lines, nearly all of a log, start with a space: they are read unstripped (no copy)
            int a = 0;
            while (Character.isWhitespace(line.charAt(a))) a++;        // a line from Lines is never blank
            if (line.startsWith("---", a) && line.contains("arguments")) {
                inArgs = !line.contains("end of arguments");
                argsBlock = true;
                return;
            }
            if (mayStartArgument(line.charAt(a)) && argumentLine(line.strip(), inArgs, args)) {
                if (args.size() > MAX_ARGS) args.remove(args.keySet().iterator().next());
                return;
            }
            int saving = line.indexOf(SAVING, a);
            if (saving >= 0) {
                // megatron/training/checkpointing.py save_checkpoint: 'saving checkpoint at iteration {:7d} to ...'
                int i = saving + SAVING.length();
                while (i < line.length() && line.charAt(i) == ' ') i++;
                int j = i;
                while (j < line.length() && j - i < 18 && Character.isDigit(line.charAt(j))) j++;
                if (j > i) series.event(Long.parseLong(line.substring(i, j)), dev.trainadvisor.history.StepHistory.Kind.CHECKPOINT);
                return;
            }
            Iteration it = iteration(line);
            if (it != null) {
                addIteration(this, it);
                return;
            }
            String s = line.strip();
            if (s.contains("memory (MB)")) {
                memoryLine(this, s);
                return;
            }
            if (s.contains("across ranks (ms)")) {
                timerBlock = s.startsWith("times across ranks") || s.contains(" times across ranks") ? ALL_RANKS : MIN_MAX;
                return;
            }
            int t = s.indexOf("time (ms)");
            if (t >= 0 && s.indexOf('|', t) > 0 && s.lastIndexOf("[Rank ", t) < 0) {
                // the older layout: one rank's timers on one line (DeepSpeed's "[Rank N] time (ms) |" is DeepSpeedLog's)
                for (Map.Entry<String, String> e : segments(s.substring(s.indexOf('|', t) + 1)).entrySet())
                    addTimer(this, e.getKey(), Double.NaN, Num.first(e.getValue()));
                return;
            }
            int pv = s.indexOf("padded vocab");
            if (pv >= 0) {
                int ns = s.indexOf("new size:", pv);
                if (ns >= 0) {
                    long v = Num.digitsAt(s, ns + 9);
                    if (v > 0 && v <= Integer.MAX_VALUE) paddedVocab = (int) v;
                }
                return;
            }
            versionClue(this, s);
        }

        /** After the last line. */
        void finish() {
            if (timerBlock != NONE) endTimerBlock(this);
        }
    }

    // ---------------------------------------------------------------- detection

    /**
     * What detection needs: iteration lines (all, and those in Megatron-DeepSpeed's layout), argument-dump lines
     * of {@link #KNOWN_ARGS},
     * whether the dump has DeepSpeed's arguments, DeepSpeed engine/timer/breakdown lines, DeepSpeed pipeline-engine
     * lines, and a flops-profiler header. Stops after 400 recognized lines.
     */
    record Census(int iterations, int mdsIterations, int argLines, boolean deepspeedArg, int dsLines, int pipeLines,
                  boolean profiler, int trainerDicts) {}

    /** Arguments every Megatron-family dump prints; detection counts only these (not any "name ... value" line). */
    static final java.util.Set<String> KNOWN_ARGS = java.util.Set.of("num_layers", "hidden_size", "num_attention_heads",
            "seq_length", "micro_batch_size", "global_batch_size", "tensor_model_parallel_size",
            "pipeline_model_parallel_size", "world_size", "data_parallel_size", "ffn_hidden_size", "max_position_embeddings",
            "make_vocab_size_divisible_by", "log_interval", "train_iters", "lr_decay_style", "params_dtype");

    /**
     * The census of {@code text}. Detection asks MegatronLog, MegatronDeepSpeedLog and DeepSpeedLog in turn about the
     * same sample, so the last census is kept (per thread: batch detection runs on every core) and reused for the same
     * string object; the weak reference does not keep a sample alive.
     */
    static Census census(String text) {
        LastCensus last = LAST_CENSUS.get();
        if (last != null && last.text().get() == text) return last.census();
        Census c = takeCensus(text);
        LAST_CENSUS.set(new LastCensus(new java.lang.ref.WeakReference<>(text), c));
        return c;
    }

    private record LastCensus(java.lang.ref.WeakReference<String> text, Census census) {}

    private static final ThreadLocal<LastCensus> LAST_CENSUS = new ThreadLocal<>();

    private static Census takeCensus(String text) {
        int[] c = new int[6];
        boolean[] profiler = new boolean[1];
        Map<String, String> args = new HashMap<>();
        boolean[] deepspeedArg = new boolean[1];
        Lines.scan(text, line -> {
            String s = line.strip();
            Iteration it = iteration(line);
            if (it != null) {
                c[0]++;
                if (it.megatronDeepSpeed()) c[1]++;
            } else if (argumentLine(s, false, args)) {
                if (KNOWN_ARGS.contains(s.substring(0, s.indexOf(' ')))) c[2]++;
                if ("True".equals(args.get("deepspeed")) || args.containsKey("deepspeed_config")
                        || args.containsKey("zero_stage")) deepspeedArg[0] = true;
                if (args.size() > 1000) args.clear();
            } else if (DeepSpeedLog.pipeStep(s) >= 0) {
                c[4]++;
            } else if (DeepSpeedLog.isDeepSpeedLine(s)) {
                c[3]++;
            } else if (s.indexOf("{'") >= 0) {
                Map<String, String> d = HfTrainerLog.dict(s);
                if (d != null && (d.containsKey("loss") || d.containsKey("train_runtime"))) c[5]++;
            }
            if (DeepSpeedLog.isProfilerHeader(s)) profiler[0] = true;
            return c[0] + c[3] + c[4] < 400;
        });
        return new Census(c[0], c[1], c[2], deepspeedArg[0], c[3], c[4], profiler[0], c[5]);
    }

    // ---------------------------------------------------------------- iteration line

    /** The training_log line in {@code line}, or null. {@code iteration N/M |} or argonne's {@code iteration= N/ M |}. */
    static Iteration iteration(String line) {
        int n = line.length();
        int from = 0;
        while (true) {
            int i = line.indexOf("iteration", from);
            if (i < 0) return null;
            from = i + 1;
            if (!Lines.wordAt(line, i)) continue;
            int j = i + 9;
            boolean eq = false;
            while (j < n && (line.charAt(j) == ' ' || line.charAt(j) == '=')) {
                if (line.charAt(j) == '=') eq = true;
                j++;
            }
            if (j == i + 9) continue;
            long iter = Num.digitsAt(line, j);
            if (iter < 0) continue;
            int k = Num.skipDigits(line, j);
            if (k >= n || line.charAt(k) != '/') continue;
            long total = Num.digitsAt(line, k + 1);
            if (total < 0) continue;
            int m = Num.skipDigits(line, k + 1);
            while (m < n && line.charAt(m) == ' ') m++;
            if (m >= n || line.charAt(m) != '|') continue;
            int[] fields = FIELDS.bounds();
            FIELDS.read(line, m + 1, n, fields);
            // the date of a "[yyyy-mm-dd hh:mm:ss(.ffffff)]" before "iteration"
            String date = null;
            boolean fraction = false;
            double epoch = Double.NaN;
            int b = line.indexOf('[');
            while (b >= 0 && b < i) {
                if (isDate(line, b + 1, i)) {
                    date = line.substring(b + 1, b + 11);
                    fraction = b + 20 < i && line.charAt(b + 20) == '.';
                    epoch = Stamp.at(line, b + 1, i);
                    break;
                }
                b = line.indexOf('[', b + 1);
            }
            return new Iteration(iter, total, line, fields, date, fraction, eq, epoch);
        }
    }

    /** {@code yyyy-mm-dd} at {@code at}, ending by {@code end}. */
    static boolean isDate(String s, int at, int end) {
        if (at + 10 > end) return false;
        for (int k = 0; k < 10; k++) {
            char c = s.charAt(at + k);
            boolean ok = (k == 4 || k == 7) ? c == '-' : c >= '0' && c <= '9';
            if (!ok) return false;
        }
        return true;
    }

    /** {@code key: value | key: value |} (or {@code key=value |}) into normalized keys; the first of a key wins. */
    static Map<String, String> segments(String s) {
        Map<String, String> out = new LinkedHashMap<>();
        int start = 0;
        for (int i = 0; i <= s.length(); i++) {
            if (i == s.length() || s.charAt(i) == '|') {
                String seg = s.substring(start, i).strip();
                start = i + 1;
                if (seg.isEmpty()) continue;
                int sep = seg.indexOf(": ");
                if (sep < 0) sep = seg.indexOf('=');
                if (sep < 0) sep = seg.indexOf(':');
                if (sep <= 0) continue;
                int valueAt = seg.charAt(sep) == ':' && sep + 1 < seg.length() && seg.charAt(sep + 1) == ' ' ? sep + 2 : sep + 1;
                out.putIfAbsent(normalize(seg.substring(0, sep)), seg.substring(Math.min(valueAt, seg.length())).strip());
            }
        }
        return out;
    }

    /** Lower case, {@code _ ( )} as spaces, runs of spaces as one: "elapsed_time_per_iteration_ms" and
     * "elapsed time per iteration (ms)" both give "elapsed time per iteration ms". */
    static String normalize(String key) {
        StringBuilder b = new StringBuilder(key.length());
        boolean space = true;
        for (int i = 0; i < key.length(); i++) {
            char c = Character.toLowerCase(key.charAt(i));
            if (c == '_' || c == '(' || c == ')' || Character.isWhitespace(c)) {
                if (!space) b.append(' ');
                space = true;
            } else {
                b.append(c);
                space = false;
            }
        }
        int len = b.length();
        if (len > 0 && b.charAt(len - 1) == ' ') b.setLength(len - 1);
        return b.toString();
    }

    private static void addIteration(State st, Iteration it) {
        long step = it.iteration();
        if (it.megatronDeepSpeed()) st.mdsLines++;
        if (!st.series.firstTime(step, State.READ)) return;        // the same iteration from another rank
        StepSeries series = st.series;
        st.iterationLines++;
        // the iterations this line covers (the log interval): the skipped counts are over them
        long covered = st.lastIteration >= 0 && step > st.lastIteration ? step - st.lastIteration : 1;
        st.lastIteration = Math.max(st.lastIteration, step);
        if (it.date() != null) {
            if (st.lastDate == null || it.date().compareTo(st.lastDate) > 0) st.lastDate = it.date();
            if (it.fractionalTime() && !it.keyValue()) st.core012 = 1;   // '.%f' timestamps: 2026-01 and later
        }
        series.timestamp(step, it.epochSeconds());
        double ms = it.first(ELAPSED_MS);
        series.putPositive(step, "step_time_s", ms / 1000, it.has(ELAPSED_MS));
        double tflops = it.has(THROUGHPUT) ? it.first(THROUGHPUT) : it.first(TFLOPS);
        series.putPositive(step, "tflops_per_gpu", tflops, it.has(THROUGHPUT) || it.has(TFLOPS));
        double tg = it.has(TGS) ? it.first(TGS) : it.first(TGS_SLASH);
        series.putPositive(step, "tokens_per_gpu_per_s", tg, it.has(TGS) || it.has(TGS_SLASH));
        double ls = it.first(LOSS_SCALE);
        if (ls > 0) series.put(step, "loss_scale", ls);
        double gbs = it.first(GLOBAL_BATCH);
        if (gbs > 0) {
            series.put(step, "global_batch_size", gbs);
            if (ms > 0) series.put(step, SAMPLES_PER_STEP_TIME, gbs / (ms / 1000));
        }
        double sps = it.first(SAMPLES_PER_S);
        if (sps > 0) series.put(step, "samples_per_s", sps);
        double seq = it.first(ACTUAL_SEQLEN);
        if (seq > 0) series.put(step, "actual_seqlen", seq);
        series.put(step, StepSeries.LOSS, it.first(LM_LOSS));
        series.put(step, StepSeries.LR, it.first(LEARNING_RATE));
        series.put(step, StepSeries.GRAD_NORM, it.first(GRAD_NORM));
        double skipped = it.first(SKIPPED);
        if (skipped >= 0) {
            st.skipped += skipped;
            st.skippedSeen = true;
        }
        double nan = it.first(NAN);
        if (nan >= 0) st.nanIterations += nan;
        if (skipped >= 0 || nan >= 0)
            series.put(step, StepSeries.SKIPPED, Math.min(1, (Math.max(0, skipped) + Math.max(0, nan)) / covered));
        if (it.has(LM_LOSS)) st.anyLoss = true;
    }

    /** Global batch / step time of each iteration (sequences per second), for tokens/GPU/s where none is printed. */
    static final String SAMPLES_PER_STEP_TIME = "\u0000megatron-batch-per-s";

    // ---------------------------------------------------------------- argument dump

    /** Whether an argument line can start with {@code c}: its name is letters, digits and underscores. */
    static boolean mayStartArgument(char c) {
        return Character.isLetterOrDigit(c) || c == '_';
    }

    /** {@code  hidden_size ..................................... 4096}; outside the dump block only with 3+ dots. */
    static boolean argumentLine(String s, boolean inBlock, Map<String, String> args) {
        int sp = s.indexOf(' ');
        if (sp <= 0) return false;
        for (int i = 0; i < sp; i++) {
            char c = s.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '_')) return false;
        }
        int d = sp + 1;
        while (d < s.length() && s.charAt(d) == '.') d++;
        int dots = d - sp - 1;
        if (dots < (inBlock ? 1 : 3) || d >= s.length() || s.charAt(d) != ' ') return false;
        args.putIfAbsent(s.substring(0, sp), s.substring(d + 1).strip());
        return true;
    }

    // ---------------------------------------------------------------- memory and timers

    private static final Segments MEMORY = new Segments("max reserved", "max allocated");

    /**
     * {@code [Rank N] (after K iterations) memory (MB) | ... | max reserved: M}: the peak over ranks and lines, and the
     * memory of iteration K in the history (the largest over the ranks that report it).
     */
    private static void memoryLine(State st, String s) {
        int at = s.indexOf("memory (MB)");
        int bar = s.indexOf('|', at);
        if (bar < 0) return;
        int[] f = MEMORY.bounds();
        MEMORY.read(s, bar + 1, s.length(), f);
        double mb = Segments.first(s, f, 0);
        if (!(mb > 0)) mb = Segments.first(s, f, 1);
        if (!(mb > 0)) return;
        double gb = mb * MIB_TO_GB;
        if (Double.isNaN(st.peakMemoryGb) || gb > st.peakMemoryGb) st.peakMemoryGb = gb;
        int after = s.lastIndexOf("(after ", at);
        long step = after < 0 ? st.lastIteration : Num.digitsAt(s, after + 7);
        if (step >= 0) st.series.putMaxIfSeen(step, StepSeries.MEMORY, gb);
    }

    /** Timer block layouts: none open, {@code (min, max) time across ranks (ms):}, {@code times across ranks (ms):}. */
    static final int NONE = 0, MIN_MAX = 1, ALL_RANKS = 2;

    /**
     * One line of a timer block, recorded; false when the line is not one (the block has ended). The {@code (min, max)}
     * layout prints {@code name ....: (min, max)} (or {@code name ....: max} with the max-only option); the
     * all-ranks layout prints {@code name:} and then {@code rank N: value} per rank.
     */
    static boolean timerBlockLine(State st, String line) {
        if (st.timerBlock == ALL_RANKS) {
            String s = line.strip();
            if (s.startsWith("rank ")) {
                int colon = s.indexOf(':');
                double v = colon < 0 ? Double.NaN : Num.first(s.substring(colon + 1));
                if (st.allRanksTimer == null || Double.isNaN(v)) return false;
                st.allRanks++;
                st.allMin = Double.isNaN(st.allMin) ? v : Math.min(st.allMin, v);
                st.allMax = Double.isNaN(st.allMax) ? v : Math.max(st.allMax, v);
                return true;
            }
            if (s.endsWith(":") && s.indexOf(' ') < 0 && s.length() > 1) {
                flushAllRanks(st);
                st.allRanksTimer = s.substring(0, s.length() - 1);
                return true;
            }
            return false;
        }
        return timerLine(st, line);
    }

    private static void flushAllRanks(State st) {
        if (st.allRanksTimer != null) {
            // one rank printed: its value is the slowest known, the fastest is not
            addTimer(st, st.allRanksTimer, st.allRanks > 1 ? st.allMin : Double.NaN, st.allMax);
        }
        st.allRanksTimer = null;
        st.allMin = st.allMax = Double.NaN;
        st.allRanks = 0;
    }

    private static void endTimerBlock(State st) {
        flushAllRanks(st);
        st.timerBlock = NONE;
    }

    /**
     * {@code     forward-backward ...............: (5000.12, 5001.34)} or {@code ...: 5001.34} (ms), recorded for the last
     * iteration; false when the line is not a timer. Read in place: a timer block has a dozen lines per iteration, and
     * the same names each time ({@link State#timerSlot}).
     */
    static boolean timerLine(State st, String line) {
        int n = line.length();
        int a = 0;
        while (a < n && Character.isWhitespace(line.charAt(a))) a++;
        int colon = line.lastIndexOf(':');
        if (colon <= a) return false;
        int sp = a;
        while (sp < colon && line.charAt(sp) != ' ' && line.charAt(sp) != '.') sp++;
        if (sp == a) return false;
        for (int i = sp; i < colon; i++) if (line.charAt(i) != ' ' && line.charAt(i) != '.') return false;
        int v = colon + 1, e = n;
        while (v < e && Character.isWhitespace(line.charAt(v))) v++;
        while (e > v && Character.isWhitespace(line.charAt(e - 1))) e--;
        double min = Double.NaN, max;
        if (e - v >= 2 && line.charAt(v) == '(' && line.charAt(e - 1) == ')') {
            int comma = line.indexOf(',', v);
            if (comma < 0 || comma >= e) {
                max = Num.first(line, v + 1, e - 1);
            } else {
                min = Num.first(line, v + 1, comma);
                max = Num.first(line, comma + 1, e - 1);
            }
        } else {
            max = Num.first(line, v, e);
        }
        if (Double.isNaN(max)) return false;
        if (st.lastIteration >= 0 && max >= 0) addTimer(st, st.timerSlot(line, a, sp), min, max);
        return true;
    }

    /** A timer as printed, its name in the history (lower case), its columns and which metric it gives. */
    record TimerSlot(StepSeries.Timer timer, int role) {}

    static final int OTHER = 0, FWD_BWD = 1, OPTIMIZER = 2, FWD = 3, BWD = 4;

    private static TimerSlot slot(StepSeries series, String printed) {
        String name = printed.strip().toLowerCase(Locale.ROOT);
        int role = switch (name) {
            case "forward-backward" -> FWD_BWD;
            case "optimizer" -> OPTIMIZER;
            case "forward-compute" -> FWD;
            case "backward-compute" -> BWD;
            default -> OTHER;
        };
        return new TimerSlot(series.timer(name), role);
    }

    /** A timer of one layout or the other, by its printed name. */
    private static void addTimer(State st, String printed, double minMs, double maxMs) {
        if (st.lastIteration < 0 || !(maxMs >= 0)) return;
        addTimer(st, st.timerSlot(printed, 0, printed.length()), minMs, maxMs);
    }

    /**
     * A timer of the last iteration (ms): kept in the history under its printed name (seconds), and forward-backward
     * (or forward-compute + backward-compute) and optimizer as the fwd_bwd_time_s and optimizer_time_s metrics (the
     * slowest rank).
     */
    private static void addTimer(State st, TimerSlot t, double minMs, double maxMs) {
        long step = st.lastIteration;
        st.series.timer(step, t.timer(), minMs >= 0 ? minMs / 1000 : Double.NaN, maxMs / 1000);
        switch (t.role()) {
            case FWD_BWD -> st.series.put(step, "fwd_bwd_time_s", maxMs / 1000);
            case OPTIMIZER -> st.series.put(step, "optimizer_time_s", maxMs / 1000);
            case FWD -> st.series.put(step, FORWARD, maxMs / 1000);
            case BWD -> st.series.put(step, BACKWARD, maxMs / 1000);
            default -> { }
        }
    }

    private static final String FORWARD = "\u0000megatron-forward", BACKWARD = "\u0000megatron-backward";

    // ---------------------------------------------------------------- version clues

    private static final String[] VERSION_MARKERS = {"core_r", "core_v", "megatron-core", "megatron_core",
            "megatron.core", "megatron core"};

    /** {@code core_r0.11.0}, {@code core_v0.12.0}, {@code megatron-core==0.13.1}, {@code Megatron-Core version: 0.12}. */
    private static void versionClue(State st, String s) {
        if (s.length() > 10_000 || (s.indexOf("ore") < 0 && s.indexOf("ORE") < 0)) return;
        String l = s.toLowerCase(Locale.ROOT);
        for (String marker : VERSION_MARKERS) {
            int at = l.indexOf(marker);
            if (at < 0) continue;
            int i = at + marker.length();
            while (i < l.length() && " =:v".indexOf(l.charAt(i)) >= 0) i++;
            if (l.startsWith("version", i)) {
                i += 7;
                while (i < l.length() && " =:v".indexOf(l.charAt(i)) >= 0) i++;
            }
            long major = Num.digitsAt(l, i);
            int j = Num.skipDigits(l, i);
            if (major < 0 || j >= l.length() || l.charAt(j) != '.') continue;
            long minor = Num.digitsAt(l, j + 1);
            if (minor < 0 || j + 1 >= l.length() || l.charAt(j + 1) == ' ') continue;
            st.core012 = major > 0 || minor >= 12 ? 1 : 0;
            return;
        }
    }

    // ---------------------------------------------------------------- configuration

    /** The run-file configuration from the argument dump and the padded-vocab line (run-file keys, docs/run-file.md). */
    static Map<String, Object> config(State st, Map<String, Object> extra) {
        Map<String, String> a = st.args;
        Map<String, Object> c = new LinkedHashMap<>();
        int layers = intArg(a, "num_layers");
        int hidden = intArg(a, "hidden_size");
        int heads = intArg(a, "num_attention_heads");
        put(c, "model.layers", layers);
        put(c, "model.hidden", hidden);
        put(c, "model.heads", heads);
        Boolean gqa = boolArg(a, "group_query_attention");
        int groups = intArg(a, "num_query_groups");
        if (Boolean.TRUE.equals(gqa) && groups > 0) put(c, "model.kv_heads", groups);
        else if (heads > 0 && (Boolean.FALSE.equals(gqa) || !a.isEmpty())) put(c, "model.kv_heads", heads);
        put(c, "model.ffn_hidden", intArg(a, "ffn_hidden_size"));
        int vocab = st.paddedVocab > 0 ? st.paddedVocab : intArg(a, "padded_vocab_size");
        if (vocab <= 0) vocab = intArg(a, "vocab_size");
        put(c, "model.vocab", vocab);
        Boolean swiglu = boolArg(a, "swiglu");
        if (swiglu != null) c.put("model.gated_mlp", swiglu);
        Boolean untie = boolArg(a, "untie_embeddings_and_output_weights");
        if (untie != null) c.put("model.tied_embeddings", !untie);
        int experts = intArg(a, "num_experts");
        if (experts > 1) {
            put(c, "model.moe.experts", experts);
            put(c, "model.moe.top_k", intArg(a, "moe_router_topk"));
            put(c, "model.moe.ffn_hidden", intArg(a, "moe_ffn_hidden_size"));
            put(c, "model.moe.every", intArg(a, "moe_layer_freq"));
        }

        int tp = intArg(a, "tensor_model_parallel_size");
        int pp = intArg(a, "pipeline_model_parallel_size");
        int cp = intArg(a, "context_parallel_size");
        put(c, "parallel.tp", tp);
        put(c, "parallel.pp", pp);
        put(c, "parallel.cp", cp);
        put(c, "parallel.ep", intArg(a, "expert_model_parallel_size"));
        int world = intArg(a, "world_size");
        int dp = intArg(a, "data_parallel_size");
        int mp = Math.max(1, tp) * Math.max(1, pp) * Math.max(1, cp);
        if (dp <= 0 && world > 0 && world % mp == 0) dp = world / mp;
        if (world <= 0 && dp > 0) world = dp * mp;
        put(c, "parallel.dp", dp);
        if (world > 0) extra.put("world_size", world);
        int vpp = intArg(a, "virtual_pipeline_model_parallel_size");
        int perVirtual = intArg(a, "num_layers_per_virtual_pipeline_stage");
        if (vpp <= 0 && perVirtual > 0 && layers > 0 && pp > 0 && layers % (pp * perVirtual) == 0)
            vpp = layers / (pp * perVirtual);
        if (vpp > 0) put(c, "parallel.virtual_stages", vpp);
        else if (a.containsKey("virtual_pipeline_model_parallel_size")) put(c, "parallel.virtual_stages", 1);
        Boolean sp = boolArg(a, "sequence_parallel");
        if (sp != null) c.put("parallel.sequence_parallel", sp);
        int zero = intArg(a, "zero_stage");                           // Megatron-DeepSpeed's --zero-stage
        Boolean fsdp = boolArg(a, "use_torch_fsdp2");
        Boolean distOpt = boolArg(a, "use_distributed_optimizer");
        if (Boolean.TRUE.equals(fsdp)) c.put("parallel.zero_stage", 3);
        else if (zero >= 0 && a.containsKey("zero_stage") && zero <= 3) c.put("parallel.zero_stage", zero);
        else if (distOpt != null) c.put("parallel.zero_stage", distOpt ? 1 : 0);
        // Megatron-LM's --use-tp-pp-dp-mapping numbers the pipeline stages inside each replica (initialize.py's order
        // 'tp-cp-ep-pp-dp'); without it, its default, the stages outermost, as the framework's profile has it
        if (Boolean.TRUE.equals(boolArg(a, "use_tp_pp_dp_mapping"))) c.put("parallel.rank_order", "tp-cp-pp-dp");
        Boolean ogr = boolArg(a, "overlap_grad_reduce");
        if (ogr != null) c.put("parallel.overlap_grad_reduce", ogr);
        Boolean opg = boolArg(a, "overlap_param_gather");
        if (opg != null) c.put("parallel.overlap_param_gather", opg);

        int seq = intArg(a, "seq_length");
        if (seq <= 0) {
            double actual = medianOf(st.series, "actual_seqlen");
            if (actual > 0) seq = (int) actual;
        }
        put(c, "training.seq_len", seq);
        int micro = intArg(a, "micro_batch_size");
        put(c, "training.micro_batch_size", micro);
        int global = intArg(a, "global_batch_size");
        if (global <= 0) {
            double printed = medianOf(st.series, "global_batch_size");     // the iteration lines' global batch size
            if (printed >= 1 && printed == Math.rint(printed) && printed <= Integer.MAX_VALUE) global = (int) printed;
        }
        put(c, "training.global_batch_size", global);
        if (global > 0 && micro > 0 && dp > 0) {
            if (global % (micro * dp) == 0) put(c, "training.micro_batches", global / (micro * dp));
            else st.warnings.add("global_batch_size " + global + " is not a multiple of micro_batch_size x dp ("
                    + micro + " x " + dp + "); micro_batches not set");
        }
        String recompute = recompute(a);
        if (recompute != null) c.put("training.recompute", recompute);
        String precision = precision(a);
        if (precision != null) c.put("training.precision", precision);
        Boolean flash = boolArg(a, "use_flash_attn");
        if (flash != null) c.put("training.flash_attention", flash);
        return c;
    }

    private static String recompute(Map<String, String> a) {
        String g = a.get("recompute_granularity");
        if (g != null && (g.equalsIgnoreCase("full") || g.equalsIgnoreCase("selective"))) return g.toLowerCase(Locale.ROOT);
        if (Boolean.TRUE.equals(boolArg(a, "checkpoint_activations"))) return "full";
        if (Boolean.TRUE.equals(boolArg(a, "recompute_activations"))) return "selective";
        String method = a.get("activations_checkpoint_method");
        if (method != null && !method.equals("None")) return "full";
        return a.containsKey("recompute_granularity") || a.containsKey("checkpoint_activations") ? "none" : null;
    }

    private static String precision(Map<String, String> a) {
        String fp8 = a.get("fp8");
        if (fp8 != null && !fp8.equals("None") && !fp8.equals("False")) return "fp8";
        if (Boolean.TRUE.equals(boolArg(a, "bf16"))) return "bf16";
        if (Boolean.TRUE.equals(boolArg(a, "fp16"))) return "fp16";
        String dtype = a.get("params_dtype");
        if (dtype != null) {
            if (dtype.contains("bfloat16")) return "bf16";
            if (dtype.contains("float16")) return "fp16";
            if (dtype.contains("float32")) return "fp32";
        }
        return a.containsKey("bf16") || a.containsKey("fp16") ? "fp32" : null;
    }

    static double medianOf(StepSeries s, String key) {
        double[] v = s.values(key);
        return Num.median(v, v.length);
    }

    private static void put(Map<String, Object> c, String key, int v) {
        if (v > 0) c.put(key, v);
    }

    static int intArg(Map<String, String> a, String name) {
        String v = a.get(name);
        return v == null ? -1 : Num.positiveInt(v);
    }

    static Boolean boolArg(Map<String, String> a, String name) {
        String v = a.get(name);
        if (v == null) return null;
        if (v.equals("True") || v.equals("true")) return Boolean.TRUE;
        if (v.equals("False") || v.equals("false") || v.equals("None")) return Boolean.FALSE;
        return null;
    }

    /**
     * Tokens/GPU/s derived where the log does not print them: global batch x seq_len / (step time x world size), per
     * step, when all three are known.
     */
    static void deriveTokens(StepSeries series, Map<String, Object> config, Map<String, Object> extra) {
        Object seq = config.get("training.seq_len");
        Object world = extra.get("world_size");
        if (seq instanceof Integer s && world instanceof Integer w && s > 0 && w > 0)
            series.derive("tokens_per_gpu_per_s", SAMPLES_PER_STEP_TIME, (double) s / w);
        series.remove(SAMPLES_PER_STEP_TIME);
    }

    /** Fills a result from the state: per-step values, memory, skipped iterations, configuration. */
    static void fill(State st, LogResult r) {
        r.config.putAll(config(st, r.extra));
        deriveTokens(st.series, r.config, r.extra);
        st.series.fallbackSum("fwd_bwd_time_s", FORWARD, BACKWARD);
        r.peakMemory(st.peakMemoryGb);
        if (st.lastIteration >= 0) r.totalSteps = st.lastIteration;
        if (st.skippedSeen) r.skippedSteps = st.skipped;
        if (st.nanIterations > 0) r.extra.put("nan_iterations", st.nanIterations);
        st.warnings.forEach(r::warn);
        if (st.iterationLines > 0 && !st.anyLoss && st.skippedSeen && st.skipped >= st.iterationLines)
            r.warn("every logged iteration was skipped (no lm loss printed, " + fmt(st.skipped)
                    + " skipped iterations): the loss scaler is still searching, timings are not steady-state");
    }

    static String fmt(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }
}
