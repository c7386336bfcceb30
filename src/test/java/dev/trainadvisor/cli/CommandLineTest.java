package dev.trainadvisor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The command line a user expects (issue 22): every option described with its values and default, labels that say
 * what goes there, options grouped, exit codes in --help, a help command, a mistyped option answered with the option
 * meant and a hint rather than the usage, bash completion, --version from the pom, CSV a CSV reader reads.
 */
class CommandLineTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    static CliTest.Result run(String... args) { return CliTest.run(args); }

    static List<CommandLine> commands() {
        List<CommandLine> out = new ArrayList<>();
        CommandLine root = Main.commandLine();
        out.add(root);
        out.addAll(root.getSubcommands().values());
        return out;
    }

    /** Every option but --help and --version says what it takes, and its default or that it is required. */
    @Test
    void everyOptionIsDescribedWithItsValuesAndItsDefault() {
        int options = 0;
        for (CommandLine cl : commands()) {
            CommandSpec spec = cl.getCommandSpec();
            if (spec.userObject() instanceof CommandLine.HelpCommand) continue;   // picocli's own
            String help = usage(cl);
            for (OptionSpec o : spec.options()) {
                if (o.usageHelp() || o.versionHelp()) continue;
                options++;
                String where = spec.qualifiedName() + " " + o.longestName();
                String description = String.join(" ", o.description());
                assertFalse(description.isBlank(), where + " has no description");
                boolean flag = o.arity().max() == 0;
                if (!flag) {
                    assertTrue(description.contains("default") || description.contains("required"),
                            where + ": its default, or that it is required: " + description);
                    // a label says what goes there, in capitals: not a Java field name such as microBatchSize
                    assertTrue(o.paramLabel().matches("[A-Z][A-Z0-9_|]*"), where + ": label " + o.paramLabel());
                }
                if (o.completionCandidates() != null) {
                    String flat = help.replaceAll("\\s+", " ");
                    for (String value : o.completionCandidates())
                        assertTrue(flat.contains(value), where + " lists " + value + " in its help");
                }
                if (o.defaultValue() != null)
                    assertTrue(description.contains("${DEFAULT-VALUE}") || description.contains(o.defaultValue()),
                            where + " shows its default " + o.defaultValue());
            }
            for (PositionalParamSpec p : spec.positionalParameters())
                assertTrue(p.paramLabel().matches("[A-Z][A-Z0-9_|]*") && !String.join(" ", p.description()).isBlank(),
                        spec.qualifiedName() + " " + p.paramLabel());
        }
        assertTrue(options >= 45, "options: " + options);
        // the attention kernels the reader accepts, all of them
        String advise = usage(commands().stream().filter(c -> c.getCommandName().equals("advise")).findFirst().orElseThrow());
        for (String k : List.of("fa2", "fa1", "triton", "fa3", "cudnn", "unfused", "math", "eager"))
            assertTrue(advise.replaceAll("\\s+", " ").contains(k), k);
    }

    /** advise's options are grouped: the log and what ran it, the run, the layout, rules and output, in that order. */
    @Test
    void optionsAreGrouped() {
        CommandLine advise = Main.commandLine().getSubcommands().get("advise");
        List<String> headings = new ArrayList<>();
        for (ArgGroupSpec g : advise.getCommandSpec().argGroups()) headings.add(g.heading().replace("%n", "").strip().replaceAll(" .*|:$", ""));
        assertEquals(List.of("Log", "Run", "Layout", "Rules", "Output"), headings);
        for (OptionSpec o : advise.getCommandSpec().options())
            assertTrue(o.usageHelp() || o.versionHelp() || o.group() != null, o.longestName() + " is in a group");
        String help = run("advise", "--help").out();
        int log = help.indexOf("\nLog ("), layout = help.indexOf("\nLayout ("), output = help.indexOf("\nOutput:");
        assertTrue(log > 0 && layout > log && output > layout, help);
        assertTrue(help.indexOf("--zero-stage") > layout && help.indexOf("--zero-stage") < output, "--zero-stage is a layout option");
        for (String command : List.of("batch", "search", "parse", "validate")) {
            String h = run(command, "--help").out();
            int at = h.indexOf("\nOutput:");
            assertTrue(at > 0 && h.substring(at, h.indexOf("Exit codes:")).contains("--format=FORMAT"), command + ":\n" + h);
        }
    }

    /** Every command's --help ends with its exit codes; help COMMAND prints what COMMAND --help does. */
    @Test
    void helpListsTheExitCodesAndTheHelpCommandGivesTheSameHelp() {
        for (CommandLine cl : commands()) {
            String name = cl.getCommandName();
            if (name.equals("help")) continue;
            String help = usage(cl);
            assertTrue(help.contains("Exit codes:") && Pattern.compile("(?m)^\\s+0\\s+done$").matcher(help).find()
                    && (name.equals("catalog") || name.equals("completion") || help.contains("bad ")), name + ":\n" + help);
        }
        assertTrue(usage(Main.commandLine().getSubcommands().get("advise")).contains("--fail-on severity or worse"));
        CliTest.Result viaHelp = run("help", "advise"), viaOption = run("advise", "--help");
        assertEquals(0, viaHelp.code());
        assertEquals(viaOption.out(), viaHelp.out());
        assertTrue(run("help").out().contains("completion"), "help alone lists the commands");
    }

    /** A mistyped option or command: what was not understood, what was meant, where the usage is; exit 2, no usage dump. */
    @Test
    void aMistypedOptionIsAnsweredWithTheOptionMeantAndAHint() {
        CliTest.Result r = run("advise", CliTest.PCIE, "--fromat", "md");
        assertEquals(Main.BAD_INPUT, r.code());
        assertEquals("", r.out());
        assertEquals(List.of("error: train-advisor advise: unknown option '--fromat'", "did you mean --format?",
                "Run 'train-advisor advise --help' for its options."), r.err().lines().toList());
        CliTest.Result eq = run("batch", "x", "--progres");
        assertTrue(eq.err().contains("did you mean --progress?"), eq.err());
        CliTest.Result command = run("advse", CliTest.PCIE);
        assertEquals(Main.BAD_INPUT, command.code());
        assertTrue(command.err().startsWith("error: train-advisor: unknown command 'advse'\ndid you mean advise?\n"), command.err());
        // nothing near: no guess
        CliTest.Result far = run("advise", CliTest.PCIE, "--quantum");
        assertFalse(far.err().contains("did you mean"), far.err());
        assertTrue(far.err().lines().count() <= 3, far.err());
        // a bad value names the option and its values
        CliTest.Result value = run("advise", CliTest.PCIE, "--format", "pdf");
        assertEquals(Main.BAD_INPUT, value.code());
        assertTrue(value.err().contains("'--format'") && value.err().contains("[json, md, html]") && !value.err().contains("Usage:"),
                value.err());
        // the options of --log describe a run only with --log: beside a run file they are an error, not ignored
        CliTest.Result both = run("advise", CliTest.PCIE, "--zero-stage", "3");
        assertEquals(Main.BAD_INPUT, both.code());
        assertTrue(both.err().contains("parallel.*") && both.err().contains(CliTest.PCIE), both.err());
    }

    /** --version prints the version of pom.xml (the project's own, not a parent's or a dependency's). */
    @Test
    void theVersionIsThePomsVersion() throws IOException {
        String pom = Files.readString(Path.of("pom.xml"));
        Matcher m = Pattern.compile("<artifactId>train-advisor</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
        assertTrue(m.find());
        CliTest.Result r = run("--version");
        assertEquals(0, r.code());
        assertEquals("train-advisor " + m.group(1), r.out().strip());
        assertEquals(r.out(), run("advise", "--version").out());
        // alone, --version and -V build no command tree (Main.commandLine): the same line, and the commands still there
        assertEquals(r.out(), run("-V").out());
        assertTrue(run("--help").out().contains("advise"));
    }

    /**
     * The bash script completes commands, options and the values of options with a known set, each its own (picocli
     * names a value list by the option's label, so two options of one command sharing a label would swap their values).
     */
    @Test
    void theCompletionScriptCompletesCommandsOptionsAndValues() throws Exception {
        CliTest.Result r = run("completion");
        assertEquals(0, r.code(), r.err());
        Path script = tmp.resolve("train-advisor.bash");
        Files.writeString(script, r.out());
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "bash is here");
        assertEquals(List.of("advise"), complete(script, "train-advisor adv"));
        assertEquals(List.of("dgx-h100"), complete(script, "train-advisor advise --cluster dgx-h"));
        assertEquals(List.of("llama-3.1-405b", "llama-3.1-70b", "llama-3.1-8b"), complete(script, "train-advisor advise --model llama-3.1"));
        assertEquals(List.of("cudnn"), complete(script, "train-advisor advise --attention-kernel cu"));
        assertEquals(List.of("foreach"), complete(script, "train-advisor advise --optimizer-kernel fo"));
        assertEquals(List.of("compiled"), complete(script, "train-advisor advise --elementwise-kernels co"));
        assertEquals(List.of("--zero-group-size", "--zero-stage"), complete(script, "train-advisor advise --zero"));
        assertEquals(List.of("tokens"), complete(script, "train-advisor search --keep to"));
        for (CommandLine cl : commands())
            for (OptionSpec o : cl.getCommandSpec().options())
                for (OptionSpec other : cl.getCommandSpec().options())
                    if (o != other && o.completionCandidates() != null && other.completionCandidates() != null
                            && o.paramLabel().equals(other.paramLabel()))
                        assertEquals(List.copyOf(iterable(o)), List.copyOf(iterable(other)), cl.getCommandName() + " "
                                + o.longestName() + " and " + other.longestName() + " share a label, so their values");
    }

    static List<String> iterable(OptionSpec o) {
        List<String> out = new ArrayList<>();
        o.completionCandidates().forEach(out::add);
        return out;
    }

    /** What bash's completion offers for {@code line} (the cursor at its end) with {@code script} loaded. */
    static List<String> complete(Path script, String line) throws Exception {
        String[] words = line.split(" ", -1);
        StringBuilder cmd = new StringBuilder("source '" + script + "'; COMP_WORDS=(");
        for (String w : words) cmd.append("'").append(w).append("' ");
        cmd.append("); COMP_CWORD=").append(words.length - 1).append("; COMP_LINE='").append(line).append("'; COMP_POINT=")
                .append(line.length()).append("; _complete_train-advisor; printf '%s\\n' \"${COMPREPLY[@]}\"");
        Process p = new ProcessBuilder("/bin/bash", "-c", cmd.toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        return out.lines().map(String::strip).filter(s -> !s.isEmpty()).sorted().toList();
    }

    /**
     * search --format csv: a CSV reader finds the header's columns in every row (the step's parts hold commas), and the
     * numbers are the JSON's; batch --format csv likewise, one row a run.
     */
    @Test
    void theCsvTablesAreWhatACsvReaderReads() throws Exception {
        String csv = run("search", CliTest.PCIE, "--top", "4", "--format", "csv").out();
        List<List<String>> rows = parse(csv);
        List<String> header = rows.get(0);
        assertEquals(5, rows.size(), csv);
        for (List<String> row : rows) assertEquals(header.size(), row.size(), "as wide as the header: " + row);
        assertEquals(Set.copyOf(header).size(), header.size(), "each column once");
        JsonNode json = JSON.readTree(run("search", CliTest.PCIE, "--top", "4", "--format", "json").out()).path("layouts");
        for (int i = 0; i < 4; i++) {
            List<String> row = rows.get(i + 1);
            JsonNode layout = json.get(i);
            assertEquals(Integer.toString(i + 1), row.get(header.indexOf("rank")));
            assertEquals(layout.path("tokens_per_gpu_per_s").asDouble(), Double.parseDouble(row.get(header.indexOf("tokens_per_gpu_per_s"))),
                    layout.path("tokens_per_gpu_per_s").asDouble() * 1e-5);
            assertEquals(layout.path("speedup").asDouble(), Double.parseDouble(row.get(header.indexOf("speedup"))), 1e-5);
            assertEquals(layout.path("step_parts").asText(), row.get(header.indexOf("step_parts")));
            assertEquals(layout.path("layout").path("parallel.pp").asText(), row.get(header.indexOf("parallel.pp")));
            assertTrue(row.get(header.indexOf("step_parts")).contains(","), "a field with a comma, read whole");
        }

        Path fleet = Files.createDirectories(tmp.resolve("fleet"));
        Files.copy(Path.of(CliTest.PCIE), fleet.resolve("a.yaml"));
        Files.writeString(fleet.resolve("b.yaml"), Files.readString(Path.of(CliTest.NVLINK))
                .replaceFirst("(?m)^name: .*$", "name: \"nvlink, \\\\\"the fast one\\\\\"\""));
        List<List<String>> batch = parse(run("batch", fleet.toString(), "--format", "csv").out());
        assertEquals(3, batch.size());
        for (List<String> row : batch) assertEquals(batch.get(0).size(), row.size(), row.toString());
        assertTrue(batch.stream().anyMatch(r -> r.get(0).equals("nvlink, \"the fast one\"")), batch.toString());
    }

    static List<List<String>> parse(String csv) throws IOException {
        CsvMapper mapper = new CsvMapper().enable(CsvParser.Feature.WRAP_AS_ARRAY);
        List<List<String>> out = new ArrayList<>();
        try (MappingIterator<List<String>> it = mapper.readerForListOf(String.class).readValues(csv)) {
            while (it.hasNext()) out.add(it.next());
        }
        return out;
    }

    /** The batch's progress line: the rate so far and the time left at it. */
    @Test
    void theProgressLineSaysTheRateAndTheTimeLeft() {
        // 230 of 460 runs in 5 s: 46 runs a second, 230 left = 5 s
        assertEquals("[###############               ] 230/460  46.0 runs/s, 0:05 left  a.yaml",
                BatchCommand.Progress.line(230, 460, 5.0, "a.yaml"));
        // 10 of 10,000 in 4 s: 2.5 a second, 9,990 left = 3,996 s = 1:06:36
        assertTrue(BatchCommand.Progress.line(10, 10_000, 4.0, "x").contains("2.5 runs/s, 1:06:36 left"));
        assertEquals("1:02:05", BatchCommand.Progress.clock(3725));
        assertEquals("0:59", BatchCommand.Progress.clock(59.4));
    }

    /**
     * A command line naming one command holds that command alone (Main.commandLine: picocli reads a command's options
     * when it is added, a third of a cold start), and what the user sees is the same: each command's usage, its
     * qualified name in messages, and the same run printed through Main.run as through the whole tree.
     */
    @Test
    void aCommandNamedAloneIsTheCommandOfTheWholeTree() {
        CommandLine whole = Main.commandLine();
        assertEquals(List.of("advise", "batch", "parse", "validate", "search", "catalog", "help", "completion"),
                new ArrayList<>(whole.getSubcommands().keySet()));
        for (String name : List.of("advise", "batch", "parse", "validate", "search", "catalog")) {
            CommandLine alone = Main.commandLine(name, "--format", "json");
            assertEquals(List.of(name), new ArrayList<>(alone.getSubcommands().keySet()), name);
            CommandLine sub = alone.getSubcommands().get(name);
            assertEquals("train-advisor " + name, sub.getCommandSpec().qualifiedName());
            assertEquals(usage(whole.getSubcommands().get(name)), usage(sub), name + ": usage");
        }
        // help and completion, an unknown command and no command at all see every command
        for (String[] args : new String[][]{{"help", "advise"}, {"completion"}, {"advize"}, {}})
            assertEquals(whole.getSubcommands().keySet(), Main.commandLine(args).getSubcommands().keySet(), List.of(args).toString());
        assertTrue(run("advize").err().contains("did you mean advise?"), run("advize").err());
    }

    static String usage(CommandLine cl) {
        java.io.StringWriter w = new java.io.StringWriter();
        cl.setUsageHelpWidth(200);
        cl.usage(new java.io.PrintWriter(w), CommandLine.Help.Ansi.OFF);
        return w.toString();
    }
}
