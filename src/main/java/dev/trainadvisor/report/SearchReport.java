package dev.trainadvisor.report;

import dev.trainadvisor.search.Layout;
import dev.trainadvisor.search.LayoutSearch;
import dev.trainadvisor.spec.RunSpec;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import static dev.trainadvisor.facts.Fmt.num;

/** A layout search as people read it (Markdown), as a table (CSV) and as records for JSON ({@link #view}). */
public final class SearchReport {
    private SearchReport() {}

    /** One layout in JSON: its run-file keys, its prediction, and against the run's own layout. */
    public record LayoutView(Map<String, Object> layout, String description, double tokensPerGpuPerS,
                             double tflopsPerGpu, double stepTimeS, double memoryGb, double capacityGb, String stepParts,
                             double largestPartSeconds, Double speedup, Map<String, Object> changes) {}

    /** search --format json (docs/cli.md): {"layouts": [...]} best first, with the run's own, the Pareto front and what was searched. */
    public record SearchView(List<LayoutView> layouts, LayoutView own, List<LayoutView> pareto, long visited,
                             long predicted, long prunedByMemory, long fitting) {}

    public static SearchView view(LayoutSearch.Result r) {
        return new SearchView(r.best().stream().map(c -> view(c, r.own())).toList(), r.own() == null ? null : view(r.own(), r.own()),
                r.pareto().stream().map(c -> view(c, r.own())).toList(), r.visited(), r.predicted(), r.prunedByMemory(),
                r.fitting());
    }

    private static LayoutView view(LayoutSearch.Candidate c, LayoutSearch.Candidate own) {
        return new LayoutView(c.layout().change().asRunFile(), c.layout().describe(), c.tokensPerGpuPerS(), c.tflopsPerGpu(),
                c.stepTimeS(), c.memoryGb(), c.capacityGb(), c.bottleneck(), c.bottleneckSeconds(),
                own == null ? null : c.tokensPerGpuPerS() / own.tokensPerGpuPerS(),
                own == null ? null : c.layout().changesFrom(own.layout()).asRunFile());
    }

    /** @param ownLayout whether the run's layout is the user's (a run file) or only the search's starting point */
    public static String markdown(RunSpec s, LayoutSearch.Result r, LayoutSearch.Options o, boolean ownLayout) {
        StringBuilder b = new StringBuilder();
        var run = s.run();
        var t = run.training();
        long global = (long) t.microBatchSize() * t.microBatches() * run.parallel().dp();
        b.append("# Layouts for ").append(run.name()).append("\n\n");
        b.append(run.model().name()).append(" on ").append(s.cluster().gpus()).append(" x ").append(s.cluster().gpu().key())
                .append(", global batch ").append(global).append(" sequences of ").append(t.seqLen()).append(" tokens. ");
        b.append("Searched ").append(r.visited()).append(" layouts: ").append(r.predicted())
                .append(" timed, ").append(r.prunedByMemory()).append(" too large before timing; ").append(r.fitting())
                .append(" fit with ").append(Math.round(o.headroom() * 100)).append("% of the memory free.\n\n");
        LayoutSearch.Candidate own = r.own();
        if (own != null)
            b.append(ownLayout ? "The run's own layout: " : "The search started from: ").append(own.layout().describe()).append(", ").append(num(own.tokensPerGpuPerS()))
                    .append(" tokens/GPU/s; its step: ").append(own.bottleneck()).append(".\n\n");
        else b.append(ownLayout ? "The run's own layout does not fit in memory.\n\n"
                : "The search started from " + LayoutSearch.start(s) + ", which does not fit in memory.\n\n");
        if (r.best().isEmpty()) {
            b.append("No layout of these GPUs fits this model at this batch with ").append(Math.round(o.headroom() * 100))
                    .append("% of the memory free.\n");
            return b.toString();
        }
        b.append("| # | layout | tokens/GPU/s | TFLOPS/GPU | vs the run | step (s) | memory (GB) | the step | changes |\n");
        b.append("|---:|---|---:|---:|---:|---:|---:|---|---|\n");
        int i = 1;
        for (LayoutSearch.Candidate c : r.best()) {
            b.append("| ").append(i++).append(" | ").append(c.layout().describe()).append(" | ").append(num(c.tokensPerGpuPerS()))
                    .append(" | ").append(num(c.tflopsPerGpu())).append(" | ")
                    .append(own == null ? "" : "x" + num(c.tokensPerGpuPerS() / own.tokensPerGpuPerS())).append(" | ")
                    .append(num(c.stepTimeS())).append(" | ").append(num(c.memoryGb())).append(" of ").append(num(c.capacityGb()))
                    .append(" | ").append(c.bottleneck()).append(" | ")
                    .append(own == null ? "" : changes(c.layout().changesFrom(own.layout()).asRunFile())).append(" |\n");
        }
        LayoutSearch.Candidate first = r.best().get(0);
        b.append("\nWhy the best wins: its step of ").append(num(first.stepTimeS())).append(" s is ").append(first.bottleneck());
        if (r.best().size() > 1) {
            LayoutSearch.Candidate second = r.best().get(1);
            b.append("; the runner-up's of ").append(num(second.stepTimeS())).append(" s is ").append(second.bottleneck());
        }
        if (own != null) b.append("; the run's own of ").append(num(own.stepTimeS())).append(" s is ").append(own.bottleneck());
        b.append("; it leaves ").append(num(first.headroomGb())).append(" GB of ").append(num(first.capacityGb()))
                .append(" free.\n\n## Throughput against memory headroom (Pareto front)\n\n");
        b.append("| tokens/GPU/s | headroom (GB) | layout |\n|---:|---:|---|\n");
        for (LayoutSearch.Candidate c : r.pareto())
            b.append("| ").append(num(c.tokensPerGpuPerS())).append(" | ").append(num(c.headroomGb())).append(" | ")
                    .append(c.layout().describe()).append(" |\n");
        return b.toString();
    }

