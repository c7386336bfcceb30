package dev.trainadvisor.ingest;

import dev.trainadvisor.input.SpecException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Logs read as streams of lines: files of any size, the same lines as from a string, and the limits. */
class LogSourceTest {
    @TempDir
    Path tmp;

    static List<String> lines(LogSource log) {
        List<String> out = new ArrayList<>();
        try (LogSource.Pass pass = log.lines()) {
            for (String line : pass) out.add(line);
        }
        return out;
    }

    Path write(String name, byte[] bytes) throws IOException {
        Path f = tmp.resolve(name);
        Files.write(f, bytes);
        return f;
    }

    @Test
    void aFileAndAStringGiveTheSameCleanedLines() throws IOException {
        String text = "\uFEFFfirst\r\nsecond\n\n   \n[rank0]:third\r 50%|##   |\r100%|#####|\n"
                + "\u001B[31mstep: 1\u001B[39m  loss: 2\n1: slurm label\n[1,0]<stdout>:tagged\nlast without newline";
        List<String> want = List.of("first", "second", "third", " 50%|##   |", "100%|#####|", "step: 1  loss: 2",
                "slurm label", "tagged", "last without newline");
        assertEquals(want, lines(LogSource.of(text, "t")));
        assertEquals(want, lines(LogSource.of(write("a.log", text.getBytes(StandardCharsets.UTF_8)))));
    }

    @Test
    void linesAcrossManyChunksComeBackWhole() throws IOException {
        // 3.5 MiB of numbered lines: every chunk boundary of the reader falls inside a line somewhere
        StringBuilder b = new StringBuilder();
        int n = 0;
        while (b.length() < 3.5 * (1 << 20)) b.append("line ").append(n++).append(" ").append("x".repeat(n % 97)).append('\n');
        List<String> got = lines(LogSource.of(write("big.log", b.toString().getBytes(StandardCharsets.US_ASCII))));
        assertEquals(n, got.size());
        for (int i = 0; i < n; i++) assertEquals("line " + i + " " + "x".repeat((i + 1) % 97), got.get(i));
    }

    @Test
    void malformedUtf8ReadsAsReplacementCharacters() throws IOException {
        Path f = write("latin1.log", new byte[] {'a', (byte) 0xff, 'b', '\n', (byte) 0xe2, (byte) 0x82, (byte) 0xac, '\n'});
        assertEquals(List.of("a\uFFFDb", "\u20AC"), lines(LogSource.of(f)));
    }

    @Test
    void aLineLongerThanTheLimitIsCutAndTheRestIsRead() throws IOException {
        // a Megatron log with 3 MiB of garbage on one line between two iterations (a binary dump, a progress bar)
        String it1 = MegatronLogTest.iteration(1, 9000, 400, "2026-02-01 10:00:00.000000");
        String it2 = MegatronLogTest.iteration(2, 4000, 400, "2026-02-01 10:00:04.000000");
        String it3 = MegatronLogTest.iteration(3, 4100, 400, "2026-02-01 10:00:08.000000");
        String log = it1 + it2 + "z".repeat(3 << 20) + "\n" + it3;
        for (LogSource src : List.of(LogSource.of(log, "s"), LogSource.of(write("long.log", log.getBytes(StandardCharsets.UTF_8))))) {
            List<String> got = lines(src);
            assertEquals(4, got.size());
            assertEquals(LogSource.MAX_LINE, got.get(2).length(), "cut at 1 MiB");
            assertEquals(1, src.cutLines());
            ParsedLog p = new MegatronLog().parse(src);
            assertEquals(3, p.steps(), "the iteration after the long line is read");
            assertEquals(4.05, Samples.metric(p, "step_time_s"), 1e-12, "iterations 2, 3: 4000 and 4100 ms");
            assertTrue(p.warnings().contains("1 line longer than 1 MiB was cut to its first 1 MiB"), p.warnings().toString());
        }
    }

