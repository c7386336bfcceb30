package dev.trainadvisor.cli;

import picocli.CommandLine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes docs/cli.md from picocli's own usage help: {@code train-advisor --help} and {@code train-advisor COMMAND --help}
 * of every command, as the command line prints them (CliDocsTest fails while the committed page differs, and writes it
 * anew with {@code -Dtrainadvisor.writeDocs=true}).
 */
final class CliDocs {
    private CliDocs() {}

    static final Path PAGE = Path.of("docs/cli.md");
    static final String REGENERATE = "mvn -B -ntp test -Dtest=CliDocsTest -Dtrainadvisor.writeDocs=true";

    /** The commands in the order the top-level help lists them. */
    static List<String> commands() {
        return new ArrayList<>(Main.commandLine().getSubcommands().keySet());
    }

    static String markdown() {
        StringBuilder s = new StringBuilder();
        s.append("# Command line\n\n");
        s.append("<!-- Generated from picocli's usage help by CliDocs (src/test/java/dev/trainadvisor/cli): regenerate with `")
                .append(REGENERATE).append("`; CliDocsTest fails while this file differs from what the commands print. -->\n\n");
        s.append("""
                Every command's `--help`, as it prints it (`java -jar target/train-advisor.jar COMMAND --help`, or
                `train-advisor help COMMAND`). What the commands read is described in [run-file.md](run-file.md) (run files)
                and [logs.md](logs.md) (training logs, and what `advise --log` assumes), what they write in
                [advice-json.md](advice-json.md) (the JSON advice) and [reports.md](reports.md) (the Markdown and HTML
                reports, the fleet report of `batch`).

                A mistyped option or command gets the error, the nearest option or command, and where the usage is, not
                the usage itself (exit 2):

                <!-- output: advise examples/internlm-7b-pcie-1node.yaml --fromat md -->
                ```
                error: train-advisor advise: unknown option '--fromat'
                did you mean --format?
                Run 'train-advisor advise --help' for its options.
                ```

                Bad input exits with 2 and one line naming the file, the field and what was expected (here a GPU key one
                letter short):

                <!-- output: advise src/test/resources/readme/run.yaml -->
                ```
                error: src/test/resources/readme/run.yaml: field 'cluster.gpu': a known GPU key, got 'A100-SXM4-80G'; nearest known: A100-SXM4-80GB
                ```

                Beside a training log (`advise --log`), a bad value the user gave names what gave it: the option, or the
                file `--cluster` or `--model` named and its own field; what the log printed names the log:

                <!-- output: advise --log examples/logs/tinyllama-h200-trainer.log --cluster dgx-h200 --model examples/logs/model-tinyllama-1.1b.yaml --seq-len 2048 -->
                ```
                error: --cluster: a known cluster preset, got 'dgx-h200'; nearest known: dgx-b200, dgx-h100, hgx-h200
                ```

                Input is bounded before it is worked on: a run file (and a model, cluster or `runs.yaml` file, or a rule
                file) is at most 1 MB, refused by its size; a key at most 1,024 characters, a string 8,192, a YAML line
                16,384; a message quotes at most 200 characters of any value, on one line. A YAML alias (`*name`) is refused
                (Jackson would read the anchor's name instead of its value); a number outside physical bounds is refused
                with its field (a time below a microsecond, a bus bandwidth above twice the fastest catalogue link's one-way
                rate, 1800 GB/s; any quantity outside 1e-9 to 1e12); values a log prints that cannot be measurements (nan,
                infinite, zero or negative step times, TFLOPS, tokens/s) are dropped and counted in a warning with their
                steps.

                The csv tables (`batch`, `search`) are written by jackson-dataformat-csv, quoted as RFC 4180 says.
                `completion` writes a bash completion script (zsh with `bashcompinit`):
                `source <(java -jar target/train-advisor.jar completion)` with an alias `train-advisor`.

                """);
        List<String> commands = commands();
        s.append("Commands: [`train-advisor`](#train-advisor)");
        for (String c : commands) s.append(", [`").append(c).append("`](#train-advisor-").append(c).append(")");
        s.append(".\n\n## train-advisor\n\n```\n").append(help()).append("```\n");
        for (String c : commands) s.append("\n## train-advisor ").append(c).append("\n\n```\n").append(help(c)).append("```\n");
        return s.toString();
    }

    /** What {@code train-advisor [COMMAND] --help} prints, its trailing blanks removed. */
    static String help(String... command) {
        List<String> args = new ArrayList<>(List.of(command));
        args.add("--help");
        CliTest.Result r = CliTest.run(args.toArray(String[]::new));
        if (r.code() != 0) throw new IllegalStateException(args + " exited " + r.code() + ": " + r.err());
        StringBuilder out = new StringBuilder();
        for (String line : r.out().split("\n", -1)) out.append(line.stripTrailing()).append('\n');
        return out.toString().strip() + "\n";
    }
}
