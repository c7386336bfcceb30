package dev.trainadvisor.report;

import dev.trainadvisor.advice.Advice;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A batch of runs as the fleet report shows it: every run's advice (in file-name order), the ranking, the files
 * that could not be advised with their errors, and the files of the folder that were left out as no run and why.
 *
 * @param runs     each run's view, in file-name order
 * @param files    the file each came from, in the same order
 * @param failures the files that could not be read or advised
 * @param skipped  the files that are neither a run file nor a training log (notes, reports train-advisor wrote, ...)
 */
public record Fleet(List<AdviceView> runs, List<String> files, List<Failure> failures, List<Skipped> skipped) {

    /** A file that could not be advised, and why (the message names the file, the field and what was expected). */
    public record Failure(String file, String message) {}

    /** A file of the folder left out of the batch, and why: it is no run file nor a training log of a known format. */
    public record Skipped(String file, String why) {}

    public Fleet {
        runs = List.copyOf(runs);
        files = List.copyOf(files);
        failures = List.copyOf(failures);
        skipped = List.copyOf(skipped);
    }

    public static Fleet of(List<Advice> advice, List<String> files, List<Failure> failures) {
        return of(advice, files, failures, List.of());
    }

    public static Fleet of(List<Advice> advice, List<String> files, List<Failure> failures, List<Skipped> skipped) {
        return new Fleet(advice.stream().map(AdviceView::of).toList(), files, failures, skipped);
    }

    /** The runs ranked by GPU-hours lost. */
    public BatchTable table() { return BatchTable.ofViews(runs, files); }

    /** The anchor of a run's section: its place in file-name order. */
    String anchor(String file) { return "run-" + (files.indexOf(file) + 1); }

    /** What the loss of a run without a cause of high or medium severity is filed under: the model's own error, or noise. */
    static final String NO_MATERIAL_CAUSE = "no cause above threshold";

    /** GPU-hours lost by each run's top cause, summed over the fleet, most first. */
    Map<String, Double> lostByCause() { return lostByCause(table()); }

    static Map<String, Double> lostByCause(BatchTable table) {
        Map<String, Double> by = new LinkedHashMap<>();
        for (BatchTable.Row r : table.rows()) {
            if (Double.isNaN(r.lostGpuHours()) || !(r.lostGpuHours() > 0)) continue;
            boolean material = r.topSeverity().equals("high") || r.topSeverity().equals("medium");
            by.merge(material ? r.topCause() : NO_MATERIAL_CAUSE, r.lostGpuHours(), Double::sum);
        }
        List<Map.Entry<String, Double>> e = new ArrayList<>(by.entrySet());
        e.sort(Map.Entry.<String, Double>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
        Map<String, Double> out = new LinkedHashMap<>();
        for (Map.Entry<String, Double> x : e) out.put(x.getKey(), x.getValue());
        return out;
    }
}
