package dev.trainadvisor.cli;

import dev.trainadvisor.assemble.Boundary;
import dev.trainadvisor.report.Fleet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A large folder is listed a part at a time (BatchCommand.LISTING_PART entries), so that the entries' answers are not
 * all held at once: what the batch makes of the folder does not depend on where the parts end. A folder of every kind
 * of entry, listed one, two, three entries at a time and in one part: the same runs in the same order, each with the
 * same file, log and tree, the same failures and the same skipped entries, where a run file and the log of its stem,
 * runs.yaml and the logs it describes, and a run file and the log it names fall in different parts.
 */
class BatchListingPartsTest {

    @TempDir
    Path dir;

    private record Listing(List<String> items, List<Fleet.Failure> failures, List<Fleet.Skipped> skipped) {}

    /** The parts the last listing was worked out in. */
    private final java.util.concurrent.atomic.AtomicInteger parts = new java.util.concurrent.atomic.AtomicInteger();

    private Listing list(int part) {
        parts.set(0);
        List<BatchCommand.Item> items = new ArrayList<>();
        List<Fleet.Failure> failures = new ArrayList<>();
        List<Fleet.Skipped> skipped = new ArrayList<>();
        BatchCommand.collect(BatchCommand.list(dir), List.of(), items,
                new BatchCommand.Failures(failures, new PrintWriter(new StringWriter())), skipped, Boundary.of(dir), part,
                parts::incrementAndGet);
        List<String> described = new ArrayList<>();
        for (BatchCommand.Item i : items)
            described.add(i.name() + " | " + i.file() + " | " + i.sameStemLog() + " | " + i.read());
        return new Listing(described, failures, skipped);
    }

    @Test
    void theFolderIsTheSameWhereverItsPartsEnd() throws Exception {
        String run = Files.readString(Path.of("examples/internlm-7b-pcie-1node.yaml"));
        String log = Files.readString(Path.of("examples/logs/tinyllama-h200-trainer.log"));
        Files.writeString(dir.resolve("a-run.yaml"), run);                    // joined to a-run.log, its stem
        Files.writeString(dir.resolve("a-run.log"), log);
        Files.writeString(dir.resolve("b-names.yaml"), run + "\nlog: z-named.log\n");   // names a log listed last
        Files.writeString(dir.resolve("c-alone.yaml"), run);
        Files.writeString(dir.resolve("d-empty.yaml"), "  \n");               // skipped: empty
        Files.writeString(dir.resolve("e-notes.txt"), "not a log\n");         // skipped: neither
        Files.writeString(dir.resolve("f-broken.yaml"), "cluster: [\n");      // a failure: cannot be read
        Files.createDirectory(dir.resolve("g-folder"));                       // skipped: a folder
        Files.writeString(dir.resolve("h-described.log"), log);               // runs.yaml describes it
        Files.writeString(dir.resolve("i-undescribed.log"), log);             // a failure: nothing describes it
        Files.writeString(dir.resolve("runs.yaml"), "defaults:\n  cluster: dgx-h100\n  model: llama-3-8b\n"
                + "h-described.log:\n  name: described\n  training: {seq_len: 2048}\n");
        Files.writeString(dir.resolve("z-named.log"), log);
        Files.writeString(dir.resolve("z-run.yaml"), run);

        Listing whole = list(BatchCommand.LISTING_PART);
        // what the folder holds, read in one part
        assertEquals(List.of("a-run.yaml", "b-names.yaml", "c-alone.yaml", "h-described.log", "z-run.yaml"),
                whole.items().stream().map(s -> s.substring(0, s.indexOf(" | "))).toList());
        assertTrue(whole.items().get(0).contains(" | " + dir.resolve("a-run.log").toAbsolutePath() + " | "),
                whole.items().get(0));
        assertTrue(whole.items().get(3).contains(" | " + dir.resolve("runs.yaml#h-described.log") + " | null | "),
                whole.items().get(3));
        assertEquals(List.of("f-broken.yaml", "i-undescribed.log"),
                whole.failures().stream().map(Fleet.Failure::file).toList());
        assertEquals(List.of("d-empty.yaml", "e-notes.txt", "g-folder"),
                whole.skipped().stream().map(Fleet.Skipped::file).toList());
        assertEquals(1, parts.get(), "one part");
        int entries = BatchCommand.list(dir).size();
        for (int part : new int[] {1, 2, 3, 5}) {
            Listing listing = list(part);
            assertEquals((entries + part - 1) / part, parts.get(), entries + " entries, " + part + " a part");
            assertEquals(whole.items(), listing.items(), part + " entries a part");
            assertEquals(whole.failures(), listing.failures(), part + " entries a part");
            assertEquals(whole.skipped(), listing.skipped(), part + " entries a part");
        }
    }
}
