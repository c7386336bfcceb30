package dev.trainadvisor.cli;

import dev.trainadvisor.engine.RuleEngine;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;

/** Options every advising command shares: where the report goes, and extra rules. */
final class CommonOptions {
    @Option(names = "--out", paramLabel = "FILE", description = "write here instead of standard output")
    Path out;

    @Option(names = "--rules", paramLabel = "DIR", description = "a folder of extra *.drl rules")
    Path rules;

    RuleEngine engine() { return rules == null ? RuleEngine.builtIn() : RuleEngine.withFolder(rules); }

    void write(String text, PrintWriter stdout) { Output.write(text, out, stdout); }
}
