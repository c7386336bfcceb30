package dev.trainadvisor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code parse LOG} (docs/logs.md, "parse"): the format detected and what was read, as JSON or Markdown; exit 2
 * with a message naming the file for a file that is missing, not UTF-8, or in no known format. Runs
 * {@link Main#run} in-process with standard output and error captured; the working directory is the
 * project root.
 */
class ParseCommandTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Path SAMPLES = Path.of("../shared/samples/logs");

    @TempDir
    Path tmp;

    /** The command line with its output captured (CliTest.run). */
    static CliTest.Result run(String... args) { return CliTest.run(args); }

    static String sample(String name) {
        Path p = SAMPLES.resolve(name);
        assumeTrue(Files.exists(p), "shared samples not present");
        return p.toString();
    }

    static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + e.getMessage() + "\n" + text, e);
        }
    }

    static void assertNoStackTrace(String err) {
        assertFalse(err.contains("\tat "), () -> "no stack trace on stderr:\n" + err);
        assertFalse(err.contains("Exception"), () -> "no exception name on stderr:\n" + err);
    }

    static void assertDesignedKeys(JsonNode j) {
        for (String k : new String[] {"format", "steps", "metrics", "configuration", "warnings"})
            assertTrue(j.has(k), () -> "parse output lacks '" + k + "': " + j);
        assertTrue(j.get("metrics").isObject() && j.get("configuration").isObject() && j.get("warnings").isArray(), j::toString);
    }

    /** The day a log was printed, which chooses its framework's version, is shown; a log without one shows none. */
    @Test
    void theDayTheLogWasPrintedIsShown() {
        CliTest.Result r = run("parse", sample("torchtitan-1.log"));
        assertEquals(0, r.code(), r.err());
        assertEquals("2025-06-16", json(r.out()).path("printed_on").asText());   // "[titan] 2025-06-16 22:30:50,322"
        CliTest.Result md = run("parse", sample("torchtitan-1.log"), "--format", "md");
        assertTrue(md.out().contains("|  | printed_on | 2025-06-16 |"), md.out());
        CliTest.Result trainer = run("parse", sample("hf-trainer-1.log"));
        assertFalse(json(trainer.out()).has("printed_on"), trainer.out());   // the Trainer's dicts carry no time
    }

    @Test
    void ncclTestsBusBandwidthAtTheLargestSize() {
        CliTest.Result r = run("parse", sample("nccl-tests-2.log"), "--format", "json");
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.err());
        JsonNode j = json(r.out());
        assertDesignedKeys(j);
        assertEquals("nccl-tests", j.get("format").asText());
        // the last row, 1073741824 B (1 GiB): out-of-place busbw 25.95, in-place 25.95
        assertEquals(25.95, j.get("busbw_gbps").asDouble(), 1e-9);
        // rows: 25.72/25.72, 25.82/25.83, 25.95/25.95: the peak is the 1 GiB row
        assertEquals(25.95, j.get("peak_busbw_gbps").asDouble(), 1e-9);
        assertEquals(0, j.get("steps").asInt());
    }

    @Test
    void topologyOfH100Node() {
        CliTest.Result r = run("parse", sample("nvidia-smi-topo-1.log"), "--format", "json");
        assertEquals(0, r.code(), r.err());
        JsonNode j = json(r.out());
        assertDesignedKeys(j);
        assertEquals("nvidia-smi-topo", j.get("format").asText());
        // header (line 2): GPU0..GPU7 then NIC0..NIC9; GPU rows (lines 3-10): every GPU pair NV18
        assertEquals(8, j.get("gpus").asInt());
        assertEquals("NVLink", j.get("intra_node").asText());
        assertEquals(18, j.get("nvlink_links").asInt());
        assertEquals(10, j.get("nics").asInt());
        assertEquals(8, j.get("configuration").get("cluster.gpus_per_node").asInt());
        // NIC3..NIC9 rows were cut from the excerpt
        assertTrue(j.get("warnings").toString().contains("cut short"), j.get("warnings")::toString);
    }

    @Test
    void markdownIsATable() {
        CliTest.Result r = run("parse", sample("nvidia-smi-topo-3.log"), "--format", "md");
        assertEquals(0, r.code(), r.err());
        // lines 3-4 of the sample: GPU0-GPU1 PHB
        assertTrue(r.out().contains("|  | intra_node | PCIe |"), r.out());
        assertTrue(r.out().contains("|  | pcie_paths | PHB |"), r.out());
        assertTrue(r.out().contains("|  | gpus | 2 |"), r.out());
        assertTrue(r.out().contains("| configuration | cluster.gpus_per_node | 2 |"), r.out());
        assertTrue(r.out().contains("|---|"), r.out());
    }

    @Test
    void outWritesTheFile() throws IOException {
        Path out = tmp.resolve("sub/parsed.json");
        CliTest.Result r = run("parse", sample("nccl-tests-2.log"), "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.out());
        assertEquals("nccl-tests", json(Files.readString(out)).get("format").asText());
    }

    @Test
    void missingFileExitsTwoNamingIt() {
        CliTest.Result r = run("parse", tmp.resolve("absent.log").toString(), "--format", "json");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("absent.log"), r.err());
        assertNoStackTrace(r.err());
        assertEquals("", r.out());
    }

    @Test
    void unrecognizableFileExitsTwoNamingIt() throws IOException {
        Path f = tmp.resolve("notes.log");
        Files.writeString(f, "hello\nthis is not a training log\nGPU utilization 97%\n");
        CliTest.Result r = run("parse", f.toString(), "--format", "json");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("notes.log"), r.err());
        assertNoStackTrace(r.err());
        assertEquals("", r.out());
    }

    @Test
    void emptyFileExitsTwo() throws IOException {
        Path f = tmp.resolve("empty.log");
        Files.writeString(f, "");
        CliTest.Result r = run("parse", f.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("empty.log"), r.err());
        assertNoStackTrace(r.err());
    }

    @Test
    void notUtf8ExitsTwoNamingIt() throws IOException {
        Path f = tmp.resolve("latin1.log");
        Files.write(f, new byte[] {'G', 'P', 'U', '0', (byte) 0xff, (byte) 0xfe, '\n'});
        CliTest.Result r = run("parse", f.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("latin1.log") && r.err().contains("UTF-8"), r.err());
        assertNoStackTrace(r.err());
    }

    @Test
    void folderExitsTwoNamingIt() {
        CliTest.Result r = run("parse", tmp.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains(tmp.getFileName().toString()), r.err());
        assertNoStackTrace(r.err());
    }
}
