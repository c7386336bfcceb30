package dev.trainadvisor.input;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * What InputFiles says of a file it cannot read whole, from one read of its attributes: each case's message written out
 * here as the four checks one by one gave it; and the text of a file, ASCII taken without a decoder, the same string.
 */
class InputFilesTest {

    @TempDir
    Path dir;

    private static final String WHAT = "a JSON or YAML file";

    private String refusal(Path p) {
        return assertThrows(SpecException.class, () -> InputFiles.readUtf8(p, WHAT)).getMessage();
    }

    @Test
    void aMissingFileAFolderAndALinkToNothingAreNamedAsBefore() throws Exception {
        Path missing = dir.resolve("missing.yaml");
        assertEquals(missing + ": " + WHAT + "; it does not exist", refusal(missing));
        Path folder = Files.createDirectory(dir.resolve("runs.yaml"));
        assertEquals(folder + ": " + WHAT + "; this is a folder", refusal(folder));
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling.yaml"), dir.resolve("nowhere"));
        assertEquals(dangling + ": " + WHAT + "; it does not exist", refusal(dangling));
    }

    @Test
    void aPipeIsNotReadAndALinkToAFileIsFollowed() throws Exception {
        Path fifo = dir.resolve("pipe.yaml");
        Process p = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, p.waitFor());
        assertEquals(fifo + ": " + WHAT + "; not a regular file (a device, pipe or socket is not read: it may never "
                + "end)", refusal(fifo));
        Path real = Files.writeString(dir.resolve("real.yaml"), "a: 1\n");
        Path link = Files.createSymbolicLink(dir.resolve("link.yaml"), real);
        assertEquals("a: 1\n", InputFiles.readUtf8(link, WHAT));
    }

    @Test
    void aFileOverTheLimitIsRefusedBySize() throws Exception {
        Path f = Files.writeString(dir.resolve("big.yaml"), "x".repeat(2048));
        SpecException e = assertThrows(SpecException.class, () -> InputFiles.readUtf8(f, WHAT, 1024));
        assertEquals(f + ": " + WHAT + " of at most 1 KB; this one is 2 KB", e.getMessage());
    }

    @Test
    void asciiUtf8AndMalformedBytes() throws Exception {
        String ascii = "name: run-1\nmetrics: {tflops_per_gpu: 93.5}\n";
        assertEquals(ascii, InputFiles.readUtf8(Files.writeString(dir.resolve("a.yaml"), ascii), WHAT));
        // two-byte and three-byte sequences, and a byte-order mark, which is dropped
        String utf8 = "name: Zürich – 8× A100\n";
        Path u = dir.resolve("u.yaml");
        Files.write(u, ("\uFEFF" + utf8).getBytes(StandardCharsets.UTF_8));
        assertEquals(utf8, InputFiles.readUtf8(u, WHAT));
        // 0xFF is no UTF-8 byte; 0xC3 alone starts a sequence it does not finish
        for (byte[] bad : new byte[][] {{'a', ':', ' ', (byte) 0xFF, '\n'}, {'a', ':', ' ', (byte) 0xC3}}) {
            Path b = Files.write(dir.resolve("bad.yaml"), bad);
            assertEquals(b + ": " + WHAT + " in UTF-8 text; the file is not valid UTF-8", refusal(b));
        }
    }
}
