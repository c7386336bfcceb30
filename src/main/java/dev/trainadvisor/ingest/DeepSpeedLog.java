package dev.trainadvisor.ingest;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * DeepSpeed logs (docs/logs.md (DeepSpeed)): the engine's {@code [Rank 0] step=N, skipped=K, lr=[...]}
 * line, the {@code wall_clock_breakdown} timers ({@code time (ms) | fwd: | bwd: | step:}, or the
 * {@code *_microstep} line), the ThroughputTimer ({@code RunningAvgSamplesPerSec=, CurrSamplesPerSec=,
 * MaxMemAllocated=GB}, and the legacy {@code SamplesPerSec=}), the pipeline engine's
 * {@code steps: N loss: X iter time (s): T samples/sec: S}, and the flops profiler summary.
 *
 * <p>Metrics: fwd_bwd_time_s = fwd + bwd, optimizer_time_s = step of the breakdown line (ms; the microstep line when
 * that is all there is); step_time_s = the pipeline engine's {@code iter time (s)}, or the profiler's
 * {@code iter latency}; peak_memory_gb = the largest {@code MaxMemAllocated} (GiB x 1.073741824); skipped_steps =
 * the engine's cumulative {@code skipped} at the last step; steps = the last step.
 *
 * <p>Not used as throughput: the ThroughputTimer's samples/s. With gradient accumulation it times only the last
 * micro-batch plus the optimizer step (section 0.4: 74.7 samples/s where the iteration gives 15.9); its median goes
 * to extra as timer_samples_per_s with a warning. The flops profiler's TFLOPS are measured by module hooks, not by a
 * formula of a FlopsConvention, so they go to extra (profiler_tflops_per_gpu), not to tflops_per_gpu.
 *
 * <p>DeepSpeed usually runs under Megatron-DeepSpeed, whose iteration lines are in the same log (deepspeed-1.log): they
 * are read as {@link MegatronDeepSpeedLog} does (step time, tokens/GPU/s, TFLOPs with convention
 * {@code megatron-deepspeed}, loss scale, argument dump) and merged by step. Detection labels such a log
 * "deepspeed" when its DeepSpeed engine, timer and breakdown lines outnumber its iteration lines (the engine alone
 * prints one step line per iteration), else "megatron-deepspeed"; the metrics are the same either way. skipped_steps
 * is then the larger of the engine's cumulative count and the sum of the iteration lines' counts (under the pipeline
 * engine Megatron-DeepSpeed prints 0 skipped iterations while the engine counts its overflow skips). A Hugging Face
 * Trainer run on DeepSpeed (Trainer dicts and engine lines) is left to {@link HfTrainerLog} (confidence 0.85 here).
 *
 * <p>History: the engine line's learning rate (the first group's), skipped (the increase of its cumulative count per
 * step) and timestamp; the pipeline engine's loss; the ThroughputTimer's MaxMemAllocated for its global_step; every
 * {@code [Rank N] time (ms) | name: value} timer under its printed name, for the last engine step before it (ZeRO's
 * optimizer_* timers print before their step's engine line, so they land on the step before), the fastest and slowest
 * over the ranks that print that step, or one rank's value as the slowest when only one prints. Configuration from
 * DeepSpeed's configuration print ({@code train_batch_size}, {@code train_micro_batch_size_per_gpu},
 * {@code gradient_accumulation_steps}, {@code zero_optimization_stage}, {@code bfloat16_enabled} / {@code fp16_enabled})
 * and the engine's {@code Creating ... ZeRO stage N optimizer}; they win over Megatron-DeepSpeed's arguments (the
 * engine says what it runs).
 */
public final class DeepSpeedLog extends GuardedLogParser {
    public static final String FORMAT = "deepspeed";
    static final double GIB_TO_GB = 1.073741824;

    public DeepSpeedLog() { super(FORMAT); }

    @Override
    double score(String text) {
        MegatronCore.Census c = MegatronCore.census(text);
        if (c.profiler()) return 0.95;
        if (c.dsLines() + c.pipeLines() == 0) return 0;
        // the Hugging Face Trainer run on DeepSpeed: the Trainer's dicts say more than the engine's lines
        if (c.mdsIterations() == 0) return c.trainerDicts() > 0 ? 0.85 : 0.95;
        // under Megatron-DeepSpeed the engine prints one step line per iteration line: the log is DeepSpeed's
        // only when DeepSpeed prints more (timers, wall-clock breakdown), as in deepspeed-1.log
        return c.dsLines() > c.mdsIterations() ? 0.95 : 0.85;
    }

