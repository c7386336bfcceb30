package dev.trainadvisor.ingest;

import dev.trainadvisor.input.SpecException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a parser collects while reading one log, turned into a {@link ParsedLog} by {@link #build()}. */
final class LogResult {
    final String format;
    final StepSeries series = new StepSeries();
    final Map<String, Double> metrics = new LinkedHashMap<>();
    final Map<String, Object> config = new LinkedHashMap<>();
    final Map<String, Object> extra = new LinkedHashMap<>();
    final List<String> warnings = new ArrayList<>();
    /** The convention of the printed TFLOPS; kept only when tflops_per_gpu is among the metrics. */
    String convention;
    private double peakMemoryGb = Double.NaN;
    /** Training steps done by the last logged step (see the parsers), NaN if unknown. */
    double totalSteps = Double.NaN;
    /** Steps skipped for overflow (loss scaling) or NaN, NaN if the log does not say. */
    double skippedSteps = Double.NaN;
    /**
     * The day the log was printed where its step lines carry no date but its other lines do (NeMo's logger lines
     * around undated progress lines): used only when no step line was dated.
     */
    java.time.LocalDate printedOn;

    LogResult(String format) { this.format = format; }

    /** Keeps the largest peak memory seen, in GB (1e9 bytes). */
    void peakMemory(double gb) {
        if (Double.isFinite(gb) && gb > 0 && (Double.isNaN(peakMemoryGb) || gb > peakMemoryGb)) peakMemoryGb = gb;
    }

    void warn(String w) {
        if (!warnings.contains(w) && warnings.size() < 50) warnings.add(w);
    }

    /**
     * Runs a parser's reading; an unexpected exception becomes a result with a "parser error" warning, never a throw.
     * A {@link SpecException} (the file cannot be read, or is too large) is the user's to see and goes through.
     */
    static ParsedLog guarded(String format, java.util.function.Supplier<ParsedLog> read) {
        try {
            return read.get();
        } catch (SpecException e) {
            throw e;
        } catch (RuntimeException e) {
            return failed(format, e);
        }
    }

    /** Runs a parser's confidence check; an unexpected exception means "not this format" (0), never a throw. */
    static double guardedScore(java.util.function.DoubleSupplier score) {
        try {
            return score.getAsDouble();
        } catch (RuntimeException e) {
            return 0;
        }
    }

    ParsedLog build() {
        StepSeries.Summary s = series.summarize();
        s.warnings().forEach(this::warn);
        s.medians().forEach((k, v) -> {
            if (StepSeries.MEDIAN_METRICS.contains(k)) metrics.putIfAbsent(k, v);
            else extra.putIfAbsent(k, v);
        });
        if (Double.isFinite(peakMemoryGb)) metrics.put("peak_memory_gb", peakMemoryGb);
        if (Double.isFinite(skippedSteps) && skippedSteps >= 0) {
            metrics.put("skipped_steps", skippedSteps);
            if (Double.isFinite(totalSteps)) totalSteps = Math.max(totalSteps, skippedSteps);
        }
        if (Double.isFinite(totalSteps) && totalSteps >= 0) metrics.put("steps", totalSteps);
        metrics.values().removeIf(v -> !Double.isFinite(v));
        String conv = metrics.containsKey("tflops_per_gpu") ? convention : null;
        return new ParsedLog(format, (int) Math.min(Integer.MAX_VALUE, series.size()),
                (int) Math.min(Integer.MAX_VALUE, s.steadySteps()), metrics, conv, config, extra, warnings,
                series.history(s), series.printedOn() != null ? series.printedOn() : printedOn);
    }

    /** A ParsedLog with nothing read and one warning: the safety net of {@link LogFormats}. */
    static ParsedLog failed(String format, RuntimeException e) {
        return new ParsedLog(format, 0, 0, Map.of(), null, Map.of(), Map.of(),
                List.of("parser error: " + e.getClass().getSimpleName() + ": " + e.getMessage()));
    }
}