    /**
     * A pass's buffer starts at the file's size (at least 64 KiB) and doubles while a line or a grown file needs it: a
     * log that grows after its first pass, by a line of 200 KiB (three times the first buffer) and one of 1.5 MiB (past
     * the cut), is read whole by the next pass, the long line cut as from a string.
     */
    @Test
    // a pass whose full buffer could not grow would read nothing more, for ever: failed, not hung
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aFileThatGrowsAfterItsFirstPassIsReadWholeByTheNext() throws IOException {
        String first = "iteration 1\n";
        Path f = write("grows.log", first.getBytes(StandardCharsets.US_ASCII));
        LogSource log = LogSource.of(f);
        assertEquals(List.of("iteration 1"), lines(log));
        String more = "a".repeat(200 << 10) + "\nmiddle\n" + "b".repeat(3 << 19) + "\nlast\n";
        Files.write(f, more.getBytes(StandardCharsets.US_ASCII), StandardOpenOption.APPEND);
        List<String> got = lines(log);
        assertEquals(List.of("iteration 1", "a".repeat(200 << 10), "middle", "b".repeat(LogSource.MAX_LINE), "last"), got);
        assertEquals(lines(LogSource.of(first + more, "s")), got, "the same lines as from the text");
    }

    @Test
    void aFileLargerThanTheLimitIsRefusedNamingIt() throws IOException {
        Path f = write("huge.log", new byte[200]);
        SpecException e = assertThrows(SpecException.class, () -> LogSource.of(f, 100));
        assertEquals(f.toString(), e.file());
        assertTrue(e.getMessage().contains("a training log of at most 100 bytes; this one is 200 bytes"), e.getMessage());
    }

    @Test
    void aFileThatGrowsPastTheLimitWhileReadIsRefused() throws IOException {
        Path f = write("growing.log", "iteration 1\n".getBytes(StandardCharsets.US_ASCII));
        LogSource log = LogSource.of(f, 100);                        // 12 bytes when opened
        Files.write(f, "x\n".repeat(100).getBytes(StandardCharsets.US_ASCII), StandardOpenOption.APPEND);
        SpecException e = assertThrows(SpecException.class, () -> lines(log));
        assertTrue(e.getMessage().contains("growing.log") && e.getMessage().contains("at most 100 bytes; this one is larger"),
                e.getMessage());
    }

    @Test
    void devicesAndFoldersAreRefused() {
        Path zero = Path.of("/dev/zero");
        assumeTrue(Files.exists(zero), "no /dev/zero here");
        SpecException e = assertThrows(SpecException.class, () -> LogFormats.read(zero));
        assertTrue(e.getMessage().contains("/dev/zero") && e.getMessage().contains("not a regular file"), e.getMessage());
        SpecException folder = assertThrows(SpecException.class, () -> LogFormats.read(tmp));
        assertTrue(folder.getMessage().contains("folder"), folder.getMessage());
        SpecException absent = assertThrows(SpecException.class, () -> LogFormats.read(tmp.resolve("absent.log")));
        assertTrue(absent.getMessage().contains("absent.log") && absent.getMessage().contains("does not exist"), absent.getMessage());
    }

    @Test
    void detectionReadsTheHeadAndTheTailOfAFile() throws IOException {
        // 2 MiB: more than the 1 MiB head and 256 KiB tail together; the sample is the same as a string's
        StringBuilder b = new StringBuilder();
        int i = 0;
        while (b.length() < 2 << 20) b.append("filler line ").append(i++).append('\n');
        String text = b.toString();
        Path f = write("sample.log", text.getBytes(StandardCharsets.US_ASCII));
        String sample = LogSource.of(f).sample();
        assertEquals(LogSource.sample(text), sample);
        assertTrue(sample.length() < LogSource.HEAD + LogSource.TAIL + 2);
        assertTrue(sample.startsWith("filler line 0\n") && sample.endsWith("filler line " + (i - 1) + "\n"));
    }

    @Test
    void aMegatronFileIsReadInOnePassAsItsText() throws IOException {
        StringBuilder log = new StringBuilder(MegatronLogTest.DUMP);
        double[] ms = {9000, 4100, 4000, 4050, 3950};
        for (int k = 0; k < ms.length; k++) log.append(MegatronLogTest.iteration(k + 1, ms[k], 400, "2026-02-01 10:00:0" + k + ".123456"));
        Path f = write("megatron.log", log.toString().getBytes(StandardCharsets.UTF_8));
        ParsedLog fromFile = LogFormats.read(f), fromText = LogFormats.detectAndParse(log.toString(), "m.log");
        assertEquals("megatron", fromFile.format());
        assertEquals(fromText.metrics(), fromFile.metrics());
        assertEquals(fromText.config(), fromFile.config());
        assertEquals(4.025, Samples.metric(fromFile, "step_time_s"), 1e-12, "steady 4100, 4000, 4050, 3950");
    }
}
