package dev.trainadvisor.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The files of docs/ generated from the code (run-file.md and its schema, cli.md): each test compares the committed file
 * with what its generator gives now, and fails while they differ; run with {@code -Dtrainadvisor.writeDocs=true}, it
 * writes the file anew instead (then review the diff and commit it).
 */
public final class GeneratedFiles {
    private GeneratedFiles() {}

    public static final String WRITE = "trainadvisor.writeDocs";

    /** Asserts that {@code file} holds {@code now}, or writes it when asked to; {@code how} says how to regenerate. */
    public static void check(Path file, String now, String how) throws IOException {
        if (Boolean.getBoolean(WRITE)) {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, now);
            return;
        }
        String committed = Files.exists(file) ? Files.readString(file) : "";
        if (now.equals(committed)) return;
        // name the first line that differs rather than print both files whole
        String[] want = now.split("\n", -1), have = committed.split("\n", -1);
        int i = 0;
        while (i < want.length && i < have.length && want[i].equals(have[i])) i++;
        assertEquals(i < want.length ? want[i] : "(end of file)", i < have.length ? have[i] : "(end of file)",
                file + " is not what the code gives now (first difference at line " + (i + 1) + "): regenerate it with " + how);
        assertEquals(now, committed, file + " differs: regenerate it with " + how);
    }
}
