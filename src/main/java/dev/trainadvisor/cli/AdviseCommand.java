package dev.trainadvisor.cli;

import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.advice.TrainAdvisor;
import dev.trainadvisor.assemble.RunFiles;
import dev.trainadvisor.engine.RuleEngine;
import dev.trainadvisor.facts.Severity;
import dev.trainadvisor.report.Json;
import dev.trainadvisor.report.Markdown;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "advise", mixinStandardHelpOptions = true,
        description = {"Advice for one run file (JSON or YAML): prediction, diagnoses, ranked recommendations.",
                "Or for a training log: advise --log LOG --cluster PRESET|FILE [--model PRESET|FILE] [layout and batch options]."})
final class AdviseCommand implements Callable<Integer> {
    enum Format { json, md, html }

    enum FailOn { high, medium, never }

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "RUN", description = "the run file")
    Path run;

    @Mixin
    LogRunOptions fromLog;

    @Option(names = "--format", defaultValue = "json", description = "json, md or html (default: ${DEFAULT-VALUE})")
    Format format;

    @Mixin
    CommonOptions common;

    @Option(names = "--fail-on", defaultValue = "never",
            description = "exit 1 when a cause of this severity or worse is found: high, medium, never")
    FailOn failOn;

    @Override
    public Integer call() {
        RunSpec s;
        if (run != null && fromLog.log != null)
            throw new dev.trainadvisor.input.SpecException(run.toString(), null, "either a run file or --log, not both (a run file names its log with log:)");
        if (run != null) s = RunFiles.read(run);
        else if (fromLog.log != null) s = fromLog.run(spec.commandLine().getErr());
        else throw new dev.trainadvisor.input.SpecException("advise", null, "a run file (RUN), or --log LOG with --cluster");
        dev.trainadvisor.spec.Implementation impl = s.run().training().implementation();
        if (!impl.given() && !impl.defaulted())
            spec.commandLine().getErr().println("warning: framework " + impl.framework().label() + " taken from "
                    + impl.origin() + " (set training.framework, or --framework with --log, to choose another)");
        RuleEngine engine = common.engine();
        Advice advice = new TrainAdvisor(engine).adviseRun(s.cluster(), s.run());
        String text = switch (format) {
            case md -> Markdown.of(advice);
            case html -> dev.trainadvisor.report.Html.of(advice);
            case json -> Json.of(advice);
        };
        common.write(text, spec.commandLine().getOut());
        return exitCode(advice, failOn);
    }

    static int exitCode(Advice advice, FailOn failOn) {
        boolean fail = switch (failOn) {
            case never -> false;
            case high -> advice.diagnoses().stream().anyMatch(d -> d.severity() == Severity.HIGH);
            case medium -> advice.diagnoses().stream().anyMatch(d -> d.severity().atLeastMedium());
        };
        return fail ? Main.HIGH_SEVERITY : Main.OK;
    }
}