    /** An engine, ThroughputTimer or wall-clock breakdown line (pipeline-engine lines: {@link #pipeStep}). */
    static boolean isDeepSpeedLine(String s) {
        if (engineStep(s) >= 0) return true;
        if (s.contains("SamplesPerSec=")) return true;
        int t = s.indexOf("time (ms)");
        if (t >= 0 && (s.indexOf("fwd_microstep", t) > 0 || s.indexOf("fwd:", t) > 0 || s.indexOf("bwd:", t) > 0
                || s.indexOf("optimizer_allgather", t) > 0 || s.indexOf("optimizer_step", t) > 0)) return true;
        return false;
    }

    /** {@code ------- DeepSpeed Flops Profiler -------} (not the engine's "Flops Profiler Enabled: False"). */
    static boolean isProfilerHeader(String s) {
        return s.contains("DeepSpeed Flops Profiler") && s.contains("---");
    }

    /** N of {@code step=N, skipped=}, or -1. */
    static long engineStep(String s) {
        int i = Lines.indexOfWord(s, "step=");
        while (i >= 0) {
            long v = Num.digitsAt(s, i + 5);
            int j = Num.skipDigits(s, i + 5);
            if (v >= 0 && s.startsWith(", skipped=", j)) return v;
            i = Lines.indexOfWord(s, "step=", i + 1);
        }
        return -1;
    }

    /** N of {@code steps: N loss: ... iter time (s): ...}, or -1. */
    static long pipeStep(String s) {
        int i = Lines.indexOfWord(s, "steps: ");
        if (i < 0 || s.indexOf("iter time (s):", i) < 0) return -1;
        return Num.digitsAt(s, i + 7);
    }

    @Override
    ParsedLog read(LogSource log) {
        return read(log, FORMAT);
    }

    /**
     * DeepSpeed's own values that Megatron-DeepSpeed's iteration lines and timers may also give: kept apart and used
     * only for the steps Megatron's lines leave without one (the framework's own iteration time wins).
     */
    static final String DS_STEP_TIME = "\u0000ds-step_time_s", DS_SAMPLES = "\u0000ds-samples_per_s",
            DS_FWD_BWD = "\u0000ds-fwd_bwd_time_s", DS_OPTIMIZER = "\u0000ds-optimizer_time_s";

    /** Reads DeepSpeed's lines and Megatron-DeepSpeed's in one pass; {@code format} labels the result. */
    static ParsedLog read(LogSource log, String format) {
        LogResult r = new LogResult(format);
        StepSeries series = r.series;
        MegatronCore.State st = new MegatronCore.State(series);
        Engine e = new Engine(series, r);
        try (LogSource.Pass lines = log.lines()) {
            for (String line : lines) if (!e.line(line)) st.line(line);     // Megatron's lines are not DeepSpeed's
        }
        st.finish();
        e.finish();
        // Megatron-DeepSpeed lines in the same log: the framework's own iteration time, tgs, TFLOPs, dump
        if (st.iterationLines > 0 || !st.args.isEmpty() || !Double.isNaN(st.peakMemoryGb)) MegatronDeepSpeedLog.fill(st, r);
        series.fallback("step_time_s", DS_STEP_TIME);
        series.fallback("samples_per_s", DS_SAMPLES);
        series.fallbackSum(DS_FWD_BWD, MICRO_FWD, MICRO_BWD);
        series.fallback(DS_OPTIMIZER, MICRO_OPT);
        series.fallback("fwd_bwd_time_s", DS_FWD_BWD);
        series.fallback("optimizer_time_s", DS_OPTIMIZER);
        e.config.forEach(r.config::put);                 // the engine that runs says best what it runs
        long lastStep = e.lastStep;
        if (lastStep >= 0) r.totalSteps = Double.isNaN(r.totalSteps) ? lastStep : Math.max(r.totalSteps, lastStep);
        if (!Double.isNaN(e.skippedCum))
            r.skippedSteps = Double.isNaN(r.skippedSteps) ? e.skippedCum : Math.max(r.skippedSteps, e.skippedCum);
        if (format.equals(FORMAT) && series.size() == 0) r.warn("no DeepSpeed step, timer or profiler lines found");
        if (!format.equals(FORMAT) && st.iterationLines == 0) r.warn("no training_log iteration lines found");
        return r.build();
    }

