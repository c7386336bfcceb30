package dev.trainadvisor.cli;

import dev.trainadvisor.engine.RuleEngine;
import dev.trainadvisor.input.SpecException;
import picocli.CommandLine.Option;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.spec.SpecReader;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Options several commands share, each in the group of options it belongs to. */
final class CommonOptions {
    private CommonOptions() {}

    /** Where the report goes: the base of each command's output group, which adds its own --format. */
    static class Out {
        @Option(names = "--out", paramLabel = "FILE", order = 91,
                description = "write the report to FILE, its folders made (default: standard output)")
        Path out;

        void write(String text, PrintWriter stdout) { Output.write(text, out, stdout); }
    }

    /** The cluster and the model of a run that no run file describes (advise --log, search without RUN). */
    static class ClusterAndModel {
        @Option(names = "--cluster", paramLabel = "CLUSTER", order = 2, completionCandidates = Candidates.ClusterPresets.class,
                description = "the cluster: a preset (${COMPLETION-CANDIDATES}) or a JSON/YAML file of its fields; required "
                        + "where no run file gives it")
        String cluster;

        @Option(names = "--model", paramLabel = "MODEL", order = 4, completionCandidates = Candidates.ModelPresets.class,
                description = "the model: a preset (${COMPLETION-CANDIDATES}) or a JSON/YAML file of its fields; required "
                        + "where no run file gives it and no log prints the model's shape")
        String model;

        /**
         * The cluster and the model given, put into {@code root} as a run file holds them (a preset by its name, a
         * file's fields as its own object), with the option that gave each in {@code options} and the file each was
         * read from in {@code files} (assemble.Described: a bad value names the option, or the file and its field).
         */
        void putInto(ObjectNode root, Map<String, String> options, Map<String, String> files) {
            if (cluster != null) {
                root.set("cluster", presetOrFile(cluster, true));
                options.put("cluster", "--cluster");
                if (isFile(cluster)) files.put("cluster", cluster);
            }
            if (model != null) {
                root.set("model", presetOrFile(model, false));
                options.put("model", "--model");
                if (isFile(model)) files.put("model", model);
            }
        }

        /** Whether a --cluster or --model value names a file (else a preset). */
        private static boolean isFile(String value) { return Files.isRegularFile(Path.of(value)); }

        /** A preset name stays a name (the reader resolves it); an existing file is read as the object itself. */
        private static JsonNode presetOrFile(String value, boolean cluster) {
            if (!isFile(value) && dev.trainadvisor.spec.Presets.looksLikeAFile(value))
                throw new SpecException(cluster ? "--cluster" : "--model", null, "a preset or a JSON/YAML file of the "
                        + (cluster ? "cluster" : "model") + "'s fields; no file is at '" + value + "'"
                        + (Files.isDirectory(Path.of(value)) ? " (a folder)" : ""));
            if (isFile(value)) {
                JsonNode n = SpecReader.parse(Path.of(value));
                if (!n.isObject())
                    throw new SpecException(value, null, "an object with the " + (cluster ? "cluster" : "model") + "'s fields");
                return n;
            }
            JsonNodeFactory json = JsonNodeFactory.instance;
            return cluster ? json.objectNode().put("preset", value) : json.textNode(value);
        }
    }

    /** The framework that runs a run no run file describes (a run file gives training.framework). */
    static class FrameworkChoice {
        @Option(names = "--framework", paramLabel = "NAME", order = 20, completionCandidates = Candidates.FrameworkNames.class,
                description = "the framework that runs it (knowledge-base/frameworks): ${COMPLETION-CANDIDATES} (default: "
                        + "the one a log's format names, else generic)")
        String framework;

        @Option(names = "--framework-version", paramLabel = "VERSION", order = 21,
                description = "the framework's version, where its profile has several (default: the profile's default)")
        String frameworkVersion;
    }

    /** The rules the advice runs. */
    static class Rules {
        @Option(names = "--rules", paramLabel = "DIR", order = 80, description = "a folder of *.drl rules added to the "
                + "shipped ones (README: \"Your own rules\"; default: the shipped rules alone)")
        Path rules;

        @Option(names = "--rule-time-limit", paramLabel = "SECONDS", order = 81,
                description = "with --rules: the most a run's rules may take, in seconds (default: 10)")
        Double ruleTimeLimit;

        @Option(names = "--rule-firing-limit", paramLabel = "FIRINGS", order = 82,
                description = "with --rules: the most rule firings a run may take (default: 100000)")
        Integer ruleFiringLimit;

        /** Whether the shipped rules alone are asked for, with no limit given (engine() is then RuleEngine.builtIn()). */
        boolean shippedOnly() { return rules == null && ruleTimeLimit == null && ruleFiringLimit == null; }

        /** The shipped rules, or with --rules those and the folder's under the limits; bad limits are input errors. */
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
    }
}
