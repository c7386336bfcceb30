package dev.trainadvisor.ingest;

import dev.trainadvisor.history.StepHistory;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Hugging Face transformers Trainer logs (docs/logs.md (Hugging Face Trainer)): the Python dict reprs ProgressCallback prints
 * ({@code {'loss': 0.0499, 'grad_norm': 1.12, 'learning_rate': 3.5e-05, 'epoch': 1.25}} per logging step, and the
 * final {@code {'train_runtime': 5.8012, 'train_samples_per_second': 1.207, ...}}), values plain or quoted
 * (LLaMA-Factory: {@code 'train_runtime': '2219'}), tqdm noise around them (bare carriage returns, padding), and the
 * {@code ***** train metrics *****} block ({@code train_runtime = 0:00:05.80}).
 *
 * <p>The Trainer prints no per-step timing and no FLOP rate that a convention describes, so there are no warm-up steps
 * to drop and no tflops_per_gpu. Metrics: steps = round(train_runtime x train_steps_per_second) when the final dict
 * gives them; step_time_s = 1 / train_steps_per_second (a whole-run average including warm-up, evaluation and
 * saving: a warning says so). Extra: train_runtime_s, train_samples_per_s, train_steps_per_s, train_tokens_per_s,
 * train_loss, total_flos, logged_steps (the per-step dicts), last_epoch. ParsedLog.steps is the number of per-step
 * dicts.
 *
 * <p>History: one entry per step dict (numbered 1, 2, ...: the Trainer prints no step numbers) with its loss,
 * grad_norm and learning_rate; no timing. Configuration from the {@code ***** Running training *****} block:
 * training.micro_batch_size ({@code Instantaneous batch size per device}), global_batch_size ({@code Total train batch
 * size (w. parallel, distributed & accumulation)}), micro_batches ({@code Gradient Accumulation steps}).
 */
public final class HfTrainerLog extends GuardedLogParser {
    public static final String FORMAT = "hf-trainer";

    public HfTrainerLog() { super(FORMAT); }

    @Override
    double score(String text) {
        int[] c = new int[2];
        Lines.scan(text, line -> {
            Map<String, String> d = dict(line);
            if (d != null && (d.containsKey("loss") || d.containsKey("train_runtime") || d.containsKey("eval_loss")))
                c[0]++;
            else if (line.contains("***** train metrics *****")) c[1]++;
            return c[0] == 0;                       // one Trainer dict decides
        });
        if (c[0] > 0) return 0.9;
        return c[1] > 0 ? 0.85 : 0;
    }

    /**
     * The dict repr on the line: from the first {@code {'} to its closing brace, {@code 'key': value} pairs (value up
     * to the next top-level comma). Null when the line has none.
     */
    static Map<String, String> dict(String line) {
        int open = line.indexOf("{'");
        if (open < 0) return null;
        Map<String, String> out = new LinkedHashMap<>();
        int n = line.length();
        int i = open + 1;
        while (i < n) {
            while (i < n && (line.charAt(i) == ' ' || line.charAt(i) == ',')) i++;
            if (i >= n || line.charAt(i) == '}') break;
            if (line.charAt(i) != '\'') return out.isEmpty() ? null : out;
            int endKey = line.indexOf('\'', i + 1);
            if (endKey < 0) break;
            String key = line.substring(i + 1, endKey);
            int colon = endKey + 1;
            while (colon < n && line.charAt(colon) == ' ') colon++;
            if (colon >= n || line.charAt(colon) != ':') break;
            int v = colon + 1;
            while (v < n && line.charAt(v) == ' ') v++;
            int e = v;
            if (e < n && (line.charAt(e) == '\'' || line.charAt(e) == '"')) {
                int q = line.indexOf(line.charAt(e), e + 1);
                e = q < 0 ? n : q + 1;
            } else {
                int depth = 0;
                while (e < n) {
                    char c = line.charAt(e);
                    if (c == '[' || c == '(' || c == '{') depth++;
                    else if (c == ']' || c == ')') depth--;
                    else if (c == '}') {
                        if (depth == 0) break;
                        depth--;
                    } else if (c == ',' && depth <= 0) break;
                    e++;
                }
            }
            if (out.size() < 1000) out.putIfAbsent(key, line.substring(v, e).strip());
            i = Math.max(e, i + 1);
        }
        return out.isEmpty() ? null : out;
    }