    /**
     * What deepspeed.initialize prints on rank 0 before anything else, in every release since 2020 (deepspeed/__init__.py:
     * {@code log_dist("DeepSpeed info: version={}, git-hash={}, git-branch={}".format(__version__, ...), ranks=[0])}):
     * the DeepSpeed release that runs, which chooses its profile's version (knowledge-base/frameworks/deepspeed.json,
     * each version's from_release).
     */
    static final String RELEASE_LINE = "DeepSpeed info: version=";

    /** The key of the DeepSpeed release in {@link ParsedLog#extra()}. */
    public static final String RELEASE = "deepspeed_version";

    /** The release printed at {@code at}: digits and dots up to the comma ("0.12.4", "0.14.1+3dd3d514" gives 0.14.1), or null. */
    static String release(String s, int at) {
        int end = at;
        while (end < s.length() && (Character.isDigit(s.charAt(end)) || s.charAt(end) == '.')) end++;
        String v = s.substring(at, end);
        while (v.endsWith(".")) v = v.substring(0, v.length() - 1);
        return v.isEmpty() || !Character.isDigit(v.charAt(0)) ? null : v;
    }

    private static final String MICRO_FWD = "\u0000ds-micro-fwd", MICRO_BWD = "\u0000ds-micro-bwd",
            MICRO_OPT = "\u0000ds-micro-opt";

    /** DeepSpeed's own lines, one at a time. */
    private static final class Engine {
        final StepSeries series;
        final LogResult r;
        final java.util.Map<String, Object> config = new LinkedHashMap<>();
        final java.util.Map<String, String> printed = new LinkedHashMap<>();
        long lastStep = -1;
        double skippedCum = Double.NaN;
        private double prevSkipped = Double.NaN;
        private long prevSkipStep = -1;
        private boolean inProfile;
        private long profileStep = -1;
        private final Map<String, Double> profile = new LinkedHashMap<>();
        /** The step the breakdown timers in the slots belong to. */
        private long timerStep = -1;
        private boolean timerSeen;

        Engine(StepSeries series, LogResult r) {
            this.series = series;
            this.r = r;
            this.slots = new PrintedNames<>(name -> new Slot(name, series.timer(name)), 4 * StepSeries.MAX_TIMERS);
        }

        /** One line; true when it is DeepSpeed's (Megatron-DeepSpeed's reader need not see it). */
        boolean line(String line) {
            String s = line.strip();
            int info = s.indexOf(RELEASE_LINE);
            if (info >= 0) {
                String release = release(s, info + RELEASE_LINE.length());
                if (release != null) r.extra.putIfAbsent(RELEASE, release);
                return true;
            }
            if (isProfilerHeader(s)) {
                inProfile = true;
                return true;
            }
            if (inProfile) {
                int at = s.indexOf("Profile Summary at step");
                if (at >= 0) {
                    profileStep = Num.digitsAt(s, at + 23);
                    return true;
                }
                if (s.startsWith("-----") || s.startsWith("Aggregated Profile") || s.startsWith("Detailed Profile")) {
                    if (!profile.isEmpty()) inProfile = false;
                    return true;
                }
                profileLine(s, profile, r);          // and read on: a summary cut short leaves the block open
            }
            long step = engineStep(s);
            if (step >= 0) {
                engineLine(s, step);
                return true;
            }
            int sps = s.indexOf("SamplesPerSec=");
            if (sps >= 0) {
                timerLine(s, series, lastStep, r);
                timerSeen = true;
                return true;
            }
            int t = s.indexOf("time (ms)");
            if (t >= 0 && s.indexOf('|', t) > 0 && s.lastIndexOf("[Rank ", t) >= 0) {
                if (lastStep >= 0) breakdown(s, t);
                return true;
            }
            long pipe = pipeStep(s);
            if (pipe >= 0) {
                series.touch(pipe);
                lastStep = Math.max(lastStep, pipe);
                int it = s.indexOf("iter time (s):");
                double sec = Num.first(s.substring(it + 14));
                if (sec > 0) series.put(pipe, DS_STEP_TIME, sec);
                int sp = s.indexOf("samples/sec:");
                if (sp >= 0) {
                    double v = Num.first(s.substring(sp + 12));
                    if (v > 0) series.put(pipe, DS_SAMPLES, v);
                }
                int loss = s.indexOf(" loss: ");
                if (loss >= 0) series.put(pipe, StepSeries.LOSS, Num.first(s.substring(loss + 7)));
                return true;
            }
            return configLine(s);
        }

