package dev.trainadvisor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The command line (docs/cli.md): commands advise, batch and catalog, their output and
 * their exit codes (0 done, 1 high-severity cause with --fail-on high, 2 bad input). Runs
 * {@link Main#run} in-process with standard output and error captured; the working directory is
 * the project root.
 */
class CliTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String PCIE = "examples/internlm-7b-pcie-1node.yaml";
    static final String NVLINK = "examples/internlm-7b-nvlink-1node.yaml";
    static final String PCIE_2NODES = "examples/internlm-7b-pcie-2nodes.yaml";

    static final List<String> GPUS = List.of("V100-SXM2-32GB", "A100-SXM4-40GB", "A100-SXM4-80GB", "A100-PCIe-80GB",
            "H100-SXM5-80GB", "H100-PCIe-80GB", "H200-SXM-141GB", "B200", "GB200", "MI300X", "L40S", "RTX-4090");
    static final List<String> LINKS = List.of("NVLink2", "NVLink3", "NVLink4", "NVLink5", "PCIe3", "PCIe4", "PCIe5");
    static final List<String> NETWORKS = List.of("IB-HDR100", "IB-HDR", "IB-NDR", "IB-XDR", "RoCE-100G", "RoCE-200G",
            "RoCE-400G", "Ethernet-25G", "Ethernet-100G", "OmniPath-100G");

    @TempDir
    Path tmp;

    record Result(int code, String out, String err) {}

    /** Runs the command line with System.out and System.err replaced, so picocli's writers wrap the captures. */
    static synchronized Result run(String... args) {
        PrintStream oldOut = System.out, oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = Main.run(args);
            System.out.flush();
            System.err.flush();
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + e.getMessage() + "\n" + json, e);
        }
    }

    static void assertKeys(JsonNode node, String where, String... keys) {
        assertNotNull(node, where + " is missing");
        assertTrue(node.isObject(), () -> where + " should be an object: " + node);
        for (String k : keys) assertTrue(node.has(k), () -> where + " lacks key '" + k + "': " + node);
    }

    static void assertNoStackTrace(String err) {
        assertFalse(err.contains("\tat "), () -> "no stack trace on stderr:\n" + err);
        assertFalse(err.contains("Exception"), () -> "no exception name on stderr:\n" + err);
    }

    // ------------------------------------------------------------------ advise

    @Test
    void adviseJsonHasTheDesignedShape() {
        Result r = run("advise", PCIE, "--format", "json");
        assertEquals(0, r.code(), r.err());
        JsonNode a = parse(r.out());
        assertKeys(a, "advice", "run", "prediction", "observed", "gap", "diagnoses", "recommendations");
        assertEquals("internlm-7b-pcie-1node", a.path("run").path("name").asText());

        JsonNode p = a.get("prediction");
        assertKeys(p, "prediction", "step_time_s", "tflops_per_gpu", "mfu", "tokens_per_gpu_per_s", "breakdown", "memory");
        assertTrue(p.get("step_time_s").isNumber() && p.get("step_time_s").asDouble() > 0, "step time > 0");
        assertTrue(p.get("tflops_per_gpu").asDouble() > 0, "tflops > 0");
        double mfu = p.get("mfu").asDouble();
        assertTrue(mfu > 0 && mfu < 1, "mfu is a fraction: " + mfu);
        assertTrue(p.get("tokens_per_gpu_per_s").asDouble() > 0);
        assertTrue(p.get("breakdown").isArray() && p.get("breakdown").size() > 0, "breakdown is a non-empty list");
        for (JsonNode b : p.get("breakdown")) {
            assertKeys(b, "breakdown line", "phase", "seconds", "exposed_seconds", "link");
            assertTrue(b.get("phase").isTextual());
            assertTrue(b.get("seconds").asDouble() >= b.get("exposed_seconds").asDouble() - 1e-9,
                    "exposed time never exceeds the phase's time: " + b);
        }
        assertKeys(p.get("memory"), "prediction.memory", "total_gb", "capacity_gb");
        assertEquals(80, p.get("memory").get("capacity_gb").asDouble(), 1, "A100 80GB capacity");

        assertTrue(a.get("observed").isObject(), "the example has metrics, so observed is an object");
        assertKeys(a.get("gap"), "gap", "observed_over_predicted");
        assertTrue(a.get("gap").get("observed_over_predicted").asDouble() > 0);

        JsonNode ds = a.get("diagnoses");
        assertTrue(ds.isArray() && ds.size() > 0, "the PCIe example gets at least one diagnosis");
        for (JsonNode d : ds) {
            assertKeys(d, "diagnosis", "id", "title", "severity", "impact_fraction", "explanation", "evidence", "rule");
            assertTrue(Set.of("high", "medium", "low", "info").contains(d.get("severity").asText()), d.toString());
            assertFalse(d.get("explanation").asText().isBlank());
            assertTrue(d.get("evidence").isArray());
            for (JsonNode e : d.get("evidence")) assertKeys(e, "evidence", "name", "value", "unit");
        }
        assertEquals("intra-node-bandwidth", ds.get(0).get("id").asText(), "the motivating diagnosis comes first");

        JsonNode rs = a.get("recommendations");
        assertTrue(rs.isArray() && rs.size() > 0, "the PCIe example gets recommendations");
        for (JsonNode rec : rs) {
            assertKeys(rec, "recommendation", "id", "action", "change", "predicted_tflops_per_gpu", "speedup",
                    "addresses", "explanation");
            assertTrue(rec.get("change").isObject(), "change is an object: " + rec);
            assertTrue(rec.get("addresses").isArray(), "addresses is a list: " + rec);
            assertTrue(rec.get("predicted_tflops_per_gpu").asDouble() > 0);
        }
    }

    static Stream<String> examples() { return Stream.of(PCIE, NVLINK, PCIE_2NODES); }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void diagnosesAndRecommendationsAreSorted(String example) {
        Result r = run("advise", example);
        assertEquals(0, r.code(), r.err());
        JsonNode a = parse(r.out());
        // diagnoses: faults of medium or high severity first, then by severity, then by impact
        String prevKey = null;
        for (JsonNode d : a.get("diagnoses")) {
            boolean faultFirst = d.get("fault").asBoolean() && Set.of("high", "medium").contains(d.get("severity").asText());
            String key = (faultFirst ? "0" : "1") + List.of("high", "medium", "low", "info").indexOf(d.get("severity").asText())
                    + String.format("%08.5f", 1 - d.get("impact_fraction").asDouble());
            assertTrue(prevKey == null || key.compareTo(prevKey) >= 0, "diagnoses ranked: " + a.get("diagnoses"));
            prevKey = key;
        }
        // recommendations: those that keep the optimisation first, each group by speedup, descending; new hardware (a
        // cluster field changed) by the low end of its range, so that it leads only where it beats the run's own GPUs
        // even if the model is off against it (TrainAdvisor.rank)
        boolean seenChangesMath = false;
        double prev = Double.POSITIVE_INFINITY;
        for (JsonNode rec : a.get("recommendations")) {
            boolean same = rec.get("same_math").asBoolean();
            assertFalse(same && seenChangesMath, "same-math remedies before those that change the optimisation: " + a.get("recommendations"));
            if (!same && !seenChangesMath) prev = Double.POSITIVE_INFINITY;
            seenChangesMath |= !same;
            boolean hardware = false;
            for (java.util.Iterator<String> f = rec.get("change").fieldNames(); f.hasNext(); )
                hardware |= f.next().startsWith("cluster.");
            double v = hardware ? rec.get("speedup_interval").get(0).asDouble() : rec.get("speedup").asDouble();
            assertTrue(v <= prev, "recommendations sorted by speedup, descending: " + a.get("recommendations"));
            prev = v;
        }
        // every recommendation addresses diagnoses that exist
        Set<String> ids = new java.util.HashSet<>();
        a.get("diagnoses").forEach(d -> ids.add(d.get("id").asText()));
        for (JsonNode rec : a.get("recommendations"))
            for (JsonNode id : rec.get("addresses"))
                assertTrue(ids.contains(id.asText()), "addresses a listed diagnosis: " + id + " in " + ids);
    }

    /** A run that gets several diagnoses and recommendations, so the order checks have something to order. */
    @Test
    void severalDiagnosesAreSortedByImpact() throws IOException {
        Path f = tmp.resolve("moe.yaml");
        Files.writeString(f, """
                cluster: {preset: dgx-h100, nodes: 2}
                model: mixtral-8x7b
                parallel: {tp: 2, pp: 2, ep: 4, zero_stage: 1, virtual_stages: 2, sequence_parallel: true}
                training: {seq_len: 4096, micro_batch_size: 1, micro_batches: 8, recompute: full, precision: fp8}
                metrics: {step_time_s: 10, mfu: 0.3, steps: 100, skipped_steps: 5, loss_scale: 1024}
                """);
        Result r = run("advise", f.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode a = parse(r.out());
        assertTrue(a.get("diagnoses").size() >= 2, () -> "fixture should draw several diagnoses: " + a.get("diagnoses"));
        assertTrue(a.get("recommendations").size() >= 2, () -> "and several recommendations: " + a.get("recommendations"));
        List<Double> impacts = new ArrayList<>();
        a.get("diagnoses").forEach(d -> impacts.add(d.get("impact_fraction").asDouble()));
        List<Double> sorted = new ArrayList<>(impacts);
        sorted.sort(java.util.Comparator.reverseOrder());
        assertEquals(sorted, impacts, "diagnoses by impact_fraction, descending");
        // same math first; then by speedup, or for a change of hardware (cluster.* keys) by the low end of its range
        List<Double> ranks = new ArrayList<>();
        List<Boolean> sameMath = new ArrayList<>();
        a.get("recommendations").forEach(x -> {
            boolean hardware = false;
            for (var it = x.get("change").fieldNames(); it.hasNext(); ) hardware |= it.next().startsWith("cluster.");
            ranks.add(hardware ? x.get("speedup_interval").get(0).asDouble() : x.get("speedup").asDouble());
            sameMath.add(x.get("same_math").asBoolean());
        });
        for (int i = 1; i < ranks.size(); i++) {
            assertTrue(sameMath.get(i - 1) || !sameMath.get(i), "same-math first: " + sameMath);
            if (sameMath.get(i - 1) == sameMath.get(i))
                assertTrue(ranks.get(i - 1) >= ranks.get(i), "recommendations by rank, descending: " + ranks);
        }
    }

    @Test
    void defaultFormatIsJson() {
        Result r = run("advise", PCIE);
        assertEquals(0, r.code(), r.err());
        assertTrue(parse(r.out()).has("prediction"));
    }

    @Test
    void markdownStartsWithTheTitle() {
        Result r = run("advise", PCIE, "--format", "md");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("# train-advisor"), () -> "markdown starts with '# train-advisor':\n" + r.out());
        assertTrue(r.out().contains("internlm-7b-pcie-1node"), "names the run");
    }

    @Test
    void outWritesTheFileAndNothingToStdout() throws IOException {
        Path file = tmp.resolve("sub/advice.json");
        Result r = run("advise", PCIE, "--format", "json", "--out", file.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(Files.isRegularFile(file), "--out created " + file);
        assertEquals("", r.out().strip(), "the advice goes to the file, not to stdout");
        String written = Files.readString(file, StandardCharsets.UTF_8);
        assertEquals(run("advise", PCIE, "--format", "json").out(), written, "file holds the same bytes as stdout");
    }

    @Test
    void outputIsDeterministic() {
        Result a = run("advise", PCIE_2NODES, "--format", "json");
        Result b = run("advise", PCIE_2NODES, "--format", "json");
        assertEquals(0, a.code(), a.err());
        assertEquals(a.out(), b.out(), "same input, same JSON bytes");
        Result m1 = run("advise", PCIE_2NODES, "--format", "md");
        Result m2 = run("advise", PCIE_2NODES, "--format", "md");
        assertEquals(m1.out(), m2.out(), "same input, same Markdown bytes");
    }

    @Test
    void badRunFileExitsTwoNamingFileAndField() throws IOException {
        Path bad = tmp.resolve("bad-run.yaml");
        Files.writeString(bad, """
                cluster: {preset: dgx-a100-80gb}
                model: internlm-7b
                parallel: {tp: two}
                training: {seq_len: 2048, micro_batch_size: 2}
                """);
        Result r = run("advise", bad.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("bad-run.yaml"), () -> "stderr names the file: " + r.err());
        assertTrue(r.err().contains("parallel.tp"), () -> "stderr names the field: " + r.err());
        assertTrue(r.err().contains("integer"), () -> "stderr says what was expected: " + r.err());
        assertNoStackTrace(r.err());
        assertEquals("", r.out(), "nothing on stdout");
    }

    /** Every fixture in src/test/resources/bad declares the field and a phrase its error must contain. */
    static Stream<Path> badFixtures() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("src/test/resources/bad"))) {
            List<Path> l = new ArrayList<>(s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList());
            return l.stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badFixtures")
    void badFixturesExitTwoWithTheirField(Path fixture) throws IOException {
        List<String> lines = Files.readAllLines(fixture);
        String field = lines.stream().filter(l -> l.startsWith("# expect-field:")).findFirst()
                .map(l -> l.substring("# expect-field:".length()).strip()).orElseThrow();
        String phrase = lines.stream().filter(l -> l.startsWith("# expect-phrase:")).findFirst()
                .map(l -> l.substring("# expect-phrase:".length()).strip()).orElseThrow();
        Result r = run("advise", fixture.toString());
        assertEquals(2, r.code(), r.err());
        String name = fixture.getFileName().toString();
        assertTrue(r.err().contains(name), () -> "stderr names " + name + ": " + r.err());
        if (!field.isEmpty())
            assertTrue(Pattern.compile("(?<![\\w.])" + Pattern.quote(field) + "(?![\\w.])").matcher(r.err()).find(),
                    () -> "stderr names field " + field + ": " + r.err());
        assertTrue(r.err().contains(phrase), () -> "stderr says '" + phrase + "': " + r.err());
        assertNoStackTrace(r.err());
    }

    @Test
    void missingRunFileExitsTwo() {
        Result r = run("advise", tmp.resolve("absent.yaml").toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("absent.yaml"), r.err());
        assertNoStackTrace(r.err());
    }

    @Test
    void folderGivenAsRunFileExitsTwo() {
        Result r = run("advise", tmp.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains(tmp.getFileName().toString()), r.err());
        assertNoStackTrace(r.err());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"--bogus", "--formt"})
    void unknownOptionExitsTwo(String option) {
        Result r = run("advise", PCIE, option, "json");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains(option), () -> "stderr names the option: " + r.err());
        assertNoStackTrace(r.err());
        assertEquals("", r.out());
    }

    @Test
    void badFormatValueExitsTwo() {
        Result r = run("advise", PCIE, "--format", "xml");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("xml"), r.err());
        assertNoStackTrace(r.err());
    }

    @Test
    void unknownCommandAndMissingArgumentExitTwo() {
        Result r = run("advize", PCIE);
        assertEquals(2, r.code(), r.err());
        assertNoStackTrace(r.err());
        Result m = run("advise");
        assertEquals(2, m.code(), m.err());
        assertTrue(m.err().contains("RUN"), () -> "names the missing parameter: " + m.err());
    }

    @Test
    void failOnHighExitsOneOnPcieAndZeroOnNvlink() {
        Result pcie = run("advise", PCIE, "--fail-on", "high");
        assertEquals(1, pcie.code(), "the PCIe node has a high-severity intra-node-bandwidth cause");
        assertTrue(parse(pcie.out()).has("diagnoses"), "the advice is still printed");
        Result nvlink = run("advise", NVLINK, "--fail-on", "high");
        assertEquals(0, nvlink.code(), () -> "the NVLink node has no high-severity cause: " + nvlink.out());
        Result plain = run("advise", PCIE);
        assertEquals(0, plain.code(), "without --fail-on a diagnosis is not a failure");
    }

    // ------------------------------------------------------------------ batch

    /** A folder of the PCIe example as 1-pcie.yaml and a run file with a sequence length of 0 as 2-broken.yaml. */
    Path pcieAndBroken(String name) throws IOException {
        Path d = tmp.resolve(name);
        Files.createDirectories(d);
        Files.copy(Path.of(PCIE), d.resolve("1-pcie.yaml"));
        Files.writeString(d.resolve("2-broken.yaml"), """
                cluster: {preset: dgx-a100-80gb}
                model: internlm-7b
                training: {seq_len: 0, micro_batch_size: 2}
                """);
        return d;
    }

    @Test
    void batchAdvisesGoodFilesInFileNameOrderAndReportsTheBadOne() throws IOException {
        // file-name order (1, 3) differs from run-name order (nvlink < pcie)
        Path d = pcieAndBroken("runs");
        Files.copy(Path.of(NVLINK), d.resolve("3-nvlink.yaml"));
        Files.writeString(d.resolve("notes.txt"), "not a run file\n");

        Result r = run("batch", d.toString());
        assertEquals(2, r.code(), "one bad file makes the exit code 2: " + r.err());
        JsonNode arr = parse(r.out());
        assertTrue(arr.isArray(), "stdout is a JSON array: " + r.out());
        assertEquals(2, arr.size(), "one advice per good file");
        assertEquals("internlm-7b-pcie-1node", arr.get(0).path("run").path("name").asText(), "1-pcie.yaml first");
        assertEquals("internlm-7b-nvlink-1node", arr.get(1).path("run").path("name").asText(), "3-nvlink.yaml second");
        for (JsonNode a : arr) assertKeys(a, "advice", "run", "prediction", "diagnoses", "recommendations");
        assertTrue(r.err().contains("2-broken.yaml"), () -> "stderr names the bad file: " + r.err());
        assertTrue(r.err().contains("training.seq_len"), () -> "stderr names the field: " + r.err());
        // notes.txt is no log of a known format: skipped and said so, not a failure
        assertTrue(r.err().contains("note: skipped notes.txt: neither a run file nor a log of a known format"),
                () -> "stderr names the skipped file: " + r.err());
        assertTrue(r.err().contains("1 of 3 file(s) could not be advised; the report holds the other 2"),
                () -> "stderr counts the bad files against the files advised: " + r.err());
        assertFalse(r.err().contains("1-pcie.yaml") || r.err().contains("3-nvlink.yaml"), r.err());
        assertNoStackTrace(r.err());
    }

    /** The fleet report holds the files that failed, with their errors, as well as standard error. */
    @Test
    void batchReportsInHtmlAndMarkdownListTheFilesThatFailed() throws IOException {
        Path d = pcieAndBroken("fleet");
        for (String format : List.of("html", "md")) {
            Result r = run("batch", d.toString(), "--format", format);
            assertEquals(2, r.code(), r.err());
            assertTrue(r.out().contains("2-broken.yaml") && r.out().contains("training.seq_len"),
                    format + ": the report names the failed file and its field");
            assertTrue(r.out().contains("internlm-7b-pcie-1node"), format);
            assertTrue(r.err().contains("2-broken.yaml"), r.err());
            assertNoStackTrace(r.err());
        }
    }

    @Test
    void batchOfGoodFilesExitsZeroAndMatchesAdvise() throws IOException {
        Path d = tmp.resolve("good");
        Files.createDirectories(d);
        Files.copy(Path.of(PCIE), d.resolve("a.yaml"));
        Result r = run("batch", d.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode arr = parse(r.out());
        assertEquals(1, arr.size());
        JsonNode advise = parse(run("advise", PCIE).out());
        ArrayNode recs = (ArrayNode) advise.get("recommendations");
        int searched = 0;
        for (int i = recs.size() - 1; i >= 0; i--)
            if (recs.get(i).get("id").asText().equals("best-layout")) { recs.remove(i); searched++; }
        assertEquals(1, searched, "advise adds the searched layout");
        assertEquals(advise, arr.get(0), "batch gives the same advice as advise, less the layout search");
    }

    @Test
    void batchOfAMissingFolderExitsTwo() {
        Result r = run("batch", tmp.resolve("no-such-dir").toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("no-such-dir"), r.err());
        assertNoStackTrace(r.err());
    }

    // ------------------------------------------------------------------ catalog

    @Test
    void catalogListsRequiredKeysAndRules() {
        Result r = run("catalog");
        assertEquals(0, r.code(), r.err());
        String out = r.out();
        for (String k : GPUS) assertListed(out, k);
        for (String k : LINKS) assertListed(out, k);
        for (String k : NETWORKS) assertListed(out, k);
        for (String id : List.of("intra-node-bandwidth", "inter-node-bandwidth", "flops-accounting", "healthy"))
            assertTrue(Pattern.compile("(?m)^\\s+" + Pattern.quote(id) + ":").matcher(out).find(),
                    () -> "catalog lists rule " + id + ":\n" + out);
        assertTrue(out.contains("internlm-7b"), "lists model presets");
        // every framework a run file may name, with its versions and what begins each (a log's day or stated release
        // chooses among them): knowledge-base/frameworks/torchtitan.json's since dates, deepspeed.json's release
        for (String k : dev.trainadvisor.spec.Frameworks.builtIn().profiles().keySet()) assertListed(out, k);
        String joined = out.replaceAll("\\s+", " ");
        assertTrue(joined.contains("torchtitan versions 2026-06 (the default, from 2026-06-09), 2025-10 (from 2025-10-29), "
                + "before-2025-10. Logs: torchtitan."), joined);
        // a format only some versions print names those (knowledge-base/frameworks/nemo.json: NeMo 2.0's, not Bridge's)
        assertTrue(joined.contains("nemo versions bridge (the default), nemo-2.0 (from 2025-08-09, nemo logs), "
                + "nemo-before-2025-08 (nemo logs). NVIDIA NeMo"), joined);
        assertTrue(joined.contains("deepspeed versions 2023-11 (the default, from 2023-11-21, release 0.12.4 on), "
                + "before-2023-11."), joined);
        assertTrue(out.contains("a100-80gb-pcie-8x"), "lists cluster presets");
    }

    /** The key starts a line of the listing (so "B200" is not satisfied by "GB200" or "DGX B200"). */
    static void assertListed(String out, String key) {
        assertTrue(Pattern.compile("(?m)^\\s+" + Pattern.quote(key) + "\\s").matcher(out).find(),
                () -> "catalog lists " + key + ":\n" + out);
    }

    @Test
    void helpExitsZero() {
        Result r = run("--help");
        assertEquals(0, r.code());
        assertTrue(r.out().contains("advise") && r.out().contains("batch") && r.out().contains("catalog"), r.out());
    }

    /** parse --format md writes what it read as it read it: 65536 is not rounded to 65540. */
    @Test
    void parseMarkdownKeepsValuesExact() {
        assertEquals("65536", ParseCommand.exact(65536.0));
        assertEquals("2231.46", ParseCommand.exact(2231.46));
        assertEquals("0.000123", ParseCommand.exact(1.23e-4));
        // a median of two percentages read as fractions, and GiB in GB: the decimal arithmetic's binary residue is
        // not what the log printed (torchtitan-1.log: the steady steps' middle mfu 34.33% and 34.34%)
        assertEquals("0.34335", ParseCommand.exact((34.33 / 100 + 34.34 / 100) / 2));
        assertEquals("0.0017", ParseCommand.exact(17 / 100.0 / 100));
        assertEquals("53.3220189798", ParseCommand.exact(49.66 * 1.073741824));
        // a timer to the microsecond keeps every digit
        assertEquals("1234.567891", ParseCommand.exact(1234.567891));
    }

    /** The catalog fits a terminal: no line over 110 characters but a single long word, and no source is cut. */
    @Test
    void catalogLinesAreWrappedWithNothingLost() {
        Result r = run("catalog");
        assertEquals(0, r.code(), r.err());
        for (String line : r.out().split("\\R"))
            assertTrue(line.length() <= CatalogCommand.WIDTH || !line.trim().contains(" "), line);
        // a source written whole: its words in order once the wrapping is undone
        String joined = r.out().replaceAll("\\s+", " ");
        String a100 = dev.trainadvisor.spec.Catalog.builtIn().gpu("A100-SXM4-80GB", "test", "gpu").source().replaceAll("\\s+", " ");
        assertTrue(joined.contains(a100), a100);
        assertEquals(List.of("aa bb", "cc", "a-very-long-word"), CatalogCommand.wrap("aa bb cc a-very-long-word", 5));
    }
}
