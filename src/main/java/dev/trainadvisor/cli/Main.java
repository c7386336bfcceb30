package dev.trainadvisor.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code java -jar train-advisor.jar <command>}. Exit codes: 0 done; 1 a high-severity cause was
 * found and {@code --fail-on high} asked to fail; 2 bad input (the message names the file, the
 * field and what was expected).
 */
@Command(name = "train-advisor", mixinStandardHelpOptions = true, version = "train-advisor 0.1.0",
        description = "Tells why an LLM training run is slower than it should be, and what to change.",
        subcommands = {AdviseCommand.class, BatchCommand.class, ParseCommand.class, ValidateCommand.class, SearchCommand.class,
                CatalogCommand.class})
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

    /** Runs the command line and returns its exit code (for tests). */
    public static int run(String... args) {
        CommandLine cl = new CommandLine(new Main());
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            if (ex instanceof dev.trainadvisor.input.SpecException) {
                cmd.getErr().println("error: " + ex.getMessage());
                return BAD_INPUT;
            }
            throw ex;
        });
        return cl.execute(args);
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
