package dev.trainadvisor.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code java -jar train-advisor.jar <command>}. Exit codes: 0 done; 1 a high-severity cause was
 * found and {@code --fail-on high} asked to fail; 2 bad input (the message names the file, the
 * field and what was expected) or bad usage (the option, with a suggestion where one is near).
 */
@Command(name = "train-advisor", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "Tells why an LLM training run is slower than it should be, and what to change.",
        footerHeading = "%nSee 'train-advisor help COMMAND' for a command's options.%n",
        exitCodeListHeading = ExitCodes.HEADING, exitCodeList = {ExitCodes.OK, ExitCodes.FAIL_ON, ExitCodes.BAD_INPUT})
public final class Main implements Runnable {
    public static final int OK = 0;
    public static final int HIGH_SEVERITY = 1;
    public static final int BAD_INPUT = 2;

    static {
        // Drools logs through SLF4J; without a provider SLF4J warns on stderr at start-up. Silence that.
        System.setProperty("slf4j.internal.verbosity", "ERROR");
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /**
     * Runs the command line and returns its exit code (for tests). Whatever escapes a command is reported as bad input
     * (exit 2) in one line, never a stack trace: a {@link dev.trainadvisor.input.SpecException} with its message (the
     * file, the field and what was expected); any other exception, and a heap or stack exhausted by the input, with
     * what happened and the command line it happened on. {@code -Dtrainadvisor.debug=true} adds the stack trace.
     */
    public static int run(String... args) {
        // what the command will need, started on the second core while picocli reads the arguments (bench/coldstart.sh):
        // Drools' rule base, then for advice written as JSON its serializers; the knowledge base. The serializers come
        // after the rule base, which the advice waits for, and are built while the rules run on the main thread, on a
        // core otherwise idle (alternated with building them beside the knowledge base: 0.80 -> 0.77 s and 0.84 ->
        // 0.805 s). What fails there is done again where it is needed, and reported there.
        boolean rules = needsShippedRules(args), json = rules && writesJson(args);
        if (rules) inBackground("train-advisor-rules", () -> {
            dev.trainadvisor.engine.RuleEngine.builtIn();
            if (json) dev.trainadvisor.report.Json.prepare();
        });
        if (readsRuns(args)) inBackground("train-advisor-prepare", dev.trainadvisor.spec.Catalog::readAll);
        CommandLine cl = commandLine(args);
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> failed(ex, cmd.getErr(), args));
        cl.setParameterExceptionHandler(Main::usageError);
        cl.setUsageHelpWidth(USAGE_WIDTH);
        layout(cl);
        try {
            return cl.execute(args);
        } catch (StackOverflowError | OutOfMemoryError e) {
            return failed(e, cl.getErr(), args);
        }
    }

    /** The commands, in the order the usage lists them. */
    private static final java.util.List<java.util.Map.Entry<String, java.util.function.Supplier<Object>>> COMMANDS = java.util.List.of(
            java.util.Map.entry("advise", AdviseCommand::new), java.util.Map.entry("batch", BatchCommand::new),
            java.util.Map.entry("parse", ParseCommand::new), java.util.Map.entry("validate", ValidateCommand::new),
            java.util.Map.entry("search", SearchCommand::new), java.util.Map.entry("catalog", CatalogCommand::new),
            java.util.Map.entry("help", CommandLine.HelpCommand::new), java.util.Map.entry("completion", CompletionCommand::new));

    /** Every command (the usage, help, completion and the generated docs/cli.md read the whole tree). */
    static CommandLine commandLine() { return commandLine(new String[0]); }

    /**
     * The command line for {@code args}: where they name a command that needs no other (all but help and completion),
     * the tree holds that command alone, since picocli reads every command's options by reflection when it is added
     * (a third of the command line's start-up; bench/coldstart.sh); otherwise every command. A command's usage and
     * messages are the same either way (CommandLineTest).
     */
    static CommandLine commandLine(String... args) {
        String named = args.length > 0 && !args[0].equals("help") && !args[0].equals("completion") ? args[0] : null;
        boolean one = named != null && COMMANDS.stream().anyMatch(c -> c.getKey().equals(named));
        // `train-advisor --version` alone reads no command (the tree's reflection: 0.38-0.54 s against 0.30-0.41 s
        // without it, alternated)
        boolean none = args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"));
        CommandLine cl = new CommandLine(new Main());
        if (none) return cl;
        for (var c : COMMANDS) if (!one || c.getKey().equals(named)) cl.addSubcommand(c.getKey(), c.getValue().get());
        return cl;
    }

    /**
     * {@code work} on a daemon thread: each thing it builds is built once, whichever thread asks first (RuleEngine,
     * Catalog, Frameworks and Presets read under a lock), so the command takes it when it is done or builds it itself.
     */
    private static void inBackground(String name, Runnable work) {
        Thread t = new Thread(() -> {
            try {
                work.run();
            } catch (RuntimeException | LinkageError e) {
                // built again by the command, which reports what fails
            }
        }, name);
        t.setDaemon(true);
        t.start();
    }