    @Override
    ParsedLog read(LogSource log) {
        LogResult r = new LogResult(FORMAT);
        Map<String, String> end = new LinkedHashMap<>();
        int logged = 0;
        Tqdm.Steps bar = new Tqdm.Steps();
        // dicts in order; their steps are the bar's count when they are printed (logging_steps apart), else counted
        java.util.List<double[]> dicts = new java.util.ArrayList<>();
        double epoch = Double.NaN;
        boolean metricsBlock = false;
        try (LogSource.Pass lines = log.lines()) {
            for (String line : lines) {
                if (line.contains("***** train metrics *****")) {
                    metricsBlock = true;
                    continue;
                }
                int saving = line.indexOf(SAVING);
                if (saving >= 0) r.series.event(checkpointStep(line, saving, bar), StepHistory.Kind.CHECKPOINT);
                Tqdm.Update u = Tqdm.parse(line);
                if (u != null) {
                    bar.add(u);
                    if (line.indexOf("{'") < 0) continue;   // else a dict written right after the bar's refresh
                }
                Map<String, String> d = dict(line);
                if (d != null) {
                    metricsBlock = false;
                    if (d.containsKey("eval_loss") && bar.any()) r.series.event(bar.lastStep(), StepHistory.Kind.EVALUATION);
                    if (d.containsKey("train_runtime")) {
                        if (end.size() < 1000) d.forEach(end::putIfAbsent);
                    } else if (d.containsKey("loss")) {
                        logged++;
                        if (dicts.size() < StepHistory.MAX_ROWS)
                            dicts.add(new double[]{bar.any() ? bar.lastStep() : -1, Num.parse(d.get("loss")),
                                    Num.parse(d.get("grad_norm")), Num.parse(d.get("learning_rate"))});
                        double e = Num.parse(d.get("epoch"));
                        if (Double.isFinite(e)) epoch = e;
                    }
                    continue;
                }
                if (metricsBlock) {
                    String s = line.strip();
                    int eq = s.indexOf(" = ");
                    String key = eq > 0 ? s.substring(0, eq).strip() : "";
                    if (!key.isEmpty() && key.indexOf(' ') < 0) {
                        if (end.size() < 1000) end.putIfAbsent(key, s.substring(eq + 3).strip());
                    } else {
                        metricsBlock = false;
                    }
                    continue;
                }
                runningTraining(line, r);
            }
        }
        boolean timed = bar.any();
        r.series.numbered = timed;                      // the Trainer prints no step numbers: the bar counts, or dicts
        long[] n = {0};
        for (double[] d : dicts) {
            long step = timed && d[0] > 0 ? (long) d[0] : ++n[0];
            r.series.touch(step);
            r.series.put(step, StepSeries.LOSS, d[1]);
            r.series.put(step, StepSeries.GRAD_NORM, d[2]);
            r.series.put(step, StepSeries.LR, d[3]);
        }
        if (timed) {
            bar.emit((from, to, each) -> {
                for (long k = Math.max(from + 1, to - MAX_STEPS_A_REFRESH + 1); k <= to; k++) {
                    r.series.touch(k);
                    r.series.put(k, "step_time_s", each);
                }
            });
            if (!bar.smoothed())
                r.warn("the progress bar's rates do not add up to its elapsed time as tqdm's smoothing would: its printed"
                        + " rates are taken as the steps' (smoothed over about three steps)");
        }
        double runtime = Num.duration(unquote(end.get("train_runtime")));
        double samples = Num.parse(end.get("train_samples_per_second"));
        double stepsPerS = Num.parse(end.get("train_steps_per_second"));
        double tokens = Num.parse(end.get("train_tokens_per_second"));
        double loss = Num.parse(end.get("train_loss"));
        double flos = Num.parse(end.get("total_flos"));
        if (runtime > 0) r.extra.put("train_runtime_s", runtime);
        if (samples > 0) r.extra.put("train_samples_per_s", samples);
        if (stepsPerS > 0) r.extra.put("train_steps_per_s", stepsPerS);
        if (tokens > 0) r.extra.put("train_tokens_per_s", tokens);
        if (Double.isFinite(loss)) r.extra.put("train_loss", loss);
        if (flos > 0) r.extra.put("total_flos", flos);
        if (logged > 0) r.extra.put("logged_steps", logged);
        if (Double.isFinite(epoch)) r.extra.put("last_epoch", epoch);
        if (stepsPerS > 0) {
            if (!timed) {
                r.metrics.put("step_time_s", 1 / stepsPerS);
                r.warn("step_time_s is 1 / train_steps_per_second: a whole-run average that includes warm-up, evaluation"
                        + " and checkpointing");
            }
            if (runtime > 0) r.totalSteps = Math.round(runtime * stepsPerS);
        } else if (timed) {
            r.totalSteps = bar.lastStep();
            if (dicts.size() > 0 || bar.any())
                r.warn("no final train_runtime summary: the run was still going or was stopped; read from its "
                        + bar.lastStep() + " steps");
        }
        if (logged == 0 && end.isEmpty()) r.warn("no Trainer log dicts found");
        return r.build();
    }

