package dev.trainadvisor.ingest;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PyTorch Lightning console logs: its banner lines ({@code GPU available: True (cuda), used: True},
 * {@code LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0]}, {@code `Trainer.fit` stopped: `max_steps=30` reached.}) and its
 * progress bar, either of the two it ships:
 * <ul>
 *   <li>TQDMProgressBar ({@code Epoch 0:  10%|#  | 3/30 [00:01<00:10,  2.50it/s, v_num=0, loss=10.8]}): its rate the
 *   average since the bar started (Lightning creates it with smoothing=0), so each refresh's seconds are the difference
 *   of n x s/it between two ({@link Tqdm.Steps#Steps(double)}), a bar per epoch joined after the last; on the H200
 *   Lightning run with this bar, 0.1867 s a step against 0.1861 measured;</li>
 *   <li>RichProgressBar, the default where rich is installed ({@code Epoch 0/-2 ━━━━ 30/30 0:00:06 • 0:00:00 5.47it/s
 *   loss: 10.699}): in a file it prints only as it closes, so one entry, the step count and rich's speed (its
 *   estimate over the last 30 s of the bar, rich/progress.py speed_estimate_period): step_time_s = 1 / speed.
 *   On the H200 Lightning run of bench/h200_trainer_logs.py that is 0.1828 s against 0.1828 measured by a callback.</li>
 * </ul>
 * With {@code Trainer(profiler="simple")} it prints its SimpleProfiler report as the fit ends, a table of each action's
 * mean duration, number of calls and total time: {@code [_TrainingEpochLoop].train_dataloader_next} is the time a step
 * waited for its batch, kept as the history's mean {@code batch-generator} timer (lightning/pytorch/loops/
 * training_epoch_loop.py profiles next(data_fetcher) under that name; lightning/pytorch/profilers/simple.py prints
 * the table). On the H200 run with samples of 15 ms and no workers, 0.0619 s a step, where the bar's steps took
 * 0.2437 and the same run with fast samples 0.1830.
 * <p>The precision it announces ({@code Using bfloat16 Automatic Mixed Precision (AMP)}, {@code Using 16bit Automatic
 * Mixed Precision}) is training.precision.
 */
public final class LightningLog extends GuardedLogParser {
    public static final String FORMAT = "lightning";

    public LightningLog() { super(FORMAT); }

    private static final Pattern RICH = Pattern.compile(
            "(\\d{1,12})/(\\d{1,12}|-?\\d{1,12})\\s+(\\d{1,6}):(\\d{2}):(\\d{2})\\s+\\S\\s+\\S+\\s+(\\d{1,9}(?:\\.\\d{1,9})?)(it/s|s/it)");

    @Override
    double score(String text) {
        int[] c = new int[2];
        Lines.scan(text, line -> {
            if (line.startsWith("LOCAL_RANK: ") && line.contains("CUDA_VISIBLE_DEVICES")) c[0]++;
            else if (line.contains("`Trainer.fit` stopped")) c[0]++;
            else if (line.startsWith("GPU available: ") && line.contains("used: ")) c[1]++;
            return c[0] == 0;
        });
        return c[0] > 0 ? 0.92 : c[1] > 0 ? 0.6 : 0;
    }

    @Override
    ParsedLog read(LogSource log) {
        LogResult r = new LogResult(FORMAT);
        Tqdm.Steps bar = new Tqdm.Steps(0);          // Lightning's bars average since they started (smoothing=0)
        long richN = -1;
        double richSpi = Double.NaN;
        boolean report = false;
        try (LogSource.Pass lines = log.lines()) {
            for (String line : lines) {
                if (line.endsWith("Profiler Report")) report = true;
                if (report && line.startsWith("|")) {
                    profilerRow(line, r);
                    continue;
                }
                if (line.startsWith("Using bfloat16 Automatic Mixed Precision")) r.config.put("training.precision", "bf16");
                else if (line.startsWith("Using 16bit Automatic Mixed Precision")) r.config.put("training.precision", "fp16");
                Tqdm.Update u = line.startsWith("Epoch ") || line.contains("%|") ? Tqdm.parse(line) : null;
                if (u != null && line.contains("%|")) {
                    bar.add(u);
                    continue;
                }
                if (line.startsWith("Epoch ") && (line.contains("it/s") || line.contains("s/it"))) {
                    Matcher m = RICH.matcher(line);
                    if (m.find()) {
                        double rate = Double.parseDouble(m.group(6));
                        if (rate > 0) {
                            richN = Long.parseLong(m.group(1));
                            richSpi = m.group(7).equals("it/s") ? 1 / rate : rate;
                        }
                    }
                }
            }
        }
        if (bar.any()) {
            bar.emit((from, to, each) -> {
                for (long k = Math.max(from + 1, to - HfTrainerLog.MAX_STEPS_A_REFRESH + 1); k <= to; k++) {
                    r.series.touch(k);
                    r.series.put(k, "step_time_s", each);
                }
            });
            r.totalSteps = bar.lastStep();
            if (!bar.smoothed())
                r.warn("the progress bar's rates do not add up to its elapsed time as tqdm's smoothing would: its printed"
                        + " rates are taken as the steps'");
        } else if (richN > 0) {
            r.series.touch(richN);
            r.series.put(richN, "step_time_s", richSpi);
            r.totalSteps = richN;
            r.warn("Lightning's Rich progress bar prints in a file only as it closes: step_time_s is its speed over the"
                    + " bar's last 30 seconds, warm-up included if the run was shorter");
        } else {
            r.warn("no progress bar with a rate found");
        }
        return r.build();
    }

    /** The SimpleProfiler's action whose time is the wait for the next batch. */
    static final String NEXT_BATCH = "].train_dataloader_next";

    /** One row of the SimpleProfiler report: {@code |  action  |  mean  |  calls  |  total  |  percent  |}. */
    private static void profilerRow(String line, LogResult r) {
        String[] f = line.split("\\|");
        if (f.length < 4) return;
        String action = f[1].strip();
        if (!action.endsWith(NEXT_BATCH)) return;
        double mean = Num.parse(f[2].strip()), calls = Num.parse(f[3].strip());
        if (mean >= 0 && calls >= 1 && calls == Math.rint(calls))
            r.series.meanTimer(dev.trainadvisor.history.StepHistory.BATCH_GENERATOR, mean, (long) calls,
                    "Lightning's SimpleProfiler, " + action);
    }
}
