package dev.trainadvisor.cli;

import dev.trainadvisor.input.Excerpt;
import dev.trainadvisor.input.SpecException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Bounds before work and nothing read silently wrong (issue 23, items 3 and 4), through the command line: a run file
 * over 1 MB is refused by its size; a key over 1,024 characters, a string over 8,192 and a YAML line over 16,384 before
 * the value is compared or echoed; every message is one line (or the lines a rule file's errors take) of bounded length
 * quoting at most 200 characters of any one value. A YAML alias is refused rather than read as its anchor's name;
 * numbers outside physical bounds are refused with the field named; a log's dropped values are counted in a warning;
 * {@code log: ''} is an error. (How fast a 30 MB name is refused is bench/hostile-input.sh's to say, not a unit test's.)
 */
class BoundedInputTest {
    static final String RUN = CliTest.PCIE;

    @TempDir
    Path tmp;

    String example() throws IOException { return Files.readString(Path.of(RUN)); }

    CliTest.Result advise(String name, String text) throws IOException {
        return CliTest.run("advise", Files.writeString(tmp.resolve(name), text).toString());
    }

    /** Exit 2, one line, at most {@code max} characters, starting with the file. */
    static String oneLine(CliTest.Result r, Path file, int max) {
        assertEquals(2, r.code(), r.err());
        assertEquals("", r.out());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().startsWith("error: " + file + ": "), r.err());
        assertTrue(r.err().length() <= max, () -> r.err().length() + " characters: " + r.err().substring(0, 300));
        return r.err().strip();
    }

    @Test
    void aRunFileOverOneMegabyteIsRefusedByItsSize() throws IOException {
        // a 30 MB name: refused before a byte is parsed (issue 23: 125 s and 1.7 GB to refuse)
        String text = example().replace("name: internlm-7b-pcie-1node", "name: " + "n".repeat(30 << 20));
        CliTest.Result r = advise("huge-name.yaml", text);
        assertEquals("error: " + tmp.resolve("huge-name.yaml") + ": a JSON or YAML file of at most 1 MB; this one is 30 MB",
                oneLine(r, tmp.resolve("huge-name.yaml"), 300));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            // where | how long | the message's words
            "key       | 10000   | keys of at most 1024 characters; one has 10,000: 'kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk... (10,000 characters)'",
            "value     | 9000    | field 'name': a string of at most 8,192 characters; this one has 9,000: 'vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv... (9,000 characters)'",
            "line      | 500000  | YAML lines of at most 16,384 characters (a key or a string is at most 8,192); line 19 has 500,006:",
    })
    void longKeysStringsAndLinesAreRefusedBeforeTheyAreEchoed(String where, int length, String says) throws IOException {
        String text = switch (where) {
            case "key" -> example() + "? " + "k".repeat(length) + "\n: 1\n";   // a complex key: a plain one stops at 1024
            case "value" -> example().replace("name: internlm-7b-pcie-1node", "name: " + "v".repeat(length));
            default -> example() + "name2: " + "l".repeat(length - 1) + "\n";
        };
        Path file = tmp.resolve(where + ".yaml");
        String line = oneLine(advise(where + ".yaml", text), file, 400);
        assertTrue(line.contains(says), line);
    }

    /** The same key as JSON, where Jackson reads it fast: still refused before "unknown key; nearest ..." compares it. */
    @Test
    void aLongJsonKeyIsRefusedToo() throws IOException {
        String json = "{\"" + "k".repeat(100_000) + "\": 1, \"cluster\": \"dgx-a100-80gb\"}";
        Path file = tmp.resolve("key.json");
        String line = oneLine(advise("key.json", json), file, 300);
        assertTrue(line.endsWith("keys of at most 1024 characters; one has 100,000: '" + "k".repeat(40) + "... (100,000 characters)'"), line);
    }

    @Test
    void aYamlAliasIsRefusedNotReadAsItsAnchorsName() throws IOException {
        // issue 23: this advised the preset internlm-7b, exit 0
        Path file = tmp.resolve("alias.yaml");
        String line = oneLine(advise("alias.yaml", """
                name: &internlm-7b bogus
                cluster: {preset: a100-80gb-pcie-8x, nodes: 1}
                model: *internlm-7b
                parallel: {tp: 1, dp: 8}
                training: {seq_len: 2048, micro_batch_size: 2, micro_batches: 4}
                """), file, 500);
        assertEquals("error: " + file + ": field 'model': a value written out, not a YAML alias: *internlm-7b at line 3 stands "
                + "for what its anchor marks, which train-advisor does not resolve (Jackson would read the anchor's name instead); "
                + "write the value out where the alias is", line);
        // an alias to a mapping, and a merge key, alike
        assertTrue(oneLine(advise("merge.yaml", "base: &b {tp: 1}\nparallel:\n  <<: *b\n"), tmp.resolve("merge.yaml"), 500)
                .contains("field 'parallel.<<': a value written out, not a YAML alias: *b at line 3"));
        // an anchor alone reads its value: the run is advised
        CliTest.Result anchored = advise("anchor.yaml", example().replace("model: internlm-7b", "model: &m internlm-7b"));
        assertEquals(0, anchored.code(), anchored.err());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "fwd_bwd_time_s: 5.76 | fwd_bwd_time_s: 1e-308 | field 'metrics.fwd_bwd_time_s': a number from 1e-06 to 1e+07 (seconds: a microsecond is below any GPU kernel's launch), got 1.0E-308",
            "fwd_bwd_time_s: 5.76 | fwd_bwd_time_s: 5e-7   | field 'metrics.fwd_bwd_time_s': a number from 1e-06 to 1e+07 (seconds: a microsecond is below any GPU kernel's launch), got 5.0E-7",
            "fwd_bwd_time_s: 5.76 | step_time_s: 2e7       | field 'metrics.step_time_s': a number from 1e-06 to 1e+07 (seconds: a microsecond is below any GPU kernel's launch), got 2.0E7",
            "nodes: 1             | {nodes: 1, intra_node: {link: PCIe4, busbw_gbps: 1e308}} | field 'cluster.intra_node.busbw_gbps': a number from 1e-09 to 1800 (GB/s: twice the fastest link's one-way rate in the catalogue, NVLink5 at 900 GB/s, carries no more), got 1.0E308",
            "nodes: 1             | {nodes: 1, intra_node: {link: PCIe4, busbw_gbps: 1801}}  | field 'cluster.intra_node.busbw_gbps': a number from 1e-09 to 1800 (GB/s: twice the fastest link's one-way rate in the catalogue, NVLink5 at 900 GB/s, carries no more), got 1801",
            "tokens_per_gpu_per_s: 2231.46 | tokens_per_gpu_per_s: 1e300 | field 'metrics.tokens_per_gpu_per_s': a number from 1e-09 to 1e+12, got 1.0E300",
    })
    void numbersOutsidePhysicalBoundsAreRefusedWithTheField(String from, String to, String says) throws IOException {
        String text = example();
        if (from.startsWith("nodes")) text = text.replace("  preset: a100-80gb-pcie-8x\n  nodes: 1", "  preset: a100-80gb-pcie-8x\n  "
                + to.substring(1, to.length() - 1).replace(", intra_node", "\n  intra_node"));
        else text = text.replace(from, to);
        assertNotEquals(example(), text, "the mutation applies");
        Path file = tmp.resolve("bound.yaml");
        assertEquals("error: " + file + ": " + says, oneLine(advise("bound.yaml", text), file, 400));
    }

    /** A bus bandwidth of 1800 GB/s, the bound itself, and a measured NVLink4 all-reduce (479) are accepted. */
    @Test
    void theBoundsLeaveRealMeasurementsAlone() throws IOException {
        for (String busbw : new String[] {"479", "1800"}) {
            CliTest.Result r = advise("ok.yaml", example().replace("  nodes: 1", "  nodes: 1\n  intra_node: {link: PCIe4, busbw_gbps: " + busbw + "}"));
            assertEquals(0, r.code(), busbw + ": " + r.err());
        }
    }

    @Test
    void anEmptyLogNameIsAnError() throws IOException {
        Path file = tmp.resolve("empty-log.yaml");
        assertEquals("error: " + file + ": field 'log': a file name (relative to the run file's folder); got an empty string",
                oneLine(advise("empty-log.yaml", example() + "log: ''\n"), file, 300));
    }

    /** Issue 23: NaN, infinite, negative and zero step times were dropped without a word. */
    @Test
    void aLogsDroppedValuesAreCountedInAWarningWithTheirSteps() throws IOException {
        StringBuilder log = new StringBuilder();
        String[] ms = new String[30];
        java.util.Arrays.fill(ms, "7340.0");
        ms[3] = "nan";
        ms[7] = "inf";
        ms[9] = "-5.0";
        ms[12] = "0.0";
        for (int i = 1; i <= ms.length; i++)
            log.append(String.format(" [2024-01-01 00:%02d:%02d] iteration %8d/  100 | consumed samples: %10d | elapsed time per iteration "
                    + "(ms): %s | learning rate: 1.0E-04 | global batch size:    64 | lm loss: 2.0E+00 | loss scale: 1.0 | grad norm: "
                    + "1.0 | number of skipped iterations:   0 | number of nan iterations:   0 |%n", i / 60, i % 60, i, i * 64, ms[i - 1]));
        Path logFile = Files.writeString(tmp.resolve("train.log"), log.toString());
        Path run = Files.writeString(tmp.resolve("with-log.yaml"), """
                cluster: {preset: a100-80gb-pcie-8x, nodes: 1}
                model: internlm-7b
                parallel: {tp: 1, dp: 8, zero_stage: 0}
                training: {seq_len: 2048, micro_batch_size: 2, micro_batches: 4, framework: megatron-lm}
                log: train.log
                """);
        CliTest.Result r = CliTest.run("advise", run.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("warning: " + run + ": log " + logFile + ": 4 printed step_time_s values dropped as no "
                + "measurement (1 nan, 1 infinite, 1 zero, 1 negative): steps 4, 8, 10, 13"), r.err());
        CliTest.Result parse = CliTest.run("parse", logFile.toString());
        assertTrue(parse.out().contains("4 printed step_time_s values dropped as no measurement"), parse.out());
    }

    /** Whatever a value holds, a message quotes 200 characters of it on one line, and no line passes 2,000. */
    @Test
    void everyMessageIsBoundedAndOnOneLine() {
        String value = "x\u001b[31m\r\nred" + "y".repeat(10_000);
        SpecException e = new SpecException("f.yaml", "name\nx", "a name, got '" + value + "'; and " + "z".repeat(5000));
        String m = e.getMessage();
        assertEquals(1, m.lines().count(), m);
        assertTrue(m.startsWith("f.yaml: field 'name\\nx': a name, got 'x\\u001B[31m\\r\\nred" + "y".repeat(Excerpt.MAX_CHARS - 18)
                + "... (10,011 characters)'; and zzz"), m);
        assertTrue(m.length() <= SpecException.MAX_LINE_CHARS + 100, m.length() + "");
        assertTrue(m.endsWith(" characters)"), m.substring(m.length() - 60));
    }
}
