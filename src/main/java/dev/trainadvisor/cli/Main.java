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

    /**
     * Runs the command line and returns its exit code (for tests). Whatever escapes a command is reported as bad input
     * (exit 2) in one line, never a stack trace: a {@link dev.trainadvisor.input.SpecException} with its message (the
     * file, the field and what was expected); any other exception, and a heap or stack exhausted by the input, with
     * what happened and the command line it happened on. {@code -Dtrainadvisor.debug=true} adds the stack trace.
     */
    public static int run(String... args) {
        CommandLine cl = new CommandLine(new Main());
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> failed(ex, cmd.getErr(), args));
        try {
            return cl.execute(args);
        } catch (StackOverflowError | OutOfMemoryError e) {
            return failed(e, cl.getErr(), args);
        }
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

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
