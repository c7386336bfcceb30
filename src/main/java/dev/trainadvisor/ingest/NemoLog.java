package dev.trainadvisor.ingest;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * NVIDIA NeMo console logs (docs/logs.md (NeMo)): the step lines of NeMo 2.0's two progress callbacks and NeMo's own
 * logger lines around them.
 * <ul>
 *   <li>ProgressPrinter (nemo/lightning/pytorch/callbacks/progress_printer.py), for non-interactive runs:
 *   {@code Training epoch 0, iteration 120/149 | lr: 3e-05 | consumed_samples: 121 | global_batch_size: 1 |
 *   global_step: 120 | reduced_train_loss: 1.233 | train_step_timing in s: 0.03146}, every {@code log_interval} steps
 *   (default 100), each metric the mean over the steps since the last line but {@code global_step} (the latest),
 *   floats to four significant digits ({@code :.4}), whole values as integers;</li>
 *   <li>MegatronProgressBar (nemo/lightning/pytorch/callbacks/progress_bar.py, and NeMo 1.x's since its PR 7374 of
 *   September 2023), a tqdm bar without a rate ({@code bar_format} drops {@code s/it}) whose postfix holds the metrics:
 *   {@code Epoch 0: :   3%|▎  | 9000/301500 [1:42:42<55:37:46, v_num=0-56, reduced_train_loss=2.01,
 *   global_step=9e+3, consumed_samples=6.3e+5, train_step_timing in s=0.615]}, each the latest step's value.</li>
 * </ul>
 * {@code train_step_timing in s} is NeMo's TimingCallback (nemo/utils/exp_manager.py): the seconds from
 * on_train_batch_start to on_train_batch_end of one optimizer step (forward, backward and optimizer of all its
 * micro-batches), logged on every step.
 *
 * <p>Metrics: {@code train_step_timing in s} → step_time_s; {@code TFLOPS_per_GPU} (FLOPsMeasurementCallback) →
 * tflops_per_gpu, in the convention of the NeMo 2.0 version current on the log's day ({@code megatron} from 6251117,
 * 2025-08-09, which counts causal attention at half; {@code megatron-legacy} before); steps = the last step.
 * History: step time, {@code reduced_train_loss} (loss), {@code lr}, {@code grad_norm}, TFLOPS.
 *
 * <p>Configuration: training.global_batch_size from {@code global_batch_size} (the last printed: a batch ramp-up ends
 * at it), or, from the bar, which prints none, the growth of {@code consumed_samples} from one step to the next
 * (Megatron's sampler counts whole global batches); parallel.tp, pp, cp and dp from the size of the groups
 * megatron_init prints for rank 0 ({@code Rank 0 has tensor model parallel group: [0, 1, 2, 3]}; NeMo 1.x and 2.0
 * alike), parallel.rank_order from their members (the pipeline group's stride over the data-parallel one's);
 * training.micro_batches from Apex's or Megatron-Core's {@code setting number of micro-batches to constant N}
 * (through NeMo's logger or its own). The day comes from NeMo's logger lines
 * ({@code [NeMo I 2024-11-05 10:01:02 nemo_logging:393] ...}), the first dated one.
 */
public final class NemoLog extends GuardedLogParser {
    public static final String FORMAT = "nemo";

    public NemoLog() { super(FORMAT); }

    /** The step-time metric NeMo's TimingCallback logs, in both callbacks' spelling. */
    static final String TIMING = "train_step_timing in s";

    /** The day NeMo's FLOPsMeasurementCallback began counting causal attention at half (6251117). */
    static final java.time.LocalDate HALVED_ATTENTION = java.time.LocalDate.of(2025, 8, 9);

    @Override
    double score(String text) {
        int[] c = new int[3];
        Lines.scan(text, line -> {
            if (printerLine(line) && line.contains(" | ")) c[0]++;
            else if (line.contains(TIMING + "=") && line.contains("%|")) c[1]++;
            else if (line.startsWith("[NeMo ")) c[2]++;
            return c[0] + c[1] < 2;
        });
        // above Megatron-LM's 0.9 for the printer's "iteration n/N | ..." lines, and Lightning's 0.92 for its banner,
        // which a NeMo log also prints
        if (c[0] + c[1] > 0) return 0.97;
        return c[2] > 0 ? 0.55 : 0;
    }

    /** Whether a line is ProgressPrinter's training line. */
    static boolean printerLine(String line) {
        return line.startsWith("Training epoch ") && line.contains(", iteration ");
    }

    private static final Pattern BAR = Pattern.compile("\\|\\s{0,40}(\\d{1,12})/(\\d{1,12}|\\?)\\s{0,4}\\[");

    private static final Pattern GROUP = Pattern.compile(
            "^Rank 0 has (tensor model parallel|pipeline model parallel|context parallel|data parallel) group ?: \\[([0-9, ]{0,100000})\\]");

    private static final String MICRO_TEXT = "setting number of micro-batches to constant ";
    private static final Pattern MICRO = Pattern.compile(MICRO_TEXT + "(\\d{1,9})");

    @Override
    ParsedLog read(LogSource log) {
        LogResult r = new LogResult(FORMAT);
        StepSeries s = r.series;
        long offset = 0, lastN = -1, steps = 0;
        double globalBatch = Double.NaN, fromConsumed = Double.NaN, lastConsumed = Double.NaN;
        long consumedStep = Long.MIN_VALUE;
        boolean bars = false, printer = false;
        int dpStride = 0, ppStride = 0;   // the gap between the first two members of rank 0's groups
        try (LogSource.Pass lines = log.lines()) {
            for (String line : lines) {
                if (line.contains(MICRO_TEXT)) {
                    Matcher micro = MICRO.matcher(line);
                    if (micro.find()) r.config.put("training.micro_batches", Integer.parseInt(micro.group(1)));
                }
                if (line.startsWith("[NeMo ")) {
                    if (r.printedOn == null) r.printedOn = Stamp.date(Stamp.at(line));
                    Matcher g = GROUP.matcher(message(line));
                    if (g.find()) {
                        int stride = group(r, g.group(1), g.group(2));
                        if (g.group(1).equals("data parallel")) dpStride = stride;
                        if (g.group(1).equals("pipeline model parallel")) ppStride = stride;
                    }
                    continue;
                }
                java.util.Map<String, Double> metrics;
                long n;
                if (printerLine(line)) {
                    int it = line.indexOf(", iteration ") + ", iteration ".length();
                    n = Num.digitsAt(line, it);
                    if (n < 0) continue;
                    metrics = pairs(line, line.indexOf(" | "), " | ", ": ", line.length());
                    printer = true;
                } else if (line.contains(TIMING + "=") && line.contains("%|")) {
                    Matcher b = BAR.matcher(line);
                    if (!b.find()) continue;
                    n = Long.parseLong(b.group(1));
                    int close = line.indexOf(']', b.end());
                    int comma = line.indexOf(", ", b.end());
                    if (comma < 0 || (close >= 0 && comma > close)) continue;
                    metrics = pairs(line, comma, ", ", "=", close < 0 ? line.length() : close);
                    bars = true;
                } else {
                    continue;
                }
                if (n < lastN) offset += lastN;            // a new epoch counts its steps from 0 again
                if (n == lastN) continue;                  // the same refresh again
                lastN = n;
                long step = offset + n;
                Double global = metrics.get("global_step");
                if (printer && global != null && global >= 0 && global == Math.rint(global)) step = global.longValue();
                s.touch(step);
                steps = Math.max(steps, step);
                put(s, step, "step_time_s", metrics.get(TIMING));
                put(s, step, "tflops_per_gpu", metrics.get("TFLOPS_per_GPU"));
                put(s, step, StepSeries.LOSS, metrics.get("reduced_train_loss"));
                put(s, step, StepSeries.LR, metrics.get("lr"));
                put(s, step, StepSeries.GRAD_NORM, metrics.get("grad_norm"));
                Double gbs = metrics.get("global_batch_size");
                if (gbs != null && gbs >= 1 && gbs == Math.rint(gbs) && gbs <= Integer.MAX_VALUE) globalBatch = gbs;
                // the bar prints no global batch, but the samples consumed so far: their growth over consecutive steps
                // (Megatron's sampler counts whole global batches; a printer line, a mean over its interval, is left out)
                Double consumed = bars && !printerLine(line) ? metrics.get("consumed_samples") : null;
                if (consumed != null && consumedStep == step - 1 && consumed > lastConsumed) {
                    double per = consumed - lastConsumed;
                    if (per == Math.rint(per) && per <= Integer.MAX_VALUE) fromConsumed = per;
                }
                if (consumed != null) {
                    lastConsumed = consumed;
                    consumedStep = step;
                }
            }
        }
        // the groups say how the ranks are numbered: a pipeline group striding over the data-parallel one puts the
        // stages outermost (Megatron-Core's default order), else use_tp_pp_dp_mapping's replicas outermost
        if (dpStride > 0 && ppStride > 0 && dpStride != ppStride)
            r.config.put("parallel.rank_order", ppStride > dpStride ? "tp-cp-dp-pp" : "tp-cp-pp-dp");
        if (Double.isNaN(globalBatch)) globalBatch = fromConsumed;
        if (!Double.isNaN(globalBatch)) r.config.put("training.global_batch_size", (int) globalBatch);
        if (steps > 0) r.totalSteps = steps;
        r.convention = r.printedOn == null || !r.printedOn.isBefore(HALVED_ATTENTION) ? "megatron" : "megatron-legacy";
        if (s.size() == 0) r.warn("no NeMo training lines with " + TIMING + " found");
        if (bars && !printer)
            r.warn("NeMo's progress bar is printed by NeMo 1.x and NeMo 2.0 alike: read as NeMo 2.0 (Megatron-Core's "
                    + "distributed optimizer); NeMo 1.x's Apex DistributedFusedAdam is not described");
        return r.build();
    }

    /** A NeMo logger line's message: what follows {@code [NeMo I 2024-11-05 10:01:02 file:line] }. */
    private static String message(String line) {
        int close = line.indexOf("] ");
        return close < 0 ? "" : line.substring(close + 2);
    }

    /**
     * A megatron_init group line: the size of rank 0's group, as the layout's dimension; returns the gap between its
     * first two members (0 for a group of one, or members not in order).
     */
    private static int group(LogResult r, String kind, String members) {
        String[] m = members.isBlank() ? new String[0] : members.split(",");
        int size = m.length;
        if (size < 1) return 0;
        String key = switch (kind) {
            case "tensor model parallel" -> "parallel.tp";
            case "pipeline model parallel" -> "parallel.pp";
            case "context parallel" -> "parallel.cp";
            default -> "parallel.dp";
        };
        r.config.putIfAbsent(key, size);
        if (size < 2) return 0;
        try {
            long gap = Long.parseLong(m[1].trim()) - Long.parseLong(m[0].trim());
            return gap > 0 && gap <= Integer.MAX_VALUE ? (int) gap : 0;
        } catch (NumberFormatException e) {
            return 0;   // a member of more digits than a long holds: no stride
        }
    }

    /**
     * The {@code key<sep>value} pairs of {@code line} from {@code from} to {@code to}, each after a {@code delimiter};
     * values that are no number are left out.
     */
    private static java.util.Map<String, Double> pairs(String line, int from, String delimiter, String sep, int to) {
        java.util.Map<String, Double> out = new java.util.HashMap<>();
        int i = from;
        while (i >= 0 && i < to) {
            int start = i + delimiter.length();
            int next = line.indexOf(delimiter, start);
            int end = next < 0 || next > to ? to : next;
            int at = line.indexOf(sep, start);
            if (at > start && at < end) {
                double v = Num.parse(line.substring(at + sep.length(), end).strip());
                if (!Double.isNaN(v)) out.put(line.substring(start, at).strip(), v);
            }
            i = next < 0 || next > to ? -1 : next;
        }
        return out;
    }

    private static void put(StepSeries s, long step, String key, Double v) {
        if (v != null && Double.isFinite(v) && v >= 0) s.put(step, key, v);
    }
}
