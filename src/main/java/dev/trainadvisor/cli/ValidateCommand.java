package dev.trainadvisor.cli;

import dev.trainadvisor.assemble.RunFiles;
import dev.trainadvisor.perf.Calibration;
import dev.trainadvisor.perf.LeaveOneSourceOut;
import dev.trainadvisor.perf.Validation;
import dev.trainadvisor.report.Json;
import dev.trainadvisor.spec.ReferenceRun;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import static dev.trainadvisor.facts.Fmt.num;

@Command(name = "validate", mixinStandardHelpOptions = true, sortOptions = false, versionProvider = Version.class,
        description = "Predicts every published reference run and prints the error per source group and split, and per "
                + "kind of run.",
        exitCodeListHeading = ExitCodes.HEADING, exitCodeList = {ExitCodes.OK, ExitCodes.BAD_INPUT})
final class ValidateCommand implements Callable<Integer> {
    enum Format { md, json }

    enum LeaveOut { source }

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "FILE",
            description = "a reference-run file or folder (default: the shipped knowledge-base/reference-runs)")
    Path file;

    @ArgGroup(validate = false, order = 1, heading = "%nOutput:%n")
    Out output = new Out();

    static final class Out extends CommonOptions.Out {
        @Option(names = "--format", paramLabel = "FORMAT", order = 90, defaultValue = "md",
                description = "${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE})")
        Format format = Format.md;

        @Option(names = "--rows", order = 92, description = "also list every run (default: the summaries only)")
        boolean rows;
    }

    @Option(names = "--leave-out", paramLabel = "SOURCE", order = 10,
            description = "${COMPLETION-CANDIDATES}: also refit every fitted constant without each source group and predict "
                    + "the group with it (leave one source out), with the 80%% interval's coverage on held-out sources "
                    + "(default: today's table alone)")
    LeaveOut leaveOut;

    @Override
    public Integer call() {
        List<ReferenceRun> runs = file == null ? ReferenceRun.builtIn() : ReferenceRun.read(file, RunFiles::read);
        Validation.Report report = Validation.of(runs);
        Out o = output == null ? new Out() : output;
        String out;
        if (leaveOut == null) out = o.format == Format.json ? Json.of(report) : markdown(report, o.rows);
        else {
            LeaveOneSourceOut.Report loso = LeaveOneSourceOut.of(runs);
            out = o.format == Format.json ? Json.of(new WithLeaveOut(report, loso))
                    : markdown(report, o.rows) + "\n" + markdown(loso);
        }
        o.write(out, spec.commandLine().getOut());
        return Main.OK;
    }

    /** The JSON of validate --leave-out source: today's report and the leave-one-source-out one. */
    record WithLeaveOut(Validation.Report validation, LeaveOneSourceOut.Report leaveOneSourceOut) {}

    static String markdown(LeaveOneSourceOut.Report r) {
        StringBuilder s = new StringBuilder();
        s.append("Leave one source out: the fitted constants (").append(String.join(", ", Calibration.NAMES))
                .append(") refitted on the tune rows of the other groups, each group's runs predicted with its refit; ")
                .append("the 80% interval of each run read off the other groups' out-of-source errors.\n\n");
        s.append("| source group | runs | MAPE shipped | bias | MAPE out of source | bias | fitted on | constants refitted | inside 80% interval |\n");
        s.append("|---|---:|---:|---:|---:|---:|---:|---|---:|\n");
        for (LeaveOneSourceOut.Group g : r.groups()) {
            s.append("| ").append(g.group()).append(" | ").append(g.outOfSource().rows()).append(" | ")
                    .append(pct(g.shipped().tokensMape())).append(" | ").append(signedPct(g.shipped().tokensBias())).append(" | ")
                    .append(pct(g.outOfSource().tokensMape())).append(" | ").append(signedPct(g.outOfSource().tokensBias()))
                    .append(" | ").append(g.fittedOn()).append(" | ").append(constants(g.constants())).append(" | ")
                    .append(coverage(g.coverage())).append(" |\n");
        }
        s.append("| overall | ").append(r.outOfSource().rows()).append(" | ").append(pct(r.shipped().tokensMape()))
                .append(" | ").append(signedPct(r.shipped().tokensBias())).append(" | ").append(pct(r.outOfSource().tokensMape()))
                .append(" | ").append(signedPct(r.outOfSource().tokensBias())).append(" | ").append(r.allTune().rows())
                .append(" | ").append(constants(r.allTune().constants())).append(" | ").append(coverage(r.coverage()))
                .append(" |\n\n");
        s.append("Shipped constants: ").append(constants(Calibration.SHIPPED)).append("; refitted on every tune row: ")
                .append(constants(r.allTune().constants())).append(" (the overall row's). Root mean square of ln(predicted / observed) ")
                .append("tokens/GPU/s on the tune rows: ").append(String.format(Locale.ROOT, "%.4f", r.rmsShipped()))
                .append(" with the shipped constants, ").append(String.format(Locale.ROOT, "%.4f", r.rmsOutOfSource()))
                .append(" out of source.\n");
        return s.toString();
    }

    static String constants(Calibration.Constants c) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < Calibration.NAMES.size(); i++)
            s.append(i == 0 ? "" : " / ").append(java.math.BigDecimal.valueOf(c.get(i)).stripTrailingZeros().toPlainString());
        return s.toString();
    }

    static String coverage(LeaveOneSourceOut.Coverage c) {
        return c.inside() + " of " + c.rows() + (c.rows() == 0 ? "" : " (" + String.format(Locale.ROOT, "%.0f%%", 100 * c.share()) + ")");
    }

    static String markdown(Validation.Report r, boolean rows) {
        StringBuilder s = new StringBuilder();
        s.append("| source group | split | runs | MAPE tokens/GPU/s | bias | runs with TFLOPS | MAPE TFLOPS (own count) |\n");
        s.append("|---|---|---:|---:|---:|---:|---:|\n");
        for (Validation.Summary g : r.summaries()) {
            s.append("| ").append(g.group()).append(" | ").append(g.split()).append(" | ").append(g.rows()).append(" | ")
                    .append(pct(g.tokensMape())).append(" | ").append(signedPct(g.tokensBias())).append(" | ")
                    .append(g.tflopsRows()).append(" | ").append(pct(g.tflopsMape())).append(" |\n");
        }
        s.append("\n| kind of run | split | runs | MAPE tokens/GPU/s | bias |\n|---|---|---:|---:|---:|\n");
        for (Validation.Summary g : r.kinds())
            s.append("| ").append(g.group()).append(" | ").append(g.split()).append(" | ").append(g.rows()).append(" | ")
                    .append(pct(g.tokensMape())).append(" | ").append(signedPct(g.tokensBias())).append(" |\n");
        List<Validation.Row> excluded = r.rows().stream().filter(x -> x.excluded() != null).toList();
        if (!excluded.isEmpty()) {
            s.append("\nLeft out of the averages (the run file cannot express them):\n");
            for (Validation.Row x : excluded)
                s.append("- ").append(x.id()).append(" (").append(signedPct(x.tokensError())).append("): ").append(x.excluded()).append('\n');
        }
        if (rows) {
            s.append("\n| id | group | split | from | observed tokens/GPU/s | predicted | error | convention | observed TFLOPS | predicted | error |\n");
            s.append("|---|---|---|---|---:|---:|---:|---|---:|---:|---:|\n");
            for (Validation.Row row : r.rows()) {
                s.append("| ").append(row.id()).append(" | ").append(row.sourceGroup()).append(" | ")
                        .append(row.split()).append(" | ").append(row.observedFrom()).append(" | ")
                        .append(num(row.tokensObserved(), 4)).append(" | ").append(num(row.tokensPredicted(), 4)).append(" | ")
                        .append(signedPct(row.tokensError())).append(" | ").append(row.convention() == null ? "" : row.convention())
                        .append(" | ").append(num(row.tflopsObserved(), 4)).append(" | ").append(num(row.tflopsPredicted(), 4))
                        .append(" | ").append(signedPct(row.tflopsError())).append(" |\n");
            }
        }
        return s.toString();
    }

    static String pct(double f) { return Double.isNaN(f) ? "" : String.format(Locale.ROOT, "%.1f%%", 100 * f); }

    static String signedPct(double f) { return Double.isNaN(f) ? "" : String.format(Locale.ROOT, "%+.1f%%", 100 * f); }
}
