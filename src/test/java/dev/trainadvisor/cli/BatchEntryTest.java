package dev.trainadvisor.cli;

import dev.trainadvisor.assemble.Boundary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * What the batch's listing makes of each kind of entry (BatchCommand.Entry): an entry that is no symbolic link is
 * judged from its own attributes, read once, and a link by following it, each question asked of the file system; both
 * give the kinds written out here, so that the one read of attributes changes nothing a user sees.
 */
class BatchEntryTest {

    @TempDir
    Path root;

    private BatchCommand.Entry.Kind kind(Path entry, BatchCommand.Outputs outputs, Boundary boundary) {
        return BatchCommand.Entry.of(entry, outputs, boundary, new AtomicLong()).kind();
    }

    @Test
    void eachKindOfEntry() throws Exception {
        Path dir = Files.createDirectory(root.resolve("runs"));
        Path outside = Files.createDirectory(root.resolve("elsewhere"));
        Path run = Files.copy(Path.of("examples/internlm-7b-pcie-1node.yaml"), dir.resolve("run-1.yaml"));
        Path elsewhereRun = Files.copy(run, outside.resolve("run-2.yaml"));
        Files.createDirectory(dir.resolve("sub"));
        Files.writeString(dir.resolve("blank.log"), " \n\t\n");
        Files.writeString(dir.resolve("notes.txt"), "what we tried");
        Files.createSymbolicLink(dir.resolve("in.yaml"), run);
        Files.createSymbolicLink(dir.resolve("out.yaml"), elsewhereRun);
        Files.createSymbolicLink(dir.resolve("gone.yaml"), dir.resolve("nothing.yaml"));
        assertEquals(0, new ProcessBuilder("mkfifo", dir.resolve("pipe.log").toString()).start().waitFor());
        Files.writeString(dir.resolve(".hidden.yaml"), "a: 1");

        Boundary boundary = Boundary.of(dir);
        BatchCommand.Outputs none = BatchCommand.Outputs.of(List.of());
        assertEquals(BatchCommand.Entry.Kind.FILE, kind(run, none, boundary));
        assertEquals(BatchCommand.Entry.Kind.FOLDER, kind(dir.resolve("sub"), none, boundary));
        assertEquals(BatchCommand.Entry.Kind.EMPTY, kind(dir.resolve("blank.log"), none, boundary));
        assertEquals(BatchCommand.Entry.Kind.FILE, kind(dir.resolve("notes.txt"), none, boundary));
        assertEquals(BatchCommand.Entry.Kind.FILE, kind(dir.resolve("in.yaml"), none, boundary),
                "a link inside the folder");
        assertEquals(BatchCommand.Entry.Kind.OUTSIDE, kind(dir.resolve("out.yaml"), none, boundary),
                "a link leading out");
        assertEquals(BatchCommand.Entry.Kind.FILE, kind(dir.resolve("out.yaml"), none, Boundary.NONE),
                "--allow-outside");
        assertEquals(BatchCommand.Entry.Kind.OUTSIDE, kind(dir.resolve("gone.yaml"), none, boundary),
                "a link to nothing: where it leads is unknown");
        assertEquals(BatchCommand.Entry.Kind.DANGLING, kind(dir.resolve("gone.yaml"), none, Boundary.NONE));
        assertEquals(BatchCommand.Entry.Kind.NOT_A_FILE, kind(dir.resolve("pipe.log"), none, boundary));
        assertEquals(BatchCommand.Entry.Kind.HIDDEN, kind(dir.resolve(".hidden.yaml"), none, boundary));

        BatchCommand.Entry e = BatchCommand.Entry.of(run, none, boundary, new AtomicLong());
        assertNotNull(e.glance(), "a run file is glanced at");
        assertNull(BatchCommand.Entry.of(dir.resolve("notes.txt"), none, boundary, new AtomicLong()).glance());
    }

    @Test
    void theBatchsOwnOutputsByPathOrByFile() throws Exception {
        Path dir = Files.createDirectory(root.resolve("runs"));
        Path report = Files.writeString(dir.resolve("report.csv"), "earlier report");
        Path hardLink = Files.createLink(dir.resolve("same-report.csv"), report);
        Path softLink = Files.createSymbolicLink(dir.resolve("link-report.csv"), report);
        Path other = Files.writeString(dir.resolve("other.csv"), "earlier report");
        Path notYet = dir.resolve("new-report.csv");
        BatchCommand.Outputs outputs = BatchCommand.Outputs.of(List.of(report, notYet));
        Boundary boundary = Boundary.of(dir);
        assertEquals(BatchCommand.Entry.Kind.OWN, kind(report, outputs, boundary), "the --out file itself");
        assertEquals(BatchCommand.Entry.Kind.OWN, kind(hardLink, outputs, boundary), "another name of the same file");
        assertEquals(BatchCommand.Entry.Kind.OWN, kind(softLink, outputs, boundary), "a link to it");
        assertEquals(BatchCommand.Entry.Kind.FILE, kind(other, outputs, boundary), "the same bytes, another file");
        // an output the batch has not written yet is matched by its path, a relative one too
        Files.writeString(notYet, "x");
        assertEquals(BatchCommand.Entry.Kind.OWN, kind(notYet, outputs, boundary));
        Path relative = Path.of("").toAbsolutePath().relativize(notYet);
        assertEquals(BatchCommand.Entry.Kind.OWN, kind(notYet, BatchCommand.Outputs.of(List.of(relative)), boundary));
    }
}
