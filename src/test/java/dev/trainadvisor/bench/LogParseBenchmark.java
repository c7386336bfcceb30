package dev.trainadvisor.bench;

import dev.trainadvisor.ingest.LogFormats;
import dev.trainadvisor.ingest.ParsedLog;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Speed target (issue 4): at least 100 MB/s of log. A 32 MB log is built from a sample's lines repeated with
 * rising step numbers (each copy's lines keep their layout; set-up checks the parser still reads every copy's steps);
 * MB/s = 32 / (ms per op / 1000). Run with bench/run.sh LogParseBenchmark.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class LogParseBenchmark {
    static final int TARGET_BYTES = 32 << 20;

    @Param({"internlm-1.log", "megatron-1.log", "torchtitan-1.log"})
    public String sample;

    String text;

    /** Step numbers of a sample stay below this; copy k adds k x STRIDE to each, so every copy has new steps. */
    static final long STRIDE = 1_000_000;
    /**
     * The step number of each format's step line: InternEvo and DeepSpeed {@code step=N}, torchtitan {@code step: N},
     * Megatron {@code iteration      N/  M} (N right-aligned; group 1 is what precedes the number).
     */
    static final Pattern STEP = Pattern.compile("(\\bstep=|\\bstep: *|\\biteration +)(\\d+)");
    static final Pattern TOTAL = Pattern.compile("(\\biteration +\\d+/ *)(\\d+)");

    @Setup
    public void setUp() throws Exception {
        String[] lines = Files.readString(Path.of("../shared/samples/logs", sample)).split("\n");
        StringBuilder b = new StringBuilder(TARGET_BYTES + 4096);
        int copy = 0, stepLines = 0;
        for (String l : lines) if (!l.startsWith("# source") && STEP.matcher(l).find()) stepLines++;
        while (b.length() < TARGET_BYTES) {
            for (String l : lines) {
                if (l.startsWith("# source")) continue;
                // new step numbers each copy, so that duplicate merging does not shrink the work
                b.append(renumber(l, copy)).append('\n');
            }
            copy++;
        }
        text = b.toString();
        // the rewriting must leave lines the parser reads: one step per step line of every copy
        ParsedLog p = LogFormats.detectAndParse(text, sample);
        if (p.steps() != (long) copy * stepLines)
            throw new IllegalStateException(sample + " read as " + p.format() + ": " + p.steps() + " steps, expected "
                    + copy + " copies x " + stepLines + " step lines");
    }

    /**
     * {@code line} with its step numbers moved up by {@code copy x STRIDE} (and Megatron's total iterations with them,
     * so that N stays below M); the rest of the line is unchanged.
     */
    static String renumber(String line, int copy) {
        long shift = copy * STRIDE;
        String s = STEP.matcher(line).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + (Long.parseLong(m.group(2)) + shift)));
        return TOTAL.matcher(s).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + (Long.parseLong(m.group(2)) + shift)));
    }

    @Benchmark
    public ParsedLog detectAndParse() { return LogFormats.detectAndParse(text, sample); }
}
