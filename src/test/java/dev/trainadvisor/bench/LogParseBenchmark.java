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

/**
 * Speed target (issue 4): at least 100 MB/s of log. A 32 MB log is built from a sample's lines repeated with
 * rising step numbers; MB/s = 32 / (ms per op / 1000). Run with bench/run.sh LogParseBenchmark.
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

    @Setup
    public void setUp() throws Exception {
        String[] lines = Files.readString(Path.of("../shared/samples/logs", sample)).split("\n");
        StringBuilder b = new StringBuilder(TARGET_BYTES + 4096);
        int copy = 0;
        while (b.length() < TARGET_BYTES) {
            for (String l : lines) {
                if (l.startsWith("# source")) continue;
                // new step numbers each copy, so that duplicate merging does not shrink the work
                b.append(l.replace("step=", "step=" + copy).replace("iteration ", "iteration " + copy)
                        .replace("step: ", "step: " + copy)).append('\n');
            }
            copy++;
        }
        text = b.toString();
    }

    @Benchmark
    public ParsedLog detectAndParse() { return LogFormats.detectAndParse(text, sample); }
}