    /** Whether the command reads a run against the shipped knowledge base (advise, batch, search, parse). */
    static boolean readsRuns(String... args) {
        if (args.length == 0) return false;
        for (String a : args) if (a.equals("--help") || a.equals("-h")) return false;
        return switch (args[0]) { case "advise", "batch", "search", "parse" -> true; default -> false; };
    }

    /**
     * Whether the command will advise with the shipped rules (advise or batch without --rules), so that their rule
     * base is built on another core from the start (run: a third of a cold `advise`).
     */
    static boolean needsShippedRules(String... args) {
        if (args.length == 0 || !(args[0].equals("advise") || args[0].equals("batch"))) return false;
        for (String a : args) if (a.equals("--rules") || a.startsWith("--rules=") || a.equals("--help") || a.equals("-h")) return false;
        return true;
    }

    /**
     * Whether the command writes its advice as JSON, advise's and batch's default, so that its serializers are worth
     * building ahead (Json.prepare: 8% of a cold advise's CPU, for nothing where the report is Markdown or HTML).
     */
    static boolean writesJson(String... args) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--format")) return i + 1 < args.length && args[i + 1].equals("json");
            if (args[i].startsWith("--format=")) return args[i].equals("--format=json");
        }
        return true;
    }

    /** Columns of --help where the terminal's width is not known (a wider terminal is used whole). */
    static final int USAGE_WIDTH = 100;

    /** Every command's help laid out alike: a blank line before its description, its arguments and its options. */
    static void layout(CommandLine cl) {
        cl.setUsageHelpAutoWidth(true);
        cl.getCommandSpec().usageMessage().descriptionHeading("%n").parameterListHeading("%n").optionListHeading("%n")
                .commandListHeading("%nCommands:%n");
        for (CommandLine sub : cl.getSubcommands().values()) layout(sub);
    }

    /**
     * A command line picocli cannot parse (an unknown or mistyped option, a missing or malformed value): the error in
     * one line, the nearest options or commands where picocli finds some ("did you mean --format?"), and where the
     * full usage is, rather than the usage itself; {@link #BAD_INPUT}.
     */
    static int usageError(CommandLine.ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        java.io.PrintWriter err = cmd.getErr();
        CommandLine.Model.CommandSpec spec = cmd.getCommandSpec();
        String command = spec.qualifiedName();
        if (ex instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            // the first argument not understood, and what it was probably meant to be
            String arg = u.getUnmatched().get(0);
            boolean option = arg.startsWith("-") && arg.length() > 1;
            String name = option && arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            java.util.Collection<String> known = option ? spec.optionsMap().keySet() : spec.subcommands().keySet();
            err.println("error: " + command + ": unknown " + (option ? "option" : spec.subcommands().isEmpty() ? "argument"
                    : "command") + " '" + name + "'");
            java.util.List<String> near = dev.trainadvisor.spec.Names.near(name, known, 2);
            if (!near.isEmpty()) err.println("did you mean " + String.join(" or ", near) + "?");
        } else {
            err.println("error: " + command + ": " + ex.getMessage());
        }
        err.println("Run '" + command + " --help' for " + (spec.subcommands().isEmpty() ? "its options." : "the commands."));
        err.flush();
        return BAD_INPUT;
    }

    /** Prints one line on what went wrong and returns {@link #BAD_INPUT}. */
    static int failed(Throwable ex, java.io.PrintWriter err, String[] args) {
        String where = dev.trainadvisor.input.Excerpt.of(String.join(" ", args), 500);
        if (ex instanceof dev.trainadvisor.input.SpecException) {
            err.println("error: " + ex.getMessage());
        } else if (ex instanceof StackOverflowError) {
            err.println("error: " + where + ": the input is nested or chained too deeply to be read (the stack ran out)");
        } else if (ex instanceof OutOfMemoryError) {
            err.println("error: " + where + ": the input needs more memory than this Java heap has ("
                    + dev.trainadvisor.input.Excerpt.of(String.valueOf(ex.getMessage())) + "); give java a larger -Xmx, or a smaller input");
        } else {
            String message = ex.getMessage() == null ? ex.getClass().getSimpleName() : ex.getMessage();
            err.println("error: " + where + ": this input could not be handled (" + dev.trainadvisor.input.Excerpt.of(
                    message.replaceAll("\\s+", " "), 500) + "); this is a bug in train-advisor: please report it with the input");
        }
        if (Boolean.getBoolean("trainadvisor.debug")) ex.printStackTrace(err);
        err.flush();
        return BAD_INPUT;
    }

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** No command: the usage, as --help prints it. */
    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
