package dev.trainadvisor.cli;

import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.advice.TrainAdvisor;
import dev.trainadvisor.assemble.RunFiles;
import dev.trainadvisor.facts.Severity;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.report.Json;
import dev.trainadvisor.report.Markdown;
import dev.trainadvisor.spec.RunSpec;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "advise", mixinStandardHelpOptions = true, sortOptions = false, versionProvider = Version.class,
        customSynopsis = {"train-advisor advise [RULES] [OUTPUT] RUN",
                "   or: train-advisor advise --log LOG --cluster CLUSTER [--model MODEL]",
                "                            [RUN] [LAYOUT] [RULES] [OUTPUT]"},
        description = {"Advice for one run: the prediction, the fit to its measured times, diagnoses and ranked "
                + "recommendations, each priced from the fitted step.",
                "RUN is a run file (JSON or YAML, with the log and files it names). With --log, the options describe the run "
                        + "around a training log: what neither they nor the log give is derived or assumed, said on standard "
                        + "error and listed in the advice (assumed)."},
        exitCodeListHeading = ExitCodes.HEADING, exitCodeList = {ExitCodes.OK, ExitCodes.FAIL_ON, ExitCodes.BAD_INPUT})
final class AdviseCommand implements Callable<Integer> {
    enum Format { json, md, html }

    enum FailOn { high, medium, never }

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "RUN",
            description = "a run file (JSON or YAML); or leave it out and give --log")
    Path run;

    @ArgGroup(validate = false, order = 1, heading = "%nLog (instead of RUN: a training log and what ran it):%n")
    LogRunOptions.Log log = new LogRunOptions.Log();

    @ArgGroup(validate = false, order = 2, heading = "%nRun (with --log; a run file gives training.*):%n")
    LogRunOptions.Run runOptions = new LogRunOptions.Run();

    @ArgGroup(validate = false, order = 3, heading = "%nLayout (with --log; a run file gives parallel.*):%n")
    LogRunOptions.Layout layout = new LogRunOptions.Layout();

    @ArgGroup(validate = false, order = 4, heading = "%nRules:%n")
    Rules rules = new Rules();

    @ArgGroup(validate = false, order = 5, heading = "%nOutput:%n")
    Out output = new Out();

    static final class Rules extends CommonOptions.Rules {
        @Option(names = "--fail-on", paramLabel = "SEVERITY", order = 81, defaultValue = "never",
                description = "exit 1 when a cause of this severity or worse is found: ${COMPLETION-CANDIDATES} "
                        + "(default: ${DEFAULT-VALUE})")
        FailOn failOn = FailOn.never;
    }

    static final class Out extends CommonOptions.Out {
        @Option(names = "--format", paramLabel = "FORMAT", order = 90, defaultValue = "json",
                description = "${COMPLETION-CANDIDATES}: the advice as JSON, a Markdown or a self-contained HTML report "
                        + "(default: ${DEFAULT-VALUE})")
        Format format = Format.json;
    }

    @Override
    public Integer call() {
        LogRunOptions.Log l = log == null ? new LogRunOptions.Log() : log;
        LogRunOptions.Run r = runOptions == null ? new LogRunOptions.Run() : runOptions;
        LogRunOptions.Layout p = layout == null ? new LogRunOptions.Layout() : layout;
        Rules rl = rules == null ? new Rules() : rules;
        Out o = output == null ? new Out() : output;
        RunSpec s;
        if (run != null && l.log != null)
            throw new SpecException(run.toString(), null, "either a run file or --log, not both (a run file names its log with log:)");
        if (run != null) {
            if (l.cluster != null || l.model != null || l.nodes != null || LogRunOptions.any(r, p))
                throw new SpecException(run.toString(), null, "a run file or the options of --log, not both: the run file "
                        + "gives the cluster, the model, training.* and parallel.* (the options describe a run only with --log)");
            s = RunFiles.read(run, w -> spec.commandLine().getErr().println("warning: " + w));
        } else if (l.log != null) s = LogRunOptions.run(l, r, p, spec.commandLine().getErr());
        else throw new SpecException("advise", null, "a run file (RUN), or --log LOG with --cluster");
        dev.trainadvisor.spec.Implementation impl = s.run().training().implementation();
        if (!impl.given() && !impl.defaulted()) {
            // named by the log or the TFLOPS' convention: at its profile's default version, if it has versions, or at the
            // one the log's date or stated release chose (which the origin says)
            boolean versioned = impl.framework().version() != null;
            boolean chosenByLog = dev.trainadvisor.spec.Implementation.versionByLog(impl.origin());
            spec.commandLine().getErr().println("warning: framework " + impl.framework().label() + " taken from "
                    + impl.origin() + (versioned && !chosenByLog ? ", at its profile's default version" : "")
                    + " (set training.framework, or --framework with --log, to choose another"
                    + (versioned ? "; training.framework_version or --framework-version, its version" : "") + ")");
        }
        // the shipped rules, still being built on another core (Main.run), are waited for once the run is fitted
        TrainAdvisor advisor = rl.shippedOnly() ? TrainAdvisor.withRulesWhenNeeded(dev.trainadvisor.engine.RuleEngine::builtIn)
                : new TrainAdvisor(rl.engine());
        Advice advice = advisor.adviseRun(s.cluster(), s.run());
        String text = switch (o.format) {
            case md -> Markdown.of(advice);
            case html -> dev.trainadvisor.report.Html.of(advice);
            case json -> Json.of(advice);
        };
        o.write(text, spec.commandLine().getOut());
        return exitCode(advice, rl.failOn);
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
