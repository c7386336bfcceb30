package dev.trainadvisor.cli;

import dev.trainadvisor.docs.GeneratedFiles;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** docs/cli.md is picocli's usage help of every command as the commands print it now, and names every option. */
class CliDocsTest {

    @Test
    void theCommandLinePageIsCurrent() throws IOException {
        GeneratedFiles.check(CliDocs.PAGE, CliDocs.markdown(), CliDocs.REGENERATE);
    }

    /** Independently of the generator: every command has its section, and every option of it is in that section. */
    @Test
    void everyCommandAndOptionIsOnThePage() throws IOException {
        String page = Files.readString(CliDocs.PAGE);
        CommandLine top = Main.commandLine();
        List<String> missing = new ArrayList<>();
        int options = 0;
        for (var e : top.getSubcommands().entrySet()) {
            int at = page.indexOf("\n## train-advisor " + e.getKey() + "\n");
            if (at < 0) {
                missing.add("section of " + e.getKey());
                continue;
            }
            int end = page.indexOf("\n## ", at + 1);
            String section = page.substring(at, end < 0 ? page.length() : end);
            for (CommandLine.Model.OptionSpec o : e.getValue().getCommandSpec().options()) {
                if (o.hidden()) continue;
                options++;
                String name = o.longestName();
                // a negatable option is shown as --[no-]name
                boolean shown = section.contains(name) || (o.negatable() && section.contains("--[no-]" + name.substring(2)));
                if (!shown) missing.add(e.getKey() + " " + name);
            }
        }
        assertTrue(missing.isEmpty(), "not on docs/cli.md: " + missing);
        assertTrue(options > 60, "options checked: " + options);
    }
}