        /** {@code [Rank 0] step=N, skipped=K, lr=[...], mom=[...]}: the step, its time, learning rate and skips. */
        private void engineLine(String s, long step) {
            series.touch(step);
            lastStep = Math.max(lastStep, step);
            series.timestamp(step, Stamp.at(s));
            int k = s.indexOf(", skipped=");
            long sk = Num.digitsAt(s, k + 10);
            if (sk >= 0) {
                if (Double.isNaN(skippedCum) || sk > skippedCum) skippedCum = sk;
                // the count is cumulative: a step's share is its increase over the steps since the previous line
                if (!Double.isNaN(prevSkipped) && step > prevSkipStep)
                    series.put(step, StepSeries.SKIPPED, Math.max(0, Math.min(1, (sk - prevSkipped) / (step - prevSkipStep))));
                else if (sk == 0) series.put(step, StepSeries.SKIPPED, 0);
                if (step > prevSkipStep) {
                    prevSkipped = sk;
                    prevSkipStep = step;
                }
            }
            int lr = s.indexOf("lr=[", k);
            if (lr >= 0) {
                int end = lr + 4;
                while (end < s.length() && s.charAt(end) != ',' && s.charAt(end) != ']') end++;
                series.put(step, StepSeries.LR, Num.parse(s, lr + 4, end));
            }
        }

        /**
         * A {@code time (ms) | name: value | ...} line of rank N: fwd + bwd and step to the metrics (the plain line wins
         * over the {@code *_microstep} one), every timer to the history, the fastest and slowest over the ranks that
         * print the same step. Read in place: the names come back every step ({@link PrintedNames}).
         */
        private void breakdown(String s, int t) {
            if (lastStep != timerStep) flushTimers();
            timerStep = lastStep;
            int rank = rank(s);
            double[] v = new double[ROLES];
            java.util.Arrays.fill(v, Double.NaN);
            int n = s.length();
            int i = s.indexOf('|', t) + 1;
            while (i > 0 && i < n) {
                int bar = s.indexOf('|', i);
                int end = bar < 0 ? n : bar;
                int colon = s.indexOf(':', i);
                if (colon > i && colon < end) {
                    int a = i, b = colon;
                    while (a < b && s.charAt(a) == ' ') a++;
                    while (b > a && s.charAt(b - 1) == ' ') b--;
                    double ms = Num.first(s, colon + 1, end);
                    if (b > a && ms >= 0) {
                        Slot slot = slots.get(s, a, b);
                        slot.add(ms, rank);
                        if (slot.role != OTHER && Double.isNaN(v[slot.role])) v[slot.role] = ms;
                    }
                }
                i = end + 1;
            }
            if (v[FWD] >= 0 && v[BWD] >= 0) series.put(lastStep, DS_FWD_BWD, (v[FWD] + v[BWD]) / 1000);
            if (v[STEP] >= 0) series.put(lastStep, DS_OPTIMIZER, v[STEP] / 1000);
            if (v[FWD_MICRO] >= 0 && v[BWD_MICRO] >= 0) {
                series.put(lastStep, MICRO_FWD, v[FWD_MICRO] / 1000);
                series.put(lastStep, MICRO_BWD, v[BWD_MICRO] / 1000);
            }
            if (v[STEP_MICRO] >= 0) series.put(lastStep, MICRO_OPT, v[STEP_MICRO] / 1000);
        }

        static final int OTHER = 0, FWD = 1, BWD = 2, STEP = 3, FWD_MICRO = 4, BWD_MICRO = 5, STEP_MICRO = 6, ROLES = 7;

