package dev.trainadvisor.cli;

import dev.trainadvisor.assemble.RunFiles;
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

    @Override
    public Integer call() {
        List<ReferenceRun> runs = file == null ? ReferenceRun.builtIn() : ReferenceRun.read(file, RunFiles::read);
        Validation.Report report = Validation.of(runs);
        Out o = output == null ? new Out() : output;
        o.write(o.format == Format.json ? Json.of(report) : markdown(report, o.rows), spec.commandLine().getOut());
        return Main.OK;
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
