package dev.trainadvisor.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The published reference runs (knowledge-base/reference-runs/*.json): every run is a valid run file,
 * carries at least one measurement and a split, and every row of the shared calibration table
 * (../shared/calibration/reference-runs.json) appears exactly once, as a run or as a skipped row.
 */
class ReferenceRunsTest {

    static final Path DIR = Path.of("knowledge-base/reference-runs");
    static final Path SHARED = Path.of("../shared/calibration/reference-runs.json");
    static final ObjectMapper JSON = new ObjectMapper();

    record Entry(String file, JsonNode node) {
        String id() { return node.path("id").asText(); }
    }

    static Map<String, JsonNode> files() throws IOException {
        assertTrue(Files.isDirectory(DIR), DIR + " exists");
        Map<String, JsonNode> out = new LinkedHashMap<>();
        try (Stream<Path> s = Files.list(DIR)) {
            for (Path p : s.filter(f -> f.toString().endsWith(".json")).sorted().toList())
                out.put(p.getFileName().toString(), JSON.readTree(p.toFile()));
        }
        assertFalse(out.isEmpty(), "at least one reference-run file in " + DIR);
        return out;
    }

    static List<Entry> runs() throws IOException {
        List<Entry> out = new ArrayList<>();
        for (Map.Entry<String, JsonNode> f : files().entrySet()) {
            JsonNode runs = f.getValue().get("runs");
            assertNotNull(runs, f.getKey() + ": a 'runs' list");
            assertTrue(runs.isArray(), f.getKey() + ": 'runs' is a list");
            for (JsonNode r : runs) out.add(new Entry(f.getKey(), r));
        }
        return out;
    }

    @Test
    void everyFileNamesItsGroupSourceAndConvention() throws IOException {
        for (Map.Entry<String, JsonNode> f : files().entrySet()) {
            JsonNode doc = f.getValue();
            for (String k : List.of("source_group", "source", "convention_note"))
                assertTrue(doc.path(k).isTextual() && !doc.path(k).asText().isBlank(), f.getKey() + ": '" + k + "'");
            JsonNode skipped = doc.get("skipped");
            if (skipped != null) {
                assertTrue(skipped.isArray(), f.getKey() + ": 'skipped' is a list");
                for (JsonNode s : skipped)
                    assertTrue(s.path("id").isTextual() && s.path("why").isTextual(), f.getKey() + ": skipped {id, why}");
            }
        }
    }

    @TestFactory
    Stream<DynamicTest> everyRunIsAValidRunFileWithAMeasurementAndASplit() throws IOException {
        return runs().stream().map(e -> DynamicTest.dynamicTest(e.file() + "#" + e.id(), () -> {
            JsonNode n = e.node();
            assertTrue(n.path("id").isTextual() && !e.id().isBlank(), "id");
            assertTrue(n.path("source").isTextual(), "source");
            assertTrue(n.path("notes").isTextual(), "notes");
            assertTrue(n.path("inferred").isArray(), "inferred is a list");
            String split = n.path("split").asText(null);
            assertTrue("tune".equals(split) || "holdout".equals(split), "split is tune or holdout, got " + split);
            JsonNode run = n.get("run");
            assertNotNull(run, "run");
            RunSpec spec = assertDoesNotThrow(() -> new SpecReader().read(run, e.file() + "#" + e.id()));
            assertNotNull(spec.cluster());
            Measurements m = spec.run().measured();
            boolean tflops = !Double.isNaN(m.tflopsPerGpu()) && m.tflopsConvention() != null;
            boolean any = !Double.isNaN(m.tokensPerGpuPerS()) || !Double.isNaN(m.stepTimeS()) || tflops
                    || !Double.isNaN(m.mfu());
            assertTrue(any, "one of tokens_per_gpu_per_s, step_time_s, tflops_per_gpu (+convention) or mfu");
            JsonNode metrics = run.path("metrics");
            if (metrics.has("tflops_per_gpu"))
                assertTrue(metrics.has("tflops_convention"), "tflops_per_gpu comes with tflops_convention");
        }));
    }

    @Test
    void idsAreUniqueAcrossFiles() throws IOException {
        Map<String, String> seen = new HashMap<>();
        for (Map.Entry<String, JsonNode> f : files().entrySet()) {
            for (JsonNode r : f.getValue().path("runs")) {
                String prev = seen.put(r.path("id").asText(), f.getKey());
                assertNull(prev, "id " + r.path("id").asText() + " in " + prev + " and " + f.getKey());
            }
            for (JsonNode s : f.getValue().path("skipped")) {
                String prev = seen.put(s.path("id").asText(), f.getKey());
                assertNull(prev, "id " + s.path("id").asText() + " in " + prev + " and " + f.getKey());
            }
        }
    }

    @Test
    void everySharedRowAppearsExactlyOnce() throws IOException {
        Assumptions.assumeTrue(Files.exists(SHARED), SHARED + " is not here (the project was checked out alone)");
        JsonNode shared = JSON.readTree(SHARED.toFile());
        Map<String, Integer> count = new HashMap<>();
        List<String> addedWithoutSource = new ArrayList<>();
        for (JsonNode doc : files().values()) {
            for (JsonNode r : doc.path("runs")) {
                // rows added from published sources beyond the shared set say so, with the link they were read from
                if (r.has("added")) {
                    if (!r.path("source").asText().contains("https://")) addedWithoutSource.add(r.path("id").asText());
                    continue;
                }
                count.merge(r.path("id").asText(), 1, Integer::sum);
            }
            for (JsonNode s : doc.path("skipped")) {
                // a published row beyond the shared set that a file leaves out says so too, with its link
                if (s.has("added")) {
                    if (!s.path("source").asText().contains("https://")) addedWithoutSource.add(s.path("id").asText());
                    continue;
                }
                count.merge(s.path("id").asText(), 1, Integer::sum);
            }
        }
        List<String> missing = new ArrayList<>(), twice = new ArrayList<>();
        Set<String> ids = new java.util.HashSet<>();
        for (JsonNode row : shared) {
            String id = row.path("id").asText();
            ids.add(id);
            int c = count.getOrDefault(id, 0);
            if (c == 0) missing.add(id);
            else if (c > 1) twice.add(id);
        }
        List<String> unknown = count.keySet().stream().filter(id -> !ids.contains(id)).sorted().toList();
        assertAll(
                () -> assertEquals(List.of(), missing, "shared rows missing from knowledge-base/reference-runs"),
                () -> assertEquals(List.of(), twice, "shared rows listed more than once"),
                () -> assertEquals(List.of(), unknown, "ids not in " + SHARED + " nor marked added"),
                () -> assertEquals(List.of(), addedWithoutSource, "added rows without a link to their source"));
    }

    @Test
    void theInternLmIssueRowsAreAllHoldout() throws IOException {
        List<Entry> internlm = runs().stream().filter(e -> e.id().startsWith("internlm-issue")).toList();
        assertEquals(3, internlm.size(), "the three InternLM-issue rows");
        for (Entry e : internlm) assertEquals("holdout", e.node().path("split").asText(), e.id());
    }
}