    /** What Trainer._save_checkpoint logs at info level (log_level="info"), before the path's checkpoint-N. */
    static final String SAVING = "Saving model checkpoint to ";

    /** The N of the path's {@code checkpoint-N}, else the bar's last step. */
    private static long checkpointStep(String line, int saving, Tqdm.Steps bar) {
        int c = line.lastIndexOf("checkpoint-");
        if (c > saving) {
            int i = c + "checkpoint-".length(), j = i;
            while (j < line.length() && j - i < 18 && Character.isDigit(line.charAt(j))) j++;
            if (j > i && (j == line.length() || !Character.isDigit(line.charAt(j)))) return Long.parseLong(line.substring(i, j));
        }
        return bar.any() ? bar.lastStep() : -1;
    }

    /** The most steps one refresh of the bar fills in one by one; a longer gap is its last steps'. */
    static final int MAX_STEPS_A_REFRESH = 4096;

    private static String unquote(String s) {
        if (s == null) return null;
        String t = s.strip();
        if (t.length() >= 2 && (t.charAt(0) == '\'' || t.charAt(0) == '"') && t.charAt(t.length() - 1) == t.charAt(0))
            return t.substring(1, t.length() - 1);
        return t;
    }

    /**
     * The {@code ***** Running training *****} block (Trainer._inner_training_loop):
     * {@code Instantaneous batch size per device = 8} (training.micro_batch_size),
     * {@code Total train batch size (w. parallel, distributed & accumulation) = 64} (training.global_batch_size),
     * {@code Gradient Accumulation steps = 4} (training.micro_batches). Numbers may have thousands separators.
     */
    static void runningTraining(String line, LogResult r) {
        if (line.indexOf(" = ") < 0) return;
        put(line, "Instantaneous batch size per device = ", "training.micro_batch_size", r);
        put(line, "Total train batch size (w. parallel, distributed & accumulation) = ", "training.global_batch_size", r);
        put(line, "Gradient Accumulation steps = ", "training.micro_batches", r);
    }

    private static void put(String line, String key, String field, LogResult r) {
        int i = line.indexOf(key);
        if (i < 0) return;
        double v = Num.first(line, i + key.length(), line.length());
        if (v >= 1 && v == Math.rint(v) && v <= Integer.MAX_VALUE) r.config.putIfAbsent(field, (int) v);
    }
}
