package dev.trainadvisor.ingest;

import dev.trainadvisor.input.SpecException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * No input makes a parser throw or hang: random bytes, token soup, truncated lines, megabyte lines, every sample cut
 * at every line and at several character positions. Each parser's confidence and parse must return (parse a result
 * that is not the safety net's "parser error"), and detection either returns a result or throws SpecException.
 */
class RobustnessTest {
    static final List<LogParser> PARSERS = LogFormats.all();

    /** Runs every parser and detection on {@code text}. */
    static void survive(String text, String what) {
        for (LogParser p : PARSERS) {
            double c;
            try {
                c = p.confidence(text);
            } catch (RuntimeException e) {
                throw new AssertionError(p.format() + ".confidence threw on " + what, e);
            }
            assertTrue(c >= 0 && c <= 1, p.format() + " confidence " + c + " on " + what);
            ParsedLog r;
            try {
                r = p.parse(text);
            } catch (RuntimeException e) {
                throw new AssertionError(p.format() + ".parse threw on " + what, e);
            }
            assertNotNull(r, p.format() + " on " + what);
            for (String w : r.warnings())
                assertFalse(w.startsWith("parser error"), p.format() + " on " + what + ": " + w);
            for (double v : r.metrics().values()) assertTrue(Double.isFinite(v), p.format() + " on " + what + ": " + r.metrics());
        }
        try {
            assertNotNull(LogFormats.detectAndParse(text, "x.log"));
        } catch (SpecException expected) {
            // not recognized: the one exception detection may throw
        }
    }

