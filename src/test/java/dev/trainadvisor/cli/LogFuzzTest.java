package dev.trainadvisor.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Random mutations of every real log the project holds (shared/samples/logs, src/test/resources/logs): lines dropped,
 * repeated or shuffled, numbers made NaN, infinite, negative, zero or huge, bytes flipped, a line cut, a very long
 * line, binary garbage, timestamps and iteration numbers out of order. Each mutated log goes through {@code parse} and
 * {@code advise --log}: every case ends in under 20 seconds with exit 0, or exit 2 and a message; never exit 1 (that is
 * --fail-on's), never a stack trace.
 *
 * <p>Since issue 23: one case in forty has a line of 4 MB (a 30 MB name's kind: cut at LogSource's 1 MB), and one in
 * five also runs as {@code batch} of a folder of its own, with a runs.yaml that describes the log and a symbolic link
 * out of the folder to a file whose every token is a canary: no output may hold the canary, and no line of standard
 * error may pass SpecException's bound.
 *
 * <p>The number of cases is {@code -Dfuzz.logs=N} (default 600, about 20 seconds here). A full run of 10,000 cases
 * ({@code mvn -B -ntp test -Dtest=LogFuzzTest -Dfuzz.logs=10000}) is recorded in the closing note of issue 12, and
 * again in issue 23's.
 */
class LogFuzzTest {
    static final long SEED = 20261201L;

    @TempDir
    Path tmp;

    static List<Path> samples() throws IOException {
        List<Path> out = new ArrayList<>();
        for (Path dir : List.of(Path.of("..", "shared", "samples", "logs"), Path.of("src", "test", "resources", "logs"),
                Path.of("src", "test", "resources", "logs", "history")))
            if (Files.isDirectory(dir))
                try (Stream<Path> s = Files.list(dir)) {
                    s.filter(p -> p.toString().endsWith(".log")).sorted().forEach(out::add);
                }
        return out;
    }

    @Test
    void mutatedLogsEndInExitZeroOrTwoWithAMessage() throws IOException {
        int cases = Integer.getInteger("fuzz.logs", 600);
        List<Path> samples = samples();
        assertTrue(samples.size() >= 20, "the samples are there: " + samples);
        List<String> texts = new ArrayList<>();
        for (Path p : samples) texts.add(Files.readString(p, StandardCharsets.ISO_8859_1));
        SplittableRandom random = new SplittableRandom(SEED);
        int[] codes = new int[3];
        Path secret = Files.writeString(tmp.resolve("secret.log"), (CANARY + " iteration 1/ 10 | elapsed time per iteration (ms): "
                + "1.0 |\n").repeat(3));
        for (int i = 0; i < cases; i++) {
            int which = random.nextInt(texts.size());
            byte[] mutated = mutate(texts.get(which), random);
            if (random.nextInt(40) == 0) mutated = withHugeLine(mutated, random);
            boolean batch = random.nextInt(5) == 0;
            Path folder = batch ? Files.createDirectories(tmp.resolve("batch-" + i)) : tmp;
            Path f = folder.resolve("case-" + i + ".log");
            Files.write(f, mutated);
            String label = "case " + i + " (" + samples.get(which).getFileName() + ", seed " + SEED + ")";
            List<String[]> commands = new ArrayList<>(List.of(new String[]{"parse", f.toString(), "--format", "json"},
                    new String[]{"advise", "--log", f.toString(), "--cluster", "dgx-a100-80gb", "--model", "internlm-7b",
                            "--seq-len", "2048", "--format", "json"}));
            if (batch) {
                Files.writeString(folder.resolve("runs.yaml"), "defaults: {cluster: dgx-a100-80gb, model: internlm-7b, "
                        + "training: {seq_len: 2048, micro_batch_size: 1}}\n" + f.getFileName() + ": {}\n");
                Files.createSymbolicLink(folder.resolve("leak.log"), secret);
                commands.add(new String[]{"batch", folder.toString(), "--format", List.of("json", "csv", "md", "html").get(random.nextInt(4))});
            }
            for (String[] args : commands) {
                CliTest.Result r = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> CliTest.run(args), label);
                assertTrue(r.code() == 0 || r.code() == 2, label + " " + args[0] + ": exit " + r.code() + "\n" + r.err());
                if (r.code() == 2) assertFalse(r.err().isBlank(), label + ": exit 2 says why");
                assertFalse(r.err().contains("\tat ") || r.err().contains("Exception in thread"),
                        label + " " + args[0] + ": a stack trace\n" + r.err());
                for (String line : r.err().lines().toList())
                    assertTrue(line.length() <= RunFileFuzzTest.MAX_MESSAGE_LINE, () -> label + " " + args[0] + ": a line of "
                            + line.length() + " characters: " + line.substring(0, 300));
                if (args[0].equals("batch"))
                    assertFalse(r.out().contains(CANARY) || r.err().contains(CANARY), label + ": the link out was read\n" + r.err());
                codes[r.code()]++;
            }
            if (batch) RunFileFuzzTest.deleteTree(folder);
            else Files.delete(f);
        }
        // both outcomes happen: the mutations are neither all harmless nor all fatal
        assertTrue(codes[0] > 0 && codes[2] > 0, "exit 0: " + codes[0] + ", exit 2: " + codes[2]);
    }

    /** What the file a batch's link leads out to holds, and no output of the batch may. */
    static final String CANARY = "CANARY-9a8b7c6d";

    /** A line of 4 MB put among the log's lines. */
    static byte[] withHugeLine(byte[] log, SplittableRandom r) {
        byte[] line = ("iteration 7/ 100 | " + "y".repeat(4 << 20) + "\n").getBytes(StandardCharsets.ISO_8859_1);
        int at = log.length == 0 ? 0 : r.nextInt(log.length);
        byte[] out = new byte[log.length + line.length];
        System.arraycopy(log, 0, out, 0, at);
        System.arraycopy(line, 0, out, at, line.length);
        System.arraycopy(log, at, out, at + line.length, log.length - at);
        return out;
    }

    /** One to three mutations of a log's text. */
    static byte[] mutate(String text, SplittableRandom r) {
        List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
        int n = 1 + r.nextInt(3);
        for (int k = 0; k < n && !lines.isEmpty(); k++) {
            int i = r.nextInt(lines.size());
            switch (r.nextInt(11)) {
                case 0 -> lines.remove(i);
                case 1 -> lines.add(i, lines.get(r.nextInt(lines.size())));
                case 2 -> java.util.Collections.swap(lines, i, r.nextInt(lines.size()));
                case 3 -> lines.set(i, number(lines.get(i), r));
                case 4 -> lines.set(i, lines.get(i).substring(0, r.nextInt(lines.get(i).length() + 1)));
                case 5 -> lines.set(i, "x".repeat(1 + r.nextInt(200_000)));
                case 6 -> lines.add(i, garbage(r));
                case 7 -> { // every line from i on: numbers changed, as if the run diverged
                    for (int j = i; j < Math.min(lines.size(), i + 50); j++) lines.set(j, number(lines.get(j), r));
                }
                case 8 -> lines.subList(r.nextInt(Math.max(1, lines.size())), lines.size()).clear();
                case 9 -> lines.set(i, lines.get(i).replaceAll("\\d{4}-\\d{2}-\\d{2}", "1970-01-0" + (1 + r.nextInt(9))));
                default -> lines.set(i, lines.get(i).replace("iteration", "iteration " + r.nextInt(3)));
            }
        }
        byte[] b = String.join("\n", lines).getBytes(StandardCharsets.ISO_8859_1);
        if (r.nextInt(4) == 0 && b.length > 0) for (int k = 0; k < 1 + r.nextInt(8); k++) b[r.nextInt(b.length)] ^= (byte) (1 << r.nextInt(8));
        return b;
    }

    static final String[] NUMBERS = {"NaN", "nan", "inf", "-inf", "Infinity", "0", "-1", "1e308", "-1e308", "1e-320",
            "99999999999999999999999", "2147483648", "-0", "0.0", "1e400", ""};

    /** A number of the line replaced by an odd one. */
    static String number(String line, SplittableRandom r) {
        var m = java.util.regex.Pattern.compile("-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?").matcher(line);
        List<int[]> spans = new ArrayList<>();
        while (m.find()) spans.add(new int[]{m.start(), m.end()});
        if (spans.isEmpty()) return line;
        int[] s = spans.get(r.nextInt(spans.size()));
        return line.substring(0, s[0]) + NUMBERS[r.nextInt(NUMBERS.length)] + line.substring(s[1]);
    }

    static String garbage(SplittableRandom r) {
        byte[] b = new byte[1 + r.nextInt(400)];
        r.nextBytes(b);
        return new String(b, StandardCharsets.ISO_8859_1);
    }
}
