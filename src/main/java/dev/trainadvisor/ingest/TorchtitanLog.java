package dev.trainadvisor.ingest;

/**
 * torchtitan logs (docs/logs.md (torchtitan)): {@code step: N  loss: X  [grad_norm: G]  memory: M GiB(P%)
 * tps|wps: T  [tflops: F]  mfu: U%|N/A}, every version, with colours and {@code [rankN]:} prefixes stripped, and
 * per-rank duplicates merged by step.
 *
 * <p>Metrics: {@code tps} (or the older {@code wps}) → tokens_per_gpu_per_s (already per device: tokens of this rank
 * over the non-data-parallel size); {@code tflops} → tflops_per_gpu (convention {@code torchtitan} for a log printed before
 * 2025-10-29, {@code torchtitan-2025-10} from then or undated: {@link #convention}); {@code mfu} percent
 * → mfu fraction ({@code N/A} under FP8/MX is skipped); the largest {@code memory} (max reserved, GiB) →
 * peak_memory_gb = GiB x 1.073741824; steps = the last step. Thousands separators ({@code 5,856},
 * {@code 1,234.56}) are read. torchtitan prints no step time and no skipped steps.
 *
 * <p>History: tps, the line's timestamp, loss, grad_norm, memory (GiB x 1.073741824). Configuration from
 * {@code Training starts at step N, with local batch size B, global batch size G, [gradient accumulation steps A,]
 * sequence length S, total steps T (warmup W)}: training.micro_batch_size, global_batch_size, micro_batches, seq_len;
 * torchtitan prints no learning rate per step, so the warm-up length W stands for it in the warm-up rule. How the
 * element-wise work ran, from the start-up lines: torch.compile on the model ({@value #COMPILED_MODEL}, train.py:232 at
 * 0413364, 2024-04; {@value #COMPILED_BLOCKS}, torchtitan/parallelisms/parallelize_llama.py:310 at ba24697, 2024-12,
 * and since) → training.elementwise_kernels compiled; else a model built with torchtitan's fused RMSNorm (the
 * {@code Building llama3 8B with ModelArgs(..., norm_type='fused_rmsnorm', ...)} line, train.py:178-180 at 0413364,
 * :106 at ba24697) → eager_fused_norm. Compiling the loss function alone ({@code Compiling the loss function with
 * torch.compile}) fuses nothing of the layers and is not read; a log without these lines leaves it to the framework's
 * profile. Float8 training from its start-up line → training.precision fp8 with its fp8_recipe: torchao's Float8 with
 * scales from each tensor itself ({@code Float8 training active}, torchtitan/float8.py:82 at ba24697; {@code Float8
 * tensorwise scaled training active} and {@code Float8 training active with recipe R},
 * torchtitan/components/quantization/float8.py:66-68 and 93 at f4048f8, :118 at b5bcd76) → current, a row-wise recipe
 * too (its scales also come from the tensor, a row at a time: the same passes); MX ({@code Swapped to MXLinear layers},
 * quantization/mx.py:87 at f4048f8, whose line before names its recipe as Float8's does; {@code Converted Linear layers
 * to MXFP8Linear}, mx.py:97 at b5bcd76) → mxfp8.
 */
public final class TorchtitanLog extends GuardedLogParser {
    public static final String FORMAT = "torchtitan";

    public TorchtitanLog() { super(FORMAT); }

    @Override
    double score(String text) {
        int[] c = new int[2];
        Lines.scan(text, line -> {
            if (stepLine(line) >= 0) c[0]++;
            else if (line.contains("[titan]")) c[1]++;
            return c[0] == 0;                       // one step line decides
        });
        if (c[0] > 0) return 0.95;
        return c[1] > 0 ? 0.4 : 0;
    }

