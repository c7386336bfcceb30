package dev.trainadvisor.cli;

import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code completion}: a bash completion script for every command, option and known value, made by picocli's AutoComplete. */
@Command(name = "completion", mixinStandardHelpOptions = true, sortOptions = false, versionProvider = Version.class,
        description = {"Prints a bash completion script (zsh too, after autoload -U +X bashcompinit && bashcompinit): the "
                + "commands, their options, and the values of options that take a known set (presets, kernels, frameworks).",
                "Load it in this shell with: source <(java -jar train-advisor.jar completion), with an alias or a script "
                        + "named train-advisor on the PATH; or save it as ~/.local/share/bash-completion/completions/train-advisor."},
        exitCodeListHeading = ExitCodes.HEADING, exitCodeList = {ExitCodes.OK})
final class CompletionCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--name", paramLabel = "COMMAND", defaultValue = "train-advisor",
            description = "the command the script completes: the alias or script that runs the jar (default: ${DEFAULT-VALUE})")
    String name = "train-advisor";

    @Override
    public Integer call() {
        spec.commandLine().getOut().print(AutoComplete.bash(name, spec.root().commandLine()));
        spec.commandLine().getOut().flush();
        return Main.OK;
    }
}
