package dev.trainadvisor.cli;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A batch folder is a boundary (issue 23, item 2): what is under it is read, and nothing else. A symbolic link out of
 * the folder, and a file a run file names with an absolute path, a '..' or a link that leads outside, are refused
 * unread unless --allow-outside is given, so that no byte of what they lead to reaches standard output, standard error,
 * or any report; a folder, a pipe and an empty file are skipped and listed as the README says, and counted.
 *
 * <p>Each secret file outside the folder holds a canary that no output may contain.
 */
class SharedFolderTest {
    static final String CANARY = "c4n4ry-hunter2";
    static final String RUN = "examples/internlm-7b-pcie-1node.yaml";
    static final List<String> FORMATS = List.of("json", "csv", "md", "html");

    @TempDir
    Path tmp;
    Path folder, outside;

    @BeforeEach
    void folders() throws IOException {
        folder = Files.createDirectories(tmp.resolve("shared"));
        outside = Files.createDirectories(tmp.resolve("private"));
        Files.copy(Path.of(RUN), folder.resolve("good.yaml"));
    }

    /** A YAML file whose parse error would quote its second line, and a text whose first token would be quoted. */
    Path secretYaml() throws IOException {
        return Files.writeString(outside.resolve("creds.yaml"), "db_user: admin\ndb_password: " + CANARY + "\n  bad: [yaml\n");
    }

    Path secretText() throws IOException {
        return Files.writeString(outside.resolve("environ"), CANARY + "=1\u0000PATH=/usr/bin\u0000");
    }

    /** Every format's stdout and stderr, none holding the canary; the last result. */
    CliTest.Result batchAllFormats(String... extra) {
        CliTest.Result last = null;
        for (String format : FORMATS) {
            List<String> args = new java.util.ArrayList<>(List.of("batch", folder.toString(), "--format", format));
            args.addAll(List.of(extra));
            last = CliTest.run(args.toArray(String[]::new));
            assertFalse(last.out().contains(CANARY) || last.err().contains(CANARY), format + ": the target's bytes leaked:\n" + last.err());
            assertFalse(last.out().contains("db_password") || last.err().contains("db_password"), format);
        }
        return last;
    }

    @Test
    void aSymbolicLinkOutOfTheFolderIsRefusedUnread() throws IOException {
        Files.createSymbolicLink(folder.resolve("link.yaml"), secretYaml());
        Files.createSymbolicLink(folder.resolve("environ"), secretText());
        CliTest.Result r = batchAllFormats();
        assertEquals(2, r.code(), r.err());
        for (String name : List.of("link.yaml", "environ"))
            assertTrue(r.err().contains("error: " + folder.resolve(name) + ": a file inside the folder " + folder + "; this is a "
                    + "symbolic link that leads outside it, so it is not read (--allow-outside reads it)"), r.err());
        assertTrue(r.err().contains("2 of 3 file(s) could not be advised; the report holds the other 1"), r.err());
        // the fleet lists the link's own name, not what it leads to
        CliTest.Result md = CliTest.run("batch", folder.toString(), "--format", "md");
        assertTrue(md.out().contains("- `link.yaml`: "), md.out());
    }

    @Test
    void aLinkToProcOrShadowIsRefusedAsAnyOther() throws IOException {
        Path environ = Path.of("/proc/self/environ");
        assumeTrue(Files.exists(environ));
        Files.createSymbolicLink(folder.resolve("env"), environ);
        Files.createSymbolicLink(folder.resolve("shadow"), Path.of("/etc/shadow"));
        CliTest.Result r = CliTest.run("batch", folder.toString(), "--format", "md");
        assertEquals(2, r.code());
        String home = System.getenv("HOME");
        assertTrue(home == null || !r.out().contains("HOME=" + home) && !r.err().contains("HOME=" + home), r.err());
        assertTrue(r.err().contains(folder.resolve("env") + ": a file inside the folder"), r.err());
        assertTrue(r.err().contains(folder.resolve("shadow") + ": a file inside the folder"), r.err());
        assertFalse(r.out().contains("root:"), "no line of /etc/shadow");
    }

