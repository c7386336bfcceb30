package dev.trainadvisor.api;

import dev.trainadvisor.assemble.Described;
import dev.trainadvisor.assemble.RunFiles;
import dev.trainadvisor.engine.RuleEngine;
import dev.trainadvisor.input.SpecException;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The library's entry point: advice for a {@link Run}, and runs read from a run file or a training log as the command
 * line reads them.
 *
 * <pre>{@code
 * TrainAdvisor advisor = TrainAdvisor.create();
 * Run run = TrainAdvisor.readRunFile(Path.of("examples/internlm-7b-pcie-1node.yaml"));
 * Advice advice = advisor.advise(run);
 * advice.top().get().id();   // "intra-node-bandwidth"
 * }</pre>
 *
 * <p><b>Thread safety.</b> A {@code TrainAdvisor} is immutable and safe to share: any number of threads may call
 * {@link #advise} on one instance at once, for different or identical runs, and each call's advice is the same, byte
 * for byte in {@link Advice#toJson()}, as the same call made alone (each call has a rule session of its own; the
 * compiled rules and the catalogues are read-only once loaded). {@link Run}s and {@link Advice}s are immutable too.
 * Create one advisor and share it: {@link #create()} and {@link #withRules} compile rules, which takes a second or more.
 *
 * <p><b>Logging.</b> The library writes nothing on standard output or standard error. Drools, which runs the rules, logs
 * through SLF4J; the library brings no SLF4J provider (an application chooses its own), and where the application
 * has not set the system property {@code slf4j.internal.verbosity}, loading this class sets it to {@code ERROR} so that
 * SLF4J does not warn on standard error that no provider was found. Set the property yourself to see SLF4J's own
 * warnings again; with a provider on the class path Drools' log goes to it as usual.
 */
public final class TrainAdvisor {
    /** SLF4J's own switch for its start-up reports (slf4j-api 2.0.10 and later: org.slf4j.helpers.Reporter). */
    static final String SLF4J_VERBOSITY = "slf4j.internal.verbosity";

    static {
        if (System.getProperty(SLF4J_VERBOSITY) == null) System.setProperty(SLF4J_VERBOSITY, "ERROR");
    }

    private final dev.trainadvisor.advice.TrainAdvisor advisor;

    private TrainAdvisor(dev.trainadvisor.advice.TrainAdvisor advisor) { this.advisor = advisor; }

    /** An advisor with the shipped rules, whose recommendations include the best layout of the run's GPUs. */
    public static TrainAdvisor create() {
        return new TrainAdvisor(new dev.trainadvisor.advice.TrainAdvisor(RuleEngine.builtIn()));
    }

    /**
     * An advisor with the shipped rules and every {@code *.drl} file in {@code folder} (as {@code advise --rules}):
     * a team's own rules, compiled now. docs/rules.md says how to write them.
     *
     * @throws InvalidInputException naming the file and the rule, when the folder cannot be read or a rule does not
     *                               compile
     */
    public static TrainAdvisor withRules(Path folder) {
        try {
            return new TrainAdvisor(new dev.trainadvisor.advice.TrainAdvisor(RuleEngine.withFolder(folder)));
        } catch (SpecException e) {
            throw InvalidInputException.of(e);
        }
    }

    /**
     * The same advisor without the layout search among the recommendations: what {@code batch} uses, several times
     * faster a run where a fleet of runs is advised.
     */
    public TrainAdvisor withoutLayoutSearch() { return new TrainAdvisor(advisor.withoutLayoutSearch()); }

    /** The advice for {@code run}. */
    public Advice advise(Run run) {
        try {
            return new Advice(advisor.adviseRun(run.spec().cluster(), run.spec().run()), run);
        } catch (SpecException e) {
            // a user's rule that fails, loops or exceeds its limits is reported as bad input naming its file
            throw InvalidInputException.of(e);
        }
    }

    /**
     * A run file (JSON, or YAML by its extension) with the log, config, nccl-tests outputs and topology it names, read
     * as {@code advise RUN} reads it; relative names are relative to the run file.
     *
     * @throws InvalidInputException naming the file, the field and what was expected
     */
    public static Run readRunFile(Path file) {
        List<String> notes = new ArrayList<>();
        try {
            return new Run(RunFiles.read(file, notes::add), notes);
        } catch (SpecException e) {
            throw InvalidInputException.of(e);
        }
    }

    /**
     * A run described around a training log, as {@code advise --log LOG} reads it: {@code known} holds what the caller
     * knows of the run (at least the cluster; the model where the log does not print it); the log fills in what it
     * prints (a value of {@code known} wins over the log's, with a note), and what neither gives is derived (the
     * micro-batches from the global batch the log prints) or assumed, as {@link Run#assumptions()} lists. The log's
     * format is recognised by its content; a folder holds one log a rank. {@code known} is not built: its values are
     * checked with the log's.
     *
     * @throws InvalidInputException naming the log, or {@code Run.builder()} where a value of {@code known} is bad, with
     *                               the field and what was expected; a log that measures no training throughput
     *                               (nccl-tests output, a topology matrix, a log without steps) is refused
     */
    public static Run readLog(Path log, Run.Builder known) {
        Values given = new Values();
        given.putAll(known.values);
        Map<String, String> options = new LinkedHashMap<>();
        for (String field : given.fields()) {
            options.put(field, Run.setter(field));
            String section = field.contains(".") ? field.substring(0, field.indexOf('.')) : field;
            if (section.equals("cluster") || section.equals("model")) options.putIfAbsent(section, Run.setter(section));
        }
        List<String> notes = new ArrayList<>();
        try {
            return new Run(RunFiles.aroundLog(given.tree(), log, Described.code(options, Values.BUILDER), notes::add), notes);
        } catch (SpecException e) {
            throw InvalidInputException.of(e);
        }
    }
}