        /** A breakdown timer as printed, and what the ranks that printed it for {@link #timerStep} said. */
        private static final class Slot {
            final StepSeries.Timer timer;
            final int role;
            double min = Double.NaN, max = Double.NaN;
            int rank;
            boolean ranks;

            Slot(String printed, StepSeries.Timer timer) {
                this.timer = timer;
                this.role = switch (printed) {
                    case "fwd" -> FWD;
                    case "bwd" -> BWD;
                    case "step" -> STEP;
                    case "fwd_microstep" -> FWD_MICRO;
                    case "bwd_microstep" -> BWD_MICRO;
                    case "step_microstep" -> STEP_MICRO;
                    default -> OTHER;
                };
            }

            void add(double ms, int r) {
                if (Double.isNaN(max)) {
                    min = max = ms;
                    rank = r;
                } else {
                    min = Math.min(min, ms);
                    max = Math.max(max, ms);
                    if (r != rank) ranks = true;
                }
            }
        }

        private final PrintedNames<Slot> slots;

        /** The timers of {@link #timerStep} into the history: over ranks when two or more printed, else one rank's. */
        private void flushTimers() {
            for (Slot t : slots.values()) {
                if (Double.isNaN(t.max)) continue;
                series.timer(timerStep, t.timer, t.ranks ? t.min / 1000 : Double.NaN, t.max / 1000);
                t.min = t.max = Double.NaN;
                t.ranks = false;
            }
        }

        /** N of {@code [Rank N]}, or -1. */
        private static int rank(String s) {
            int i = s.indexOf("[Rank ");
            long v = i < 0 ? -1 : Num.digitsAt(s, i + 6);
            return v < 0 || v > Integer.MAX_VALUE ? -1 : (int) v;
        }

        /**
         * DeepSpeed's configuration print ({@code [config.py:N:print]   train_batch_size ....... 256}) and the engine's
         * {@code Creating fp16 ZeRO stage 2 optimizer}.
         */
        private boolean configLine(String s) {
            int pr = s.indexOf(":print]");
            if (pr >= 0) {
                // "  name ........ value"; a name of 29 characters or more has no dots: "  name  value"
                String rest = s.substring(pr + 7).strip();
                int e = 0;
                while (e < rest.length() && (Character.isLetterOrDigit(rest.charAt(e)) || rest.charAt(e) == '_')) e++;
                int v = e;
                while (v < rest.length() && (rest.charAt(v) == ' ' || rest.charAt(v) == '.')) v++;
                if (e > 0 && v > e && v < rest.length() && printed.size() < 1000)
                    printed.putIfAbsent(rest.substring(0, e), rest.substring(v).strip());
                return true;
            }
            int z = s.indexOf("ZeRO stage ");
            if (z < 0) z = s.indexOf("ZeRO Stage ");
            if (z >= 0) {
                long stage = Num.digitsAt(s, z + 11);
                if (stage >= 0 && stage <= 3) config.putIfAbsent("parallel.zero_stage", (int) stage);
            }
            return false;
        }

        void finish() {
            flushTimers();
            if (timerSeen) r.warn(TIMER_WARNING);
            if (!profile.isEmpty()) {
                Double fb = profile.remove("profiler_fwd_bwd_tflops_per_gpu");
                if (fb != null) profile.putIfAbsent("profiler_tflops_per_gpu", fb);
                long step = profileStep >= 0 ? profileStep : Math.max(0, lastStep);
                series.touch(step);
                profile.forEach((k, v) -> series.put(step, switch (k) {
                    case "step_time_s" -> DS_STEP_TIME;
                    case "samples_per_s" -> DS_SAMPLES;
                    case "fwd_bwd_time_s" -> DS_FWD_BWD;
                    case "optimizer_time_s" -> DS_OPTIMIZER;
                    default -> k;
                }, v));
                lastStep = Math.max(lastStep, step);
            }
            int global = MegatronCore.intArg(printed, "train_batch_size");
            if (global > 0) config.put("training.global_batch_size", global);
            int micro = MegatronCore.intArg(printed, "train_micro_batch_size_per_gpu");
            if (micro > 0) config.put("training.micro_batch_size", micro);
            int accumulation = MegatronCore.intArg(printed, "gradient_accumulation_steps");
            if (accumulation > 0) config.put("training.micro_batches", accumulation);
            double stage = Num.parse(printed.get("zero_optimization_stage"));
            if (stage == 0 || stage == 1 || stage == 2 || stage == 3) config.put("parallel.zero_stage", (int) stage);
            offload(printed.get("zero_config"), config);
            Boolean bf16 = MegatronCore.boolArg(printed, "bfloat16_enabled");
            if (bf16 == null) bf16 = MegatronCore.boolArg(printed, "bf16_enabled");
            Boolean fp16 = MegatronCore.boolArg(printed, "fp16_enabled");
            if (Boolean.TRUE.equals(bf16)) config.put("training.precision", "bf16");
            else if (Boolean.TRUE.equals(fp16)) config.put("training.precision", "fp16");
            else if (bf16 != null && fp16 != null) config.put("training.precision", "fp32");
        }
    }