    /** Index of {@code step:} on a metrics line (one that also has {@code memory:} and {@code tps:}/{@code wps:}), or -1. */
    static int stepLine(String line) {
        int i = Lines.indexOfWord(line, "step:");
        if (i < 0) return -1;
        if (line.indexOf("memory:", i) < 0) return -1;
        if (Lines.indexOfWord(line, "tps:", i) < 0 && Lines.indexOfWord(line, "wps:", i) < 0) return -1;
        if (Num.digitsAt(line, i + 5) < 0) return -1;
        return i;
    }

    /** Where the token after {@code key} (a word, then spaces) starts, or -1 when there is no key or no token. */
    static int tokenAfter(String line, String key, int from) {
        int i = Lines.indexOfWord(line, key, from);
        if (i < 0) return -1;
        int j = i + key.length();
        while (j < line.length() && line.charAt(j) == ' ') j++;
        return j == tokenEnd(line, j) ? -1 : j;
    }

    /** Index just past the token that starts at {@code j} (it runs to a space or a tab). */
    static int tokenEnd(String line, int j) {
        int k = j;
        while (k < line.length() && line.charAt(k) != ' ' && line.charAt(k) != '\t') k++;
        return k;
    }

    /** Num.parse of the token that starts at {@code j}, NaN when {@code j} is -1. */
    private static double number(String line, int j) {
        return j < 0 ? Double.NaN : Num.parse(line, j, tokenEnd(line, j));
    }


    @Override
    ParsedLog read(LogSource log) {
        LogResult r = new LogResult(FORMAT);
        StepSeries s = r.series;
        boolean compiled = false, fusedNorm = false;
        String fp8 = null;
        try (LogSource.Pass lines = log.lines()) {
            for (String line : lines) {
                int at = stepLine(line);
                if (at < 0) {
                    if (line.contains(STARTS)) start(line, r);
                    else if (line.contains(COMPILED_MODEL) || line.contains(COMPILED_BLOCKS)) compiled = true;
                    else if (line.contains(FUSED_NORM) && line.contains("Building ")) fusedNorm = true;
                    else if (line.contains(MX_SWAPPED) || line.contains(MX_CONVERTED)) fp8 = "mxfp8";
                    else if (line.contains("Float8") && line.contains("training active") && !"mxfp8".equals(fp8))
                        fp8 = line.contains(WITH_RECIPE + "mx") ? "mxfp8" : "current";
                    continue;
                }
                long step = Num.digitsAt(line, at + 5);
                if (step < 0) continue;
                s.touch(step);
                s.timestamp(step, Stamp.at(line));
                // the values are read in place: no token strings
                int tps = tokenAfter(line, "tps:", at);
                if (tps < 0) tps = tokenAfter(line, "wps:", at);
                s.putPositive(step, "tokens_per_gpu_per_s", number(line, tps), tps >= 0);
                int tflops = tokenAfter(line, "tflops:", at);
                s.putPositive(step, "tflops_per_gpu", number(line, tflops), tflops >= 0);
                int mfu = tokenAfter(line, "mfu:", at);
                if (mfu >= 0) {
                    int end = tokenEnd(line, mfu);
                    double u = Num.parse(line, mfu, end);
                    if (u >= 0 && line.charAt(end - 1) == '%') s.put(step, "mfu", u / 100);
                }
                s.put(step, StepSeries.LOSS, number(line, tokenAfter(line, "loss:", at)));
                s.put(step, StepSeries.GRAD_NORM, number(line, tokenAfter(line, "grad_norm:", at)));
                int mem = tokenAfter(line, "memory:", at);
                if (mem >= 0) {
                    int end = tokenEnd(line, mem);
                    int g = line.indexOf("GiB", mem);
                    if (g > mem && g + 3 <= end) {
                        double gb = Num.parse(line, mem, g) * DeepSpeedLog.GIB_TO_GB;
                        r.peakMemory(gb);
                        s.putMax(step, StepSeries.MEMORY, gb);
                    }
                }
            }
        }
        if (compiled) r.config.put("training.elementwise_kernels", "compiled");
        else if (fusedNorm) r.config.put("training.elementwise_kernels", "eager_fused_norm");
        if (fp8 != null) {
            r.config.put("training.precision", "fp8");
            r.config.put("training.fp8_recipe", fp8);
        }
        r.convention = convention(s.printedOn());
        if (s.lastStep() >= 0) r.totalSteps = s.lastStep();
        if (s.size() == 0) r.warn("no torchtitan step lines found");
        return r.build();
    }