    @Test
    void aLinkThatStaysInsideIsRead() throws IOException {
        Files.createDirectories(folder.resolve("runs"));
        Files.copy(Path.of(CliTest.NVLINK), folder.resolve("runs").resolve("nvlink.yaml"));
        Files.createSymbolicLink(folder.resolve("nvlink.yaml"), folder.resolve("runs").resolve("nvlink.yaml"));
        CliTest.Result r = CliTest.run("batch", folder.toString(), "--format", "csv");
        assertEquals(0, r.code(), r.err());
        assertEquals(3, r.out().strip().lines().count(), r.out());
        assertTrue(r.err().contains("note: skipped runs: a folder"), r.err());
    }

    @Test
    void allowOutsideReadsWhatTheLinkLeadsTo() throws IOException {
        Files.createSymbolicLink(folder.resolve("link.yaml"), Files.copy(Path.of(CliTest.NVLINK), outside.resolve("nvlink.yaml")));
        CliTest.Result refused = CliTest.run("batch", folder.toString(), "--format", "csv");
        assertEquals(2, refused.code());
        CliTest.Result r = CliTest.run("batch", folder.toString(), "--format", "csv", "--allow-outside");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("link.yaml"), r.out());
    }

    /** log:, topology:, nccl_tests: and config: of a run file in the folder, each pointing out three ways. */
    @Test
    void aNamedFileOutsideTheFolderIsRefusedUnread() throws IOException {
        Path secret = secretText();
        Files.createSymbolicLink(folder.resolve("inner-link.log"), secret);
        String run = Files.readString(Path.of(RUN));
        int k = 0;
        for (String key : List.of("log", "topology", "nccl_tests", "config")) {
            for (String name : List.of(secret.toString(), "../private/environ", "inner-link.log")) {
                Path file = folder.resolve("named-" + k++ + ".yaml");
                Files.writeString(file, run + key + ": " + name + "\n");
                CliTest.Result r = CliTest.run("batch", folder.toString(), "--format", "csv");
                assertEquals(2, r.code(), key + " " + name + ": " + r.err());
                String field = key.equals("nccl_tests") ? "cluster.intra_node.nccl_tests" : key;
                assertTrue(r.err().contains("error: " + file + ": field '" + field + "': a file inside the folder " + folder + "; '"
                        + name + "' leads outside it (an absolute path, a '..' or a symbolic link), so it is not read: "
                        + "--allow-outside reads it"), key + " " + name + ": " + r.err());
                assertFalse(r.err().contains(CANARY) || r.out().contains(CANARY), r.err());
                Files.delete(file);
            }
        }
        // the same run file advised alone names its own files: advise reads what the user points it at
        Files.delete(folder.resolve("inner-link.log"));
        Path log = Files.writeString(outside.resolve("train.log"), "not a log\n");
        Files.writeString(folder.resolve("with-log.yaml"), "cluster: {preset: a100-80gb-pcie-8x, nodes: 1}\nmodel: internlm-7b\n"
                + "parallel: {tp: 1, dp: 8, zero_stage: 1}\ntraining: {seq_len: 2048, micro_batch_size: 2, micro_batches: 4}\nlog: " + log + "\n");
        CliTest.Result batch = CliTest.run("batch", folder.toString(), "--format", "csv");
        assertTrue(batch.err().contains("field 'log': a file inside the folder"), batch.err());
        CliTest.Result allowed = CliTest.run("batch", folder.toString(), "--format", "csv", "--allow-outside");
        assertFalse(allowed.err().contains("a file inside the folder"), allowed.err());
    }

    /** A folder of per-rank logs named by a run file is inside; a link in it out of the folder is left unread. */
    @Test
    void aRankLogFolderInsideIsReadAndItsLinkOutIsNot() throws IOException {
        Path ranks = Files.createDirectories(folder.resolve("ranks"));
        Files.createSymbolicLink(ranks.resolve("rank-9.log"), secretText());
        Files.writeString(folder.resolve("ranked.yaml"), Files.readString(Path.of(RUN)) + "log: ranks\n");
        CliTest.Result r = CliTest.run("batch", folder.toString(), "--format", "csv");
        assertFalse(r.err().contains(CANARY) || r.out().contains(CANARY), r.err());
        assertFalse(r.err().contains("note: skipped ranks"), "the folder its run file names is no skipped entry: " + r.err());
        // no file of it is a training log: the message says so, and counts the files it could read (none)
        assertTrue(r.err().contains("none of the 0 files in it is a training log"), r.err());
    }

    /** README: files that are no run are skipped, listed and counted; a folder and a pipe are such, and so is an empty file. */
    @Test
    void foldersPipesAndEmptyFilesAreSkippedAndCounted() throws Exception {
        Files.createDirectories(folder.resolve("dir.yaml"));
        Files.writeString(folder.resolve("empty.yaml"), "");
        Files.writeString(folder.resolve("blank.yaml"), "\n  \n");
        // white space a JSON parser refuses (a form feed, a vertical tab) is still nothing in the file
        Files.writeString(folder.resolve("feed.json"), "\f\n\u000B \n");
        Path fifo = folder.resolve("fifo.yaml");
        boolean piped = new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0;
        CliTest.Result r = CliTest.run("batch", folder.toString(), "--format", "md");
        assertEquals(0, r.code(), "nothing failed: " + r.err());
        assertTrue(r.err().contains("note: skipped dir.yaml: a folder: batch reads the files in the folder itself"), r.err());
        assertTrue(r.err().contains("note: skipped empty.yaml: empty"), r.err());
        assertTrue(r.err().contains("note: skipped blank.yaml: empty"), r.err());
        assertTrue(r.err().contains("note: skipped feed.json: empty"), r.err());
        if (piped) assertTrue(r.err().contains("note: skipped fifo.yaml: not a regular file: a pipe, a socket or a device is "
                + "not read (it may never end)"), r.err());
        int skipped = piped ? 5 : 4;
        assertTrue(r.err().contains(skipped + " file(s) skipped as neither a run file nor a training log"), r.err());
        String list = r.out().substring(r.out().indexOf("## Files skipped"), r.out().indexOf("<a id=\"run-1\">"));
        assertEquals(skipped, list.lines().filter(l -> l.startsWith("- `")).count(), list);
        for (String name : List.of("dir.yaml", "empty.yaml", "blank.yaml", "feed.json")) assertTrue(list.contains("- `" + name + "`: "), name);
        CliTest.Result html = CliTest.run("batch", folder.toString(), "--format", "html");
        assertTrue(html.out().contains(skipped + " files were skipped as no run"), html.out());
    }

    @Test
    void aParseErrorQuotesABoundedLineOfTheUsersOwnFileOnOneLine() throws IOException {
        String longLine = "  bad: [" + "x".repeat(5000);
        Files.writeString(folder.resolve("broken.yaml"), "name: broken\n" + longLine + "\n");
        CliTest.Result r = CliTest.run("batch", folder.toString(), "--format", "csv");
        assertEquals(2, r.code());
        String line = r.err().lines().filter(l -> l.contains("broken.yaml")).findFirst().orElseThrow();
        assertTrue(line.startsWith("error: " + folder.resolve("broken.yaml") + ": "), line);
        assertTrue(line.length() < 500, line.length() + ": " + line);
        assertTrue(line.contains("at line 2"), line);
        assertEquals(0, r.err().lines().filter(l -> l.startsWith(" ") || l.strip().equals("^")).count(), "one line: " + r.err());
    }
}
