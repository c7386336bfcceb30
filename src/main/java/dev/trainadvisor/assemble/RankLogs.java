package dev.trainadvisor.assemble;

import dev.trainadvisor.history.StepHistory;
import dev.trainadvisor.ingest.LogFormats;
import dev.trainadvisor.ingest.ParsedLog;
import dev.trainadvisor.input.SpecException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A folder of one training log per rank (torchrun {@code --log-dir}: {@code attempt_0/<rank>/stdout.log}; torchtitan's
 * per-rank files) read as one log: the lowest rank's metrics and configuration, and in its history the largest memory
 * any rank reports at each step, and each rank's own step time as a per-rank timer ({@link StepHistory#RANK_STEP}: the
 * fastest and the slowest rank), as Megatron's {@code (min, max)} timers are kept.
 */
final class RankLogs {
    private RankLogs() {}

    /** How deep the folder is searched, and how many files at most: torchrun's layout is three levels. */
    static final int MAX_DEPTH = 4, MAX_FILES = 65_536;

    static ParsedLog read(Path dir) { return read(dir, Boundary.NONE); }

    /** As {@link #read(Path)}, a file that leads outside {@code boundary} (a symbolic link out) left unread. */
    static ParsedLog read(Path dir, Boundary boundary) {
        List<Path> files;
        try (Stream<Path> s = Files.walk(dir, MAX_DEPTH)) {
            files = s.filter(Files::isRegularFile).filter(boundary::contains).sorted().limit(MAX_FILES + 1L).toList();
        } catch (IOException | java.io.UncheckedIOException e) {
            throw new SpecException(dir.toString(), null, "a readable folder of training logs: " + e.getMessage());
        }
        if (files.size() > MAX_FILES)
            throw new SpecException(dir.toString(), null, "a folder of at most " + MAX_FILES + " per-rank logs");
        List<ParsedLog> logs = new ArrayList<>();
        List<Path> used = new ArrayList<>();
        for (Path f : files) {
            try {
                ParsedLog p = LogFormats.read(f);
                if (p.hasThroughput()) {
                    logs.add(p);
                    used.add(f);
                }
            } catch (SpecException e) {
                // a rank's stderr, a config, an empty file: not a training log, and not this folder's concern
            }
        }
        if (logs.isEmpty())
            throw new SpecException(dir.toString(), null, "a training log, or a folder of one training log per rank; this "
                    + "is a folder, and none of the " + files.size() + " files in it is a training log with its throughput");
        String format = logs.get(0).format();
        for (int i = 1; i < logs.size(); i++)
            if (!logs.get(i).format().equals(format))
                throw new SpecException(used.get(i).toString(), null, "a " + format + " log like " + used.get(0).getFileName()
                        + ", the first rank's: the per-rank logs of one run share one format; this one is " + logs.get(i).format());
        if (logs.size() == 1) return logs.get(0);
        return merged(logs, used, dir, files.size() - logs.size());
    }

    /** The first rank's log, with every rank's memory and step time in its history. */
    static ParsedLog merged(List<ParsedLog> logs, List<Path> files, Path dir, int skipped) {
        ParsedLog base = logs.get(0);
        StepHistory h = base.history();
        int n = h.size();
        double[] memory = h.memoryGb().clone(), min = StepHistory.absent(n), max = StepHistory.absent(n);
        Map<Long, Integer> rowOf = new HashMap<>();
        for (int i = 0; i < n; i++) rowOf.put(h.steps()[i], i);
        double peak = Double.NaN;
        String peakFile = null;
        for (int r = 0; r < logs.size(); r++) {
            StepHistory x = logs.get(r).history();
            double[] seconds = seconds(x);
            for (int j = 0; j < x.size(); j++) {
                Integer i = rowOf.get(x.steps()[j]);
                if (i == null) continue;
                double m = x.memoryGb()[j];
                if (Double.isFinite(m) && !(memory[i] >= m)) memory[i] = m;
                double s = seconds[j];
                if (Double.isFinite(s) && s > 0) {
                    if (!(min[i] <= s)) min[i] = s;
                    if (!(max[i] >= s)) max[i] = s;
                }
            }
            Double p = logs.get(r).metrics().get("peak_memory_gb");
            if (p != null && !(peak >= p)) {
                peak = p;
                peakFile = dir.relativize(files.get(r)).toString();
            }
        }
        List<StepHistory.RankTimer> timers = new ArrayList<>(h.timers());
        timers.add(new StepHistory.RankTimer(StepHistory.RANK_STEP, min, max));
        StepHistory merged = new StepHistory(h.steps(), h.stride(), h.stepTimeS(), h.tokensPerGpuPerS(), h.timestampS(), h.loss(),
                h.lossScale(), h.gradNorm(), memory, h.learningRate(), h.skipped(), timers, h.warmupSteps(), h.warmupReason());
        Map<String, Double> metrics = new TreeMap<>(base.metrics());
        if (!Double.isNaN(peak)) metrics.put("peak_memory_gb", peak);
        List<String> warnings = new ArrayList<>(base.warnings());
        warnings.add("read " + logs.size() + " per-rank " + base.format() + " logs from " + dir + " (the metrics are "
                + dir.relativize(files.get(0)) + "'s" + (peakFile == null ? "" : ", the peak memory " + peakFile + "'s")
                + (skipped > 0 ? "; " + skipped + " other files are not training logs" : "") + ")");
        return new ParsedLog(base.format(), base.steps(), base.steadySteps(), metrics, base.tflopsConvention(), base.config(),
                base.extra(), warnings, merged, base.printedOn());
    }

    /**
     * Each entry's seconds per step on one rank: the printed step time, else the time between its timestamps over the
     * steps between them (torchtitan prints no step time, but stamps every line).
     */
    static double[] seconds(StepHistory x) {
        double[] s = x.stepTimeS().clone();
        for (int j = 1; j < x.size(); j++) {
            if (Double.isFinite(s[j])) continue;
            long steps = x.steps()[j] - x.steps()[j - 1];
            double dt = x.timestampS()[j] - x.timestampS()[j - 1];
            if (steps > 0 && dt > 0) s[j] = dt / steps;
        }
        return s;
    }
}
