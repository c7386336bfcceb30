package dev.trainadvisor.cli;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.trainadvisor.assemble.Logs;
import dev.trainadvisor.facts.Fmt;
import dev.trainadvisor.ingest.ParsedLog;
import dev.trainadvisor.report.Json;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/** {@code parse LOG}: what was read from a training log, an nccl-tests output or an {@code nvidia-smi topo -m} matrix. */
@Command(name = "parse", mixinStandardHelpOptions = true, sortOptions = false, versionProvider = Version.class,
        description = "What was read from a log: its format (recognised by content), steps, steady-state metrics, the "
                + "configuration it prints, its history, and format-specific values (nccl-tests bus bandwidth, nvidia-smi "
                + "topo GPUs and link).",
        exitCodeListHeading = ExitCodes.HEADING, exitCodeList = {ExitCodes.OK, ExitCodes.BAD_INPUT})
final class ParseCommand implements Callable<Integer> {
    enum Format { json, md }

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "LOG", description = "a log file (text; a folder: one log per rank)")
    Path log;

    @ArgGroup(validate = false, order = 1, heading = "%nOutput:%n")
    Out output = new Out();

    static final class Out extends CommonOptions.Out {
        @Option(names = "--format", paramLabel = "FORMAT", order = 90, defaultValue = "json",
                description = "${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE})")
        Format format = Format.json;
    }

    @Override
    public Integer call() {
        String name = log.toString();
        ParsedLog parsed = Logs.read(log);
        Out o = output == null ? new Out() : output;
        o.write(o.format == Format.md ? markdown(parsed, name) : Json.of(Report.of(parsed)), spec.commandLine().getOut());
        return Main.OK;
    }

    /**
     * What {@code parse --format json} prints (docs/logs.md, "parse"): format, steps, steady_steps, metrics,
     * tflops_convention, configuration, then the format-specific values at the top level, then warnings.
     */
    @JsonPropertyOrder({"format", "steps", "steady_steps", "metrics", "tflops_convention", "configuration"})
    record Report(String format, int steps, int steadySteps, Map<String, Double> metrics, String tflopsConvention,
                  Map<String, Object> configuration, @JsonIgnore Map<String, Object> rest) {
        /** The day the log's first dated step line was printed, which bounds its framework's version (docs/logs.md). */
        static final String PRINTED_ON = "printed_on";

        static final Set<String> FIXED = Set.of("format", "steps", "steady_steps", "metrics", "tflops_convention", PRINTED_ON,
                "configuration", "warnings");

        static Report of(ParsedLog p) {
            Map<String, Object> rest = new LinkedHashMap<>();
            p.extra().forEach((k, v) -> rest.put(FIXED.contains(k) ? "extra_" + k : k, v));
            if (p.printedOn() != null) rest.put(PRINTED_ON, p.printedOn().toString());
            if (!p.history().isEmpty()) rest.put("history", history(p.history()));
            rest.put("warnings", p.warnings());
            return new Report(p.format(), p.steps(), p.steadySteps(), p.metrics(), p.tflopsConvention(), p.config(), rest);
        }

        /**
         * What the log's per-step history keeps (the rules on the history read it): its entries and the steps they
         * span, the stride past StepHistory.MAX_ROWS, the warm-up and why, the series that carry values, the timers.
         */
        static Map<String, Object> history(dev.trainadvisor.history.StepHistory h) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("entries", h.size());
            m.put("first_step", h.steps()[0]);
            m.put("last_step", h.steps()[h.size() - 1]);
            m.put("stride", h.stride());
            m.put("warmup_entries", h.warmupSteps());
            m.put("warmup_reason", h.warmupReason());
            java.util.List<String> series = new java.util.ArrayList<>();
            String[] names = {"step_time_s", "tokens_per_gpu_per_s", "timestamp_s", "loss", "loss_scale", "grad_norm",
                    "memory_gb", "learning_rate"};
            double[][] columns = {h.stepTimeS(), h.tokensPerGpuPerS(), h.timestampS(), h.loss(), h.lossScale(), h.gradNorm(),
                    h.memoryGb(), h.learningRate()};
            for (int i = 0; i < names.length; i++)
                if (java.util.Arrays.stream(columns[i]).anyMatch(Double::isFinite)) series.add(names[i]);
            m.put("series", series);
            m.put("timers", h.timers().stream().map(dev.trainadvisor.history.StepHistory.RankTimer::name).toList());
            return m;
        }

        /** The format-specific values, then the warnings, written after the fixed keys. */
        @JsonAnyGetter
        Map<String, Object> extraThenWarnings() { return rest; }
    }

    static String markdown(ParsedLog p, String fileName) {
        StringBuilder s = new StringBuilder();
        s.append("**").append(p.format()).append("**: ").append(fileName).append("\n\n");
        s.append("| | name | value |\n|---|---|---:|\n");
        row(s, "", "format", p.format());
        row(s, "", "steps", p.steps() + (p.steadySteps() > 0 ? " (" + p.steadySteps() + " steady)" : ""));
        if (p.tflopsConvention() != null) row(s, "", "tflops_convention", p.tflopsConvention());
        if (p.printedOn() != null) row(s, "", Report.PRINTED_ON, p.printedOn().toString());
        p.metrics().forEach((k, v) -> row(s, "metric", k, v));
        p.config().forEach((k, v) -> row(s, "configuration", k, v));
        p.extra().forEach((k, v) -> row(s, "", k, v));
        if (!p.warnings().isEmpty()) {
            s.append("\nWarnings:\n");
            for (String w : p.warnings()) s.append("- ").append(w.replace("\n", " ")).append('\n');
        }
        return s.toString();
    }

    private static void row(StringBuilder s, String section, String key, Object value) {
        // what was read, as it was read: 65536 stays 65536, 2231.46 stays 2231.46
        String v = value instanceof Double d ? exact(d) : String.valueOf(value);
        s.append("| ").append(section).append(" | ").append(key).append(" | ").append(v.replace("|", "\\|").replace("\n", " "))
                .append(" |\n");
    }

    /**
     * Significant digits a value is written with: more than any log prints (a timer to the microsecond of a 1000 s step
     * is 10), fewer than the 15-17 at which the residue of a unit conversion or a median shows (34.29% and 34.38% read
     * as fractions have the median 0.34335000000000004, the double nearest 0.34335 written in full).
     */
    static final int DIGITS = 12;

    /** A value as the log printed it: its decimal to {@link #DIGITS} significant digits, without trailing zeros. */
    static String exact(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) return String.valueOf(d);
        return java.math.BigDecimal.valueOf(d).round(new java.math.MathContext(DIGITS)).stripTrailingZeros().toPlainString();
    }
}
