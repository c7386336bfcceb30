package dev.trainadvisor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * validate --leave-out source (issue 21): today's output unchanged before it, the leave-one-source-out table after,
 * on three reference-run files copied into a folder so that it runs in seconds.
 */
class ValidateCommandTest {
    static final List<String> FILES = List.of("megatron-narayanan-2021.json", "nemo-long-sequence-cp.json",
            "consumer-gpus.json");

    @TempDir
    Path tmp;

    Path folder() throws IOException {
        for (String f : FILES) Files.copy(Path.of("knowledge-base/reference-runs", f), tmp.resolve(f));
        return tmp;
    }

    @Test
    void todaysTableComesFirstUnchangedAndEachGroupIsRefittedWithoutItself() throws IOException {
        Path dir = folder();
        CliTest.Result today = CliTest.run("validate", dir.toString());
        CliTest.Result loso = CliTest.run("validate", dir.toString(), "--leave-out", "source");
        assertEquals(Main.OK, today.code(), today.err());
        assertEquals(Main.OK, loso.code(), loso.err());
        assertTrue(loso.out().startsWith(today.out()), "validate's own output, byte for byte, comes first");
        String added = loso.out().substring(today.out().length());
        assertTrue(added.contains("| source group | runs | MAPE shipped | bias | MAPE out of source |"), added);
        // each group's refit is fitted on the other groups' tune rows, counted here from the files
        Map<String, Integer> tune = new HashMap<>();
        int all = 0;
        for (String f : FILES) {
            JsonNode root = CliTest.parse(Files.readString(dir.resolve(f)));
            int n = 0;
            for (JsonNode r : root.get("runs"))
                if (r.path("split").asText("tune").equals("tune") && !r.has("excluded")) n++;
            tune.put(root.get("source_group").asText(), n);
            all += n;
        }
        for (Map.Entry<String, Integer> e : tune.entrySet()) {
            String row = added.lines().filter(l -> l.startsWith("| " + e.getKey() + " |")).findFirst().orElseThrow();
            String[] cells = row.split("\\|");
            assertEquals(all - e.getValue(), Integer.parseInt(cells[7].trim()), row);
        }
        String overall = added.lines().filter(l -> l.startsWith("| overall |")).findFirst().orElseThrow();
        assertEquals(all, Integer.parseInt(overall.split("\\|")[7].trim()), overall);
    }

    @Test
    void theJsonCarriesBothReports() throws IOException {
        CliTest.Result r = CliTest.run("validate", folder().toString(), "--leave-out", "source", "--format", "json");
        assertEquals(Main.OK, r.code(), r.err());
        JsonNode j = CliTest.parse(r.out());
        CliTest.assertKeys(j, "validate --leave-out source", "validation", "leave_one_source_out");
        CliTest.assertKeys(j.get("leave_one_source_out"), "leave_one_source_out", "groups", "out_of_source", "coverage",
                "all_tune", "rows");
        assertEquals(FILES.size(), j.get("leave_one_source_out").get("groups").size());
    }

    @Test
    void onlySourceCanBeLeftOut() {
        CliTest.Result r = CliTest.run("validate", "--leave-out", "row");
        assertEquals(Main.BAD_INPUT, r.code());
        assertTrue(r.err().contains("--leave-out") && r.err().contains("source"), r.err());
        assertFalse(r.err().contains("\tat "), r.err());
    }
}