    private static String changes(Map<String, Object> c) {
        if (c.isEmpty()) return "(the run's)";
        StringBuilder s = new StringBuilder();
        c.forEach((k, v) -> s.append(s.length() == 0 ? "" : ", ").append(k.substring(k.indexOf('.') + 1)).append(" ").append(v));
        return s.toString();
    }

    /**
     * One row a layout, best first (report.Csv): its rank, every run-file key of a layout (empty where a layout leaves
     * one unset), its predicted throughput, its speedup over the run's own layout (empty without one), step, memory and
     * what its step is made of.
     */
    public static String csv(LayoutSearch.Result r) {
        List<String> keys = new java.util.ArrayList<>();
        for (LayoutSearch.Candidate c : r.best())
            for (String k : c.layout().change().asRunFile().keySet()) if (!keys.contains(k)) keys.add(k);
        List<String> header = new java.util.ArrayList<>(List.of("rank"));
        header.addAll(keys);
        header.addAll(List.of("tokens_per_gpu_per_s", "tflops_per_gpu", "speedup", "step_time_s", "memory_gb", "capacity_gb",
                "step_parts"));
        List<List<String>> rows = new java.util.ArrayList<>();
        int i = 1;
        for (LayoutSearch.Candidate c : r.best()) {
            List<String> row = new java.util.ArrayList<>(List.of(Integer.toString(i++)));
            Map<String, Object> layout = c.layout().change().asRunFile();
            for (String k : keys) row.add(cell(layout.get(k)));
            for (double x : new double[]{c.tokensPerGpuPerS(), c.tflopsPerGpu()}) row.add(String.format(Locale.ROOT, "%.6g", x));
            row.add(r.own() == null ? "" : String.format(Locale.ROOT, "%.6g", c.tokensPerGpuPerS() / r.own().tokensPerGpuPerS()));
            for (double x : new double[]{c.stepTimeS(), c.memoryGb(), c.capacityGb()}) row.add(String.format(Locale.ROOT, "%.6g", x));
            row.add(c.bottleneck());
            rows.add(row);
        }
        return Csv.of(header, rows);
    }

    /** A run-file value as a cell: empty for none, a number or word as written, an object (an offload) as its JSON. */
    private static String cell(Object v) {
        if (v == null) return "";
        if (v instanceof String || v instanceof Number || v instanceof Boolean) return v.toString();
        if (v instanceof Enum<?> e) return e.name().toLowerCase(Locale.ROOT);
        try {
            return dev.trainadvisor.spec.SpecReader.JSON_MAPPER.writeValueAsString(v);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return v.toString();
        }
    }
}