    @Test
    void randomBytes() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            Random random = new Random(7);
            for (int i = 0; i < 150; i++) {
                byte[] bytes = new byte[random.nextInt(3000)];
                random.nextBytes(bytes);
                survive(new String(bytes, StandardCharsets.ISO_8859_1), "random bytes #" + i);
                survive(new String(bytes, StandardCharsets.UTF_8), "random UTF-8 #" + i);
            }
        });
    }

    /** Fragments of every format, glued at random: reaches the branches random bytes do not. */
    static final String[] TOKENS = {"iteration", " ", "  ", "|", ":", ": ", "=", "/", "1", "42", "-3", "1e5", "nan", "inf",
            "5,856", "1.5K", "GiB(", "%)", "step=", "step:", "steps: ", "tflops=", "tgs (tokens/gpu/second)=", "{'", "'",
            "{", "}", "[", "]", "(", ")", ",", "\n", "\r", "\t", "\u001B[31m", "[rank0]:", "0: ", "[1,0]<stdout>:",
            "record_current_batch_training_metrics", "skip parameter update at step ", "elapsed time per iteration (ms)",
            "throughput per GPU (TFLOP/s/GPU)", "number of skipped iterations", "memory (MB)", "max reserved",
            "time (ms)", "(min, max) time across ranks (ms):", "forward-backward ....:", "------ arguments ------",
            "  hidden_size ........ ", "end of arguments", "padded vocab (size: 3) with 0 dummy tokens (new size: ",
            "core_v0.", "megatron-core==", "[Rank 0] ", ", skipped=", "SamplesPerSec=", "MaxMemAllocated=", "GB",
            "iter time (s):", "samples/sec:", "------ DeepSpeed Flops Profiler ------", "Profile Summary at step ",
            "fwd latency:", "  ms", "tps:", "wps:", "mfu:", "memory:", "iteration: ", " / ", "[batch=", "]:",
            "Train ", "throughput/device/tokens_per_sec", "{'loss': ", "'train_runtime': ", "***** train metrics *****",
            " = ", "nThread 1 nGpus 8", "float", "sum", "Avg bus bandwidth", "GPU0", "NV18", " X ", "PHB", "Legend:"};

    @Test
    void tokenSoup() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            Random random = new Random(11);
            for (int i = 0; i < 300; i++) {
                StringBuilder b = new StringBuilder();
                int n = random.nextInt(400);
                for (int k = 0; k < n; k++) b.append(TOKENS[random.nextInt(TOKENS.length)]);
                survive(b.toString(), "token soup #" + i + ": " + b);
            }
        });
    }

    @Test
    void megabyteLines() {
        int mb = 1 << 20;
        List<String> lines = new ArrayList<>();
        lines.add("x".repeat(mb));
        lines.add("9".repeat(mb));
        lines.add(" ".repeat(mb) + "1");
        lines.add("iteration ".repeat(mb / 10));
        lines.add("iteration 1/" + "1".repeat(mb));
        lines.add("iteration        1/     100 |" + " elapsed time per iteration (ms): 1.0 |".repeat(mb / 40));
        lines.add("record_current_batch_training_metrics -- tflops=1 step=1 " + "a=".repeat(mb / 2));
        lines.add("record_current_batch_training_metrics -- step=1 grad_norm=" + "{".repeat(mb));
        lines.add("step: 1 memory: 1GiB(1%) tps: 1 " + "step: ".repeat(mb / 6));
        lines.add("iteration: 1 / 2 | " + "a: 1 | ".repeat(mb / 7));
        lines.add("[batch=1/2]: " + "Train ".repeat(mb / 6) + ": 1");
        lines.add("{'" + "a': 1, '".repeat(mb / 8) + "}");
        lines.add("{'loss': " + "[".repeat(mb) + "}");
        lines.add("\u001B[" + ";".repeat(mb));
        lines.add("\u001B[1;".repeat(mb / 4));
        lines.add("[Rank 0] " + "step=1, ".repeat(mb / 8));
        lines.add("  name " + ".".repeat(mb) + " value");
        lines.add("a_".repeat(mb / 2) + "perf");
        lines.add("core_v0." + "1".repeat(mb));
        lines.add("1 2 float " + "1.0 ".repeat(mb / 4));
        lines.add("GPU0\t X " + "\tNV18".repeat(mb / 5));
        lines.add("| ".repeat(mb / 2));
        lines.add(": ".repeat(mb / 2));
        lines.add("= ".repeat(mb / 2));
        java.util.Set<String> formats = new java.util.HashSet<>();
        for (String name : Samples.all()) {
            if (!formats.add(name.replaceAll("-\\d+\\.log$", ""))) continue;     // the first sample of each format
            String text = Samples.text(name);
            int nl = text.indexOf('\n');
            String second = nl < 0 ? text : text.substring(nl + 1);
            int end = second.indexOf('\n');
            String line = end < 0 ? second : second.substring(0, end);
            lines.add((line + " ").repeat(Math.max(1, mb / Math.max(1, line.length() + 1))));
        }
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            for (String line : lines) survive(line, "a long line starting " + line.substring(0, Math.min(40, line.length())));
            survive(String.join("\n", lines.subList(0, 4)), "four long lines");
        });
    }

    /**
     * A topology header with 200 000 GPU columns. TopologyLog (another author's class) compares every pair of GPU
     * columns: 16 000 columns take 2.3 s, 200 000 would take minutes. Reported; enable when it bounds the matrix.
     */
    @Test
    void megabyteTopologyHeader() {
        String line = "\tGPU0\tGPU1" + "\tGPU1".repeat((1 << 20) / 5);
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> survive(line, "a megabyte topology header"));
    }

    @Test
    void everySampleCutAtEveryLineAndAtCharacterPositions() {
        List<String> names = Samples.all();
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            for (String name : names) {
                String text = Samples.text(name);
                // every line boundary: the first k lines, and everything after line k
                int at = 0;
                while (at >= 0) {
                    survive(text.substring(0, at), name + " cut before char " + at);
                    survive(text.substring(at), name + " from char " + at);
                    int nl = text.indexOf('\n', at);
                    at = nl < 0 ? -1 : nl + 1;
                }
                // character positions: 16 evenly spaced cuts, and each line cut in the middle
                for (int k = 1; k < 16; k++) survive(text.substring(0, text.length() * k / 16), name + " at " + k + "/16");
                StringBuilder halves = new StringBuilder();
                for (String line : text.split("\n", -1)) halves.append(line, 0, line.length() / 2).append('\n');
                survive(halves.toString(), name + " with every line cut in half");
                survive(text.replace("\n", "\r\n"), name + " with CRLF");
                survive(text.replace(' ', '\t'), name + " with tabs");
            }
        });
    }

    /** Every sample cut at every character: each line in turn ends mid-way, wherever that is. */
    @Test
    void everySampleCutAtEveryCharacter() {
        List<String> names = Samples.all();
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            for (String name : names) {
                String text = Samples.text(name);
                for (int at = 1; at < text.length(); at++) survive(text.substring(0, at), name + " cut at char " + at);
            }
        });
    }

    @Test
    void samplesGlued() {
        StringBuilder all = new StringBuilder();
        for (String name : Samples.all()) all.append(Samples.text(name)).append('\n');
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> survive(all.toString(), "all samples in one file"));
    }
}