    /**
     * The offload DeepSpeed's {@code zero_config} print states (the repr of DeepSpeedZeroConfig, deepspeed/runtime/zero/
     * config.py and offload_config.py): {@code offload_optimizer=DeepSpeedZeroOffloadOptimizerConfig(device='cpu',
     * nvme_path=None, ..., ratio=1.0)} puts the optimizer, its fp32 master weights and the gradients on that device
     * (ZeRO-Offload); {@code offload_param=DeepSpeedZeroOffloadParamConfig(device='cpu', ...)} the parameters, at stage
     * 3 only (the engine reads it there alone: a stage-2 config that sets it offloads no parameters). {@code None} or
     * {@code device='none'}: nothing.
     */
    static void offload(String zeroConfig, Map<String, Object> config) {
        if (zeroConfig == null) return;
        long stage = zeroConfig.startsWith("stage=") ? Num.digitsAt(zeroConfig, 6) : -1;
        String opt = device(zeroConfig, "offload_optimizer=");
        if (opt != null) {
            config.put("training.offload.optimizer", opt);
            config.put("training.offload.master_weights", "cpu");
            config.put("training.offload.gradients", "cpu");
            double ratio = Num.parse(field(zeroConfig, "offload_optimizer=", "ratio="));
            if (ratio > 0 && ratio < 1) config.put("training.offload.ratio", ratio);
        }
        String param = device(zeroConfig, "offload_param=");
        if (param != null && stage == 3) config.put("training.offload.parameters", param);
        String path = null;
        if ("nvme".equals(opt)) path = field(zeroConfig, "offload_optimizer=", "nvme_path=");
        if (path == null && "nvme".equals(param) && stage == 3) path = field(zeroConfig, "offload_param=", "nvme_path=");
        if (path != null) config.put("training.offload.nvme_path", path);
    }

    /** The device of the offload config after {@code key}: "cpu" or "nvme", or null for None / 'none'. */
    private static String device(String s, String key) {
        String d = field(s, key, "device=");
        return d == null ? null : switch (d.toLowerCase(java.util.Locale.ROOT)) {
            case "cpu", "offloaddevicetype.cpu" -> "cpu";
            case "nvme", "offloaddevicetype.nvme" -> "nvme";
            default -> null;
        };
    }

    /** The value of {@code name} inside the parenthesised config after {@code key}, unquoted; null if absent. */
    private static String field(String s, String key, String name) {
        int k = s.indexOf(key);
        if (k < 0) return null;
        int open = k + key.length();
        while (open < s.length() && s.charAt(open) != '(' && s.charAt(open) != ' ') open++;
        if (open >= s.length() || s.charAt(open) != '(') return null;      // None
        int close = s.indexOf(')', open);
        String inner = s.substring(open + 1, close < 0 ? s.length() : close);
        for (String part : inner.split(",\\s*")) {
            if (!part.startsWith(name)) continue;
            String v = part.substring(name.length()).strip();
            if (v.startsWith("PosixPath(")) v = v.substring(10);
            v = v.replace("'", "").replace("\"", "");
            return v.equals("None") || v.isEmpty() ? null : v;
        }
        return null;
    }

