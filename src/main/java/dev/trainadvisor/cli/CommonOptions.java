package dev.trainadvisor.cli;

import dev.trainadvisor.engine.RuleEngine;
import dev.trainadvisor.input.SpecException;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;

/** Options every advising command shares: where the report goes, and extra rules with their limits. */
final class CommonOptions {
    @Option(names = "--out", paramLabel = "FILE", description = "write here instead of standard output")
    Path out;

    @Option(names = "--rules", paramLabel = "DIR", description = "a folder of extra *.drl rules")
    Path rules;

    @Option(names = "--rule-time-limit", paramLabel = "SECONDS",
            description = "with --rules: the most a run's rules may take, in seconds (default 10)")
    Double ruleTimeLimit;

    @Option(names = "--rule-firing-limit", paramLabel = "N",
            description = "with --rules: the most rule firings a run may take (default 100000)")
    Integer ruleFiringLimit;

    RuleEngine engine() {
        RuleEngine.Limits d = RuleEngine.Limits.DEFAULT;
        if (ruleTimeLimit != null && !(ruleTimeLimit > 0 && ruleTimeLimit <= 86_400))
            throw new SpecException("--rule-time-limit", null, "a number of seconds above 0 and at most 86400, got " + ruleTimeLimit);
        if (ruleFiringLimit != null && ruleFiringLimit <= 0)
            throw new SpecException("--rule-firing-limit", null, "a positive number of firings, got " + ruleFiringLimit);
        RuleEngine.Limits limits = new RuleEngine.Limits(
                ruleTimeLimit == null ? d.timeMillis() : Math.max(1, Math.round(ruleTimeLimit * 1000)),
                ruleFiringLimit == null ? d.firings() : ruleFiringLimit);
        return rules == null ? RuleEngine.builtIn() : RuleEngine.withFolder(rules).withLimits(limits);
    }

    void write(String text, PrintWriter stdout) { Output.write(text, out, stdout); }
}