    /**
     * The day torchtitan's printed count halved its attention term (5a090f2, 2025-10-29, '[FLOPs] Fix attention FLOPs
     * estimate'): the since date of its profile's version 2025-10 (knowledge-base/frameworks/torchtitan.json), which
     * TorchtitanLogTest holds this to.
     */
    static final java.time.LocalDate HALVED_ATTENTION = java.time.LocalDate.of(2025, 10, 29);

    /**
     * How a torchtitan log printed on {@code day} counted its tflops and mfu: the 12 L H d s count before
     * {@link #HALVED_ATTENTION}, the 6 L H d s one from it; a log without a date is read as the current torchtitan's,
     * the version its profile defaults to.
     */
    static String convention(java.time.LocalDate day) {
        return day != null && day.isBefore(HALVED_ATTENTION) ? "torchtitan" : "torchtitan-2025-10";
    }

    static final String STARTS = "Training starts at step";

    /** torchtitan's start-up lines that say the model's layers were compiled (the class comment gives their sources). */
    static final String COMPILED_MODEL = "Compiling model with torch.compile", COMPILED_BLOCKS = "Compiling each TransformerBlock with torch.compile";

    /** torchtitan's start-up lines of MX (microscaling) training (the class comment gives their sources). */
    static final String MX_SWAPPED = "Swapped to MXLinear layers", MX_CONVERTED = "Converted Linear layers to MXFP8Linear";

    /** What names the recipe on torchtitan's Float8 line since 2025 ({@code ... with recipe rowwise}). */
    static final String WITH_RECIPE = "with recipe ";

    /** The model arguments' repr with torchtitan's fused RMSNorm, as the {@code Building ...} line prints it. */
    static final String FUSED_NORM = "norm_type='fused_rmsnorm'";

    /**
     * {@code Training starts at step 1, with local batch size 8, global batch size 64, [gradient accumulation steps 1,]
     * sequence length 8192, total steps 1000 (warmup 200)} (torchtitan's train.py; later versions print the first clause
     * only): training.micro_batch_size, global_batch_size, micro_batches, seq_len, and the learning-rate warm-up length
     * for the warm-up rule (torchtitan prints no learning rate per step).
     */
    static void start(String line, LogResult r) {
        int at = line.indexOf(STARTS);
        putAfter(line, at, "local batch size ", "training.micro_batch_size", r);
        putAfter(line, at, "global batch size ", "training.global_batch_size", r);
        putAfter(line, at, "gradient accumulation steps ", "training.micro_batches", r);
        putAfter(line, at, "sequence length ", "training.seq_len", r);
        int w = line.indexOf("(warmup ", at);
        if (w >= 0) {
            long warmup = Num.digitsAt(line, w + 8);
            if (warmup > 0) r.series.lrWarmupEnd = warmup;                 // steps count from 1
        }
    }

    private static void putAfter(String line, int from, String key, String field, LogResult r) {
        int i = line.indexOf(key, from);
        if (i < 0) return;
        int j = i + key.length();
        int e = j;
        // digits, with thousands separators ("1,024"); the comma after the number ends it
        while (e < line.length() && (Character.isDigit(line.charAt(e))
                || (line.charAt(e) == ',' && e + 1 < line.length() && Character.isDigit(line.charAt(e + 1))))) e++;
        double v = Num.parse(line, j, e);
        if (v >= 1 && v == Math.rint(v) && v <= Integer.MAX_VALUE) r.config.put(field, (int) v);
    }
}