    /** The ThroughputTimer line: samples/s to extra (with the warning), MaxMemAllocated to peak memory. */
    private static void timerLine(String s, StepSeries ds, long lastStep, LogResult r) {
        long step = -1;
        int g = s.indexOf("global_step=");
        if (g >= 0) step = Num.digitsAt(s, g + 12);
        if (step < 0) step = lastStep;
        double curr = valueAfter(s, "CurrSamplesPerSec=");
        if (Double.isNaN(curr)) {
            // the legacy line: "0/50, SamplesPerSec=1292.64, ..."; not RunningAvgSamplesPerSec
            int k = s.indexOf("SamplesPerSec=");
            while (k > 0 && Character.isLetter(s.charAt(k - 1))) k = s.indexOf("SamplesPerSec=", k + 1);
            if (k >= 0) curr = valueAfter(s, k + 14);
        }
        if (step >= 0 && curr > 0) {
            ds.touch(step);
            ds.put(step, "timer_samples_per_s", curr);
        }
        int m = s.indexOf("MaxMemAllocated=");
        if (m >= 0) {
            double gb = valueAfter(s, m + 16) * GIB_TO_GB;
            r.peakMemory(gb);
            if (step >= 0) ds.putMaxIfSeen(step, StepSeries.MEMORY, gb);
        }
    }

    static final String TIMER_WARNING = "DeepSpeed's ThroughputTimer samples/s (RunningAvgSamplesPerSec,"
            + " CurrSamplesPerSec) times only the last micro-batch and the optimizer step under gradient accumulation"
            + " (docs/logs.md (Formats)); it is kept in extra as timer_samples_per_s and not used as throughput";

    /** The number after {@code key}, up to a comma or a unit ({@code 15.59GB}); NaN when absent. */
    private static double valueAfter(String s, String key) {
        int k = s.indexOf(key);
        return k < 0 ? Double.NaN : valueAfter(s, k + key.length());
    }

    private static double valueAfter(String s, int from) {
        int e = from;
        while (e < s.length() && s.charAt(e) != ',' && s.charAt(e) != 'G' && !Character.isWhitespace(s.charAt(e))) e++;
        return Num.parse(s, from, e);
    }

    /** One {@code label      value} line of the profiler summary (split on the last run of 2+ spaces). */
    private static void profileLine(String s, Map<String, Double> into, LogResult r) {
        int colon = s.lastIndexOf(':');
        if (colon <= 0) return;
        String key = s.substring(0, colon).strip();
        String value = s.substring(colon + 1).strip();
        if (value.isEmpty()) return;
        String k = key.toLowerCase(java.util.Locale.ROOT);
        double v = Num.withUnit(value);
        if (Double.isNaN(v)) return;
        if (k.equals("world size")) r.extra.put("world_size", Num.count(v));
        else if (k.equals("data parallel size")) putPositive(r, "parallel.dp", v);
        else if (k.equals("model parallel size")) putPositive(r, "parallel.tp", v);
        else if (k.equals("batch size per gpu")) putPositive(r, "training.micro_batch_size", v);
        else if (k.equals("params per gpu")) r.extra.put("params_per_gpu", v);
        else if (k.equals("fwd latency")) into.put("fwd_latency_s", v);
        else if (k.equals("bwd latency")) into.put("bwd_latency_s", v);
        else if (k.equals("step latency")) into.put("optimizer_time_s", v);
        else if (k.equals("iter latency")) into.put("step_time_s", v);
        else if (k.equals("samples/second")) into.put("samples_per_s", v);
        else if (k.startsWith("flops per gpu")) into.put("profiler_tflops_per_gpu", v / 1e12);
        else if (k.startsWith("fwd+bwd flops per gpu")) into.putIfAbsent("profiler_fwd_bwd_tflops_per_gpu", v / 1e12);
        Double f = into.get("fwd_latency_s"), b = into.get("bwd_latency_s");
        if (f != null && b != null) into.put("fwd_bwd_time_s", f + b);
        if (k.startsWith("flops per gpu") || k.startsWith("fwd+bwd flops per gpu"))
            r.warn("the DeepSpeed flops profiler's FLOPS are measured by module hooks (no formula convention; they miss"
                    + " what the hooks do not see, e.g. under tensor or pipeline parallelism: DeepSpeed #2565); kept in"
                    + " extra as profiler_tflops_per_gpu, not as tflops_per_gpu");
    }

    private static void putPositive(LogResult r, String key, double v) {
        if (v > 0 && v == Math.rint(v) && v <= Integer.MAX_VALUE) r.config.put(key, (int) v);
    }
}
