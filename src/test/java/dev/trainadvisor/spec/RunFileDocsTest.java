package dev.trainadvisor.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.docs.GeneratedFiles;
import dev.trainadvisor.input.SpecException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * docs/run-file.md and docs/run-file.schema.json are what the table of run-file keys (RunFileKeys) gives now; the table
 * is what the reader accepts, key by key (each key with its example read, every section refusing a key it does not
 * list; every key the reader's source reads is in it); the schema is the table (every key of every section, its type,
 * range and words, no other key allowed); and the schema, read by SchemaCheck (the JSON Schema subset the generator
 * writes), accepts every run file the project ships, every example and every runs.yaml entry, and refuses a mistyped
 * key, a wrong word and a wrong type.
 */
class RunFileDocsTest {

    /** A valid run file the keys' examples are set into: 8 A100 of one node, a small dense model. */
    static final String BASE = """
            name: base
            cluster: {gpu: A100-SXM4-80GB, nodes: 1, gpus_per_node: 8, intra_node: {link: NVLink3}}
            model: {name: m, layers: 32, hidden: 1024, heads: 8, ffn_hidden: 4096, vocab: 32000}
            training: {seq_len: 2048, micro_batch_size: 1}
            """;

    /** The keys that name another file: the assembling reader (RunFiles) reads them; SpecReader refuses them named. */
    static final Set<String> NAMES_A_FILE = Set.of("log", "config", "nccl_tests", "topology", "cluster.intra_node.nccl_tests",
            "cluster.inter_node.nccl_tests");

    @Test
    void theGeneratedFilesAreCurrent() throws IOException {
        for (Map.Entry<Path, String> e : RunFileDocs.files().entrySet())
            GeneratedFiles.check(e.getKey(), e.getValue(), RunFileDocs.REGENERATE);
    }

    // ------------------------------------------------------------------ the table against the reader

    /** The run file BASE with {@code key}'s example set at its path, after what the example needs ({@code with}). */
    static ObjectNode withExample(RunFileKeys.Key key) throws IOException {
        ObjectNode tree = (ObjectNode) SpecReader.YAML.readTree(BASE);
        for (Map.Entry<String, String> w : key.with().entrySet()) set(tree, w.getKey(), RunFileDocs.yaml(w.getValue()));
        set(tree, key.path(), RunFileDocs.yaml(key.example()));
        return tree;
    }

    /**
     * Sets a dotted path, making the objects on the way; where one is a name (cluster.gpu: A100-...), it becomes an
     * object of its section's required keys, each at its example, so that the section's other keys can be set.
     */
    static void set(ObjectNode tree, String path, JsonNode value) {
        String[] parts = path.split("\\.");
        ObjectNode at = tree;
        StringBuilder prefix = new StringBuilder();
        for (int i = 0; i < parts.length - 1; i++) {
            prefix.append(i == 0 ? "" : ".").append(parts[i]);
            JsonNode next = at.get(parts[i]);
            if (next == null || !next.isObject()) {
                ObjectNode made = at.putObject(parts[i]);
                for (RunFileKeys.Key k : RunFileKeys.all())
                    if (k.required() && k.section().equals(prefix.toString())) made.set(k.name(), RunFileDocs.yaml(k.example()));
                next = made;
            }
            at = (ObjectNode) next;
        }
        at.set(parts[parts.length - 1], value);
    }

    /** Every key of the table, at its example, is read: none is refused as unknown, and the example is valid. */
    @Test
    void everyKeyOfTheTableIsReadWithItsExample() throws IOException {
        SpecReader reader = new SpecReader();
        List<String> wrong = new ArrayList<>();
        int read = 0;
        for (RunFileKeys.Key k : RunFileKeys.all()) {
            ObjectNode tree = withExample(k);
            try {
                reader.read(tree, "example-of-" + k.path());
                if (NAMES_A_FILE.contains(k.path())) wrong.add(k.path() + ": read, though it names a file");
                read++;
            } catch (SpecException e) {
                boolean namesAFile = NAMES_A_FILE.contains(k.path()) && e.getMessage().contains("no file named here");
                if (!namesAFile) wrong.add(k.path() + " = " + k.example() + ": " + e.getMessage());
            }
        }
        assertTrue(wrong.isEmpty(), "keys whose example the reader refuses:\n" + String.join("\n", wrong));
        assertEquals(RunFileKeys.all().size() - NAMES_A_FILE.size(), read);
    }

    /**
     * Every section refuses a key the table does not list there: each section's every key, with a letter added, is
     * refused as unknown with the section's known keys, which are the table's, and the key meant among the nearest.
     */
    @Test
    void everySectionRefusesAKeyTheTableDoesNotList() throws IOException {
        SpecReader reader = new SpecReader();
        int refused = 0;
        for (RunFileKeys.Key k : RunFileKeys.all()) {
            if (k.section().equals("cluster.gpu.peak_tflops")) continue;   // a precision: its typo is below
            RunFileKeys.Key typo = new RunFileKeys.Key(k.section().isEmpty() ? k.name() + "s" : k.section() + "." + k.name() + "s",
                    k.value(), false, "", "", k.example(), k.with());
            ObjectNode tree = withExample(typo);
            SpecException e = refused(reader, tree, typo.path());
            String known = new TreeSet<>(RunFileKeys.keysOf(k.section())).toString();
            assertTrue(e.getMessage().contains("unknown key; known keys here are " + known), typo.path() + ": " + e.getMessage());
            assertTrue(e.getMessage().contains("nearest: ") && e.getMessage().substring(e.getMessage().indexOf("nearest: "))
                    .contains(k.name()), e.getMessage());
            refused++;
        }
        ObjectNode tree = withExample(RunFileKeys.at("cluster.gpu.peak_tflops.bf16"));
        set(tree, "cluster.gpu.peak_tflops.bf8", RunFileDocs.yaml("100"));
        assertTrue(refused(new SpecReader(), tree, "bf8").getMessage().contains("unknown key"));
        assertTrue(refused > 100, "keys tried: " + refused);
    }

    private static SpecException refused(SpecReader reader, ObjectNode tree, String what) {
        try {
            reader.read(tree, "typo");
        } catch (SpecException e) {
            return e;
        }
        return fail(what + " was read");
    }

    /** The metrics are the measurements the rest of the code knows (Metric), and the peaks one per precision. */
    @Test
    void theTablesMetricsAndPeaksAreTheEnumsOfTheCode() {
        assertEquals(Metric.keys(), Set.copyOf(RunFileKeys.keysOf("metrics")));
        Set<String> precisions = new TreeSet<>();
        for (Precision p : Precision.values()) precisions.add(p.key());
        assertEquals(precisions, new TreeSet<>(RunFileKeys.keysOf("cluster.gpu.peak_tflops")));
    }

    /** Every key has its default, its meaning and an example, and the required ones say so. */
    @Test
    void everyKeyIsDescribed() {
        for (RunFileKeys.Key k : RunFileKeys.all()) {
            assertFalse(k.means().isBlank() || k.example().isBlank() || k.dflt().isBlank(), k.path());
            assertEquals(k.required(), k.dflt().equals("required"), k.path());
        }
    }

    // ------------------------------------------------------------------ the schema

    static SchemaCheck schema() throws IOException {
        return new SchemaCheck(SpecReader.JSON_MAPPER.readTree(Files.readString(RunFileDocs.SCHEMA)));
    }

    /**
     * The YAML and JSON files of examples/ and of the test resources' run files. A folder's runs.yaml (log name to
     * run-file keys, plus defaults), and the cluster and model files the log walkthrough names (examples/logs/cluster-*,
     * model-*), are checked as what they are: each runs.yaml entry merged onto its defaults with its log named, a
     * cluster file as the schema's cluster section, a model file as its model section.
     */
    static List<Path> shippedFiles() throws IOException {
        List<Path> out = new ArrayList<>();
        for (Path dir : List.of(Path.of("examples"), Path.of("src/test/resources/runs")))
            try (Stream<Path> s = Files.walk(dir)) {
                s.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".json")).sorted().forEach(out::add);
            }
        return out;
    }

    /** What each shipped file is checked as: run files whole, the others as the run files they stand for. */
    static Map<String, JsonNode> asRunFiles(Path f) throws IOException {
        JsonNode tree = SpecReader.parse(f);
        String name = f.getFileName().toString();
        Map<String, JsonNode> out = new java.util.LinkedHashMap<>();
        if (name.equals("runs.yaml")) {
            JsonNode defaults = tree.get("defaults");
            for (java.util.Iterator<Map.Entry<String, JsonNode>> it = tree.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (e.getKey().equals("defaults")) continue;
                ObjectNode run = defaults == null ? SpecReader.JSON_MAPPER.createObjectNode() : ((ObjectNode) defaults).deepCopy();
                dev.trainadvisor.spec.JsonTrees.deepMerge(run, e.getValue());
                run.put("log", e.getKey());
                out.put(f + "#" + e.getKey(), run);
            }
        } else if (name.startsWith("cluster-") || name.startsWith("model-")) {
            ObjectNode run = (ObjectNode) SpecReader.YAML.readTree(BASE);
            run.set(name.startsWith("cluster-") ? "cluster" : "model", tree);
            out.put(f.toString(), run);
        } else {
            out.put(f.toString(), tree);
        }
        return out;
    }

    @Test
    void theSchemaAcceptsEveryShippedRunFileAndEveryExample() throws IOException {
        SchemaCheck schema = schema();
        List<String> wrong = new ArrayList<>();
        List<Path> files = shippedFiles();
        assertTrue(files.size() >= 30, files.toString());
        int checked = 0, entries = 0;
        for (Path f : files)
            for (Map.Entry<String, JsonNode> run : asRunFiles(f).entrySet()) {
                List<String> errors = schema.errors(run.getValue());
                if (!errors.isEmpty()) wrong.add(run.getKey() + ": " + errors);
                checked++;
                if (run.getKey().contains("#")) entries++;
            }
        assertTrue(checked >= files.size(), checked + " of " + files.size());
        assertTrue(entries >= 3, "runs.yaml entries checked: " + entries);
        for (RunFileKeys.Key k : RunFileKeys.all()) {
            List<String> errors = schema.errors(withExample(k));
            if (!errors.isEmpty()) wrong.add("example of " + k.path() + ": " + errors);
        }
        // the presets, written inline, are run files too
        for (Map.Entry<String, JsonNode> m : Presets.models().entrySet())
            for (Map.Entry<String, JsonNode> c : Presets.clusters().entrySet()) {
                ObjectNode tree = (ObjectNode) SpecReader.YAML.readTree(BASE);
                tree.set("model", m.getValue());
                tree.set("cluster", c.getValue());
                List<String> errors = schema.errors(tree);
                if (!errors.isEmpty()) wrong.add("presets " + m.getKey() + " on " + c.getKey() + ": " + errors);
            }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    /**
     * The schema is the table: each section a definition (the top level the schema itself) of exactly the section's
     * keys with no other key allowed, and each key's type, range, words, pattern or section as the table says.
     */
    @Test
    void theSchemaIsTheTable() throws IOException {
        JsonNode root = SpecReader.JSON_MAPPER.readTree(Files.readString(RunFileDocs.SCHEMA));
        Set<String> sections = new TreeSet<>();
        for (RunFileKeys.Key k : RunFileKeys.all()) sections.add(k.section());
        Set<String> defs = new TreeSet<>();
        root.get("$defs").fieldNames().forEachRemaining(defs::add);
        Set<String> nested = new TreeSet<>(sections);
        nested.remove("");
        assertEquals(nested, defs, "the schema's $defs are the table's sections");
        for (String section : sections) {
            JsonNode def = section.isEmpty() ? root : root.get("$defs").get(section);
            assertEquals("object", def.path("type").asText(), section);
            assertTrue(def.path("additionalProperties").isBoolean() && !def.get("additionalProperties").asBoolean(),
                    section + ": additionalProperties false");
            Set<String> props = new TreeSet<>();
            def.get("properties").fieldNames().forEachRemaining(props::add);
            assertEquals(new TreeSet<>(RunFileKeys.keysOf(section)), props, section);
        }
        int checked = 0;
        for (RunFileKeys.Key k : RunFileKeys.all()) {
            JsonNode def = k.section().isEmpty() ? root : root.get("$defs").get(k.section());
            JsonNode p = def.get("properties").get(k.name());
            String at = k.path() + ": " + p;
            assertTrue(p.path("description").asText().startsWith(k.means()), at);
            assertEquals(RunFileDocs.yaml(k.example()), p.path("examples").get(0), at);
            RunFileKeys.Value v = k.value();
            if (v instanceof RunFileKeys.Int i) {
                assertEquals("integer", p.path("type").asText(), at);
                assertEquals(i.min(), p.path("minimum").asLong(), at);
                assertEquals(i.max(), p.path("maximum").asLong(), at);
            } else if (v instanceof RunFileKeys.Num n) {
                assertEquals("number", p.path("type").asText(), at);
                assertEquals(n.max(), p.path("maximum").asDouble(), at);
                if (n.alsoZero()) {
                    assertEquals(0, p.path("anyOf").get(0).path("const").asInt(), at);
                    assertEquals(n.min(), p.path("anyOf").get(1).path("minimum").asDouble(), at);
                } else if (n.exclusiveMin()) {
                    assertEquals(n.min(), p.path("exclusiveMinimum").asDouble(), at);
                } else {
                    assertEquals(n.min(), p.path("minimum").asDouble(), at);
                }
            } else if (v instanceof RunFileKeys.Bool) {
                assertEquals("boolean", p.path("type").asText(), at);
            } else if (v instanceof RunFileKeys.Text) {
                assertEquals("string", p.path("type").asText(), at);
            } else if (v instanceof RunFileKeys.Version) {
                assertEquals("[\"string\",\"number\"]", p.path("type").toString(), at);
            } else if (v instanceof RunFileKeys.OneOf o) {
                assertEquals("string", p.path("type").asText(), at);
                assertEquals(o.list(), texts(p.path("enum")), at);
            } else if (v instanceof RunFileKeys.Pattern pat) {
                assertEquals("string", p.path("type").asText(), at);
                assertEquals(pat.regex(), p.path("pattern").asText(), at);
                for (String shown : pat.shown()) assertTrue(java.util.regex.Pattern.compile(pat.regex()).matcher(shown).find(), at);
            } else if (v instanceof RunFileKeys.Section sec) {
                String ref = sec.nullable() ? p.path("anyOf").get(0).path("$ref").asText() : p.path("$ref").asText();
                assertEquals("#/$defs/" + sec.path(), ref, at);
                if (sec.nullable()) assertEquals("null", p.path("anyOf").get(1).path("type").asText(), at);
            } else {
                RunFileKeys.NameOr n = (RunFileKeys.NameOr) v;
                assertEquals(n.name().list(), texts(p.path("anyOf").get(0).path("enum")), at);
                assertEquals("#/$defs/" + n.path(), p.path("anyOf").get(1).path("$ref").asText(), at);
            }
            checked++;
        }
        assertEquals(RunFileKeys.all().size(), checked);
        // a required key of a section no log can fill is required by the schema too
        JsonNode host = root.get("$defs").get("cluster.host");
        assertEquals(List.of("cores", "memory_bandwidth_gbps"), texts(host.get("required")));
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    /** The checker knows its subset only: a keyword outside it fails loudly rather than passing unchecked. */
    @Test
    void theSchemaCheckerRefusesAKeywordItDoesNotKnow() throws IOException {
        SchemaCheck narrow = new SchemaCheck(SpecReader.JSON_MAPPER.readTree("{\"type\": \"object\", \"minProperties\": 1}"));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> narrow.errors(SpecReader.JSON_MAPPER.readTree("{}")));
        SchemaCheck ints = new SchemaCheck(SpecReader.JSON_MAPPER.readTree("{\"type\": \"integer\", \"minimum\": 1, \"maximum\": 3}"));
        assertTrue(ints.valid(SpecReader.JSON_MAPPER.readTree("2.0")));   // 2020-12: no fractional part is an integer
        assertFalse(ints.valid(SpecReader.JSON_MAPPER.readTree("2.5")));
        assertFalse(ints.valid(SpecReader.JSON_MAPPER.readTree("4")));
        assertFalse(ints.valid(SpecReader.JSON_MAPPER.readTree("\"2\"")));
    }

    /**
     * A key cannot be read without being in the table: every section's allowed keys in SpecReader are the table's (no
     * set of keys written there), and every key name SpecReader's source reads through its field accessors is a key of
     * the table, so that a key added to the reader and not to the table fails here (and would be refused as unknown).
     */
    @Test
    void everyKeyTheReadersSourceReadsIsInTheTable() throws IOException {
        String src = Files.readString(Path.of("src/main/java/dev/trainadvisor/spec/SpecReader.java"));
        java.util.regex.Matcher allow = java.util.regex.Pattern.compile("\\.allowOnly\\(([A-Z_]+)").matcher(src);
        int allows = 0;
        while (allow.find()) {
            allows++;
            assertTrue(src.contains("Set<String> " + allow.group(1) + " = RunFileKeys.keysOf("),
                    allow.group(1) + " is not one of the table's key sets");
        }
        assertTrue(allows >= 13, "allowOnly calls: " + allows);
        assertFalse(src.contains("allowOnly(Set.of("), "a key set written in SpecReader");
        Set<String> names = new TreeSet<>();
        for (RunFileKeys.Key k : RunFileKeys.all()) names.add(k.name());
        java.util.regex.Matcher read = java.util.regex.Pattern.compile("\\b[a-z][A-Za-z]*\\.(requireString|string|requirePositiveInt"
                + "|positiveInt|nonNegativeInt|positiveDouble|nonNegativeDouble|bool|choice|object|has|given|raw)\\(\"([a-z_0-9]+)\"").matcher(src);
        Set<String> unknown = new TreeSet<>();
        int reads = 0;
        while (read.find()) {
            reads++;
            if (!names.contains(read.group(2))) unknown.add(read.group(2));
        }
        assertTrue(reads > 100, "reads found: " + reads);
        assertTrue(unknown.isEmpty(), "keys SpecReader reads that the table lacks: " + unknown);
    }

    @Test
    void theSchemaRefusesAMistypedKeyAWrongWordAndAWrongType() throws IOException {
        SchemaCheck schema = schema();
        assertTrue(schema.errors(SpecReader.YAML.readTree(BASE)).isEmpty());
        String[][] bad = {
                {"training: {seq_len: 2048, micro_batch_size: 1, micro_batchs: 4}", "micro_batchs"},
                {"parallel: {zero_stage: 1, overlap_grad_reduction: true}", "overlap_grad_reduction"},
                {"cluster: {gpu: A100-SXM4-80GB, gpus_per_node: 8, intra_node: {link: NVLink3, socket: 2}}", "socket"},
                {"training: {seq_len: 2048, micro_batch_size: 1, precision: bf61}", "precision"},
                {"training: {seq_len: 2048, micro_batch_size: 1, recompute: partial}", "recompute"},
                {"cluster: {gpu: A100-SXM4-80G, gpus_per_node: 8, intra_node: {link: NVLink3}}", "gpu"},
                {"training: {seq_len: 2048, micro_batch_size: one}", "micro_batch_size"},
                {"parallel: {zero_stage: 4}", "zero_stage"},
                {"metrics: {mfu: 42}", "mfu"},
                {"training: {micro_batch_size: 1}", "seq_len"},
        };
        for (String[] b : bad) {
            ObjectNode tree = (ObjectNode) SpecReader.YAML.readTree(BASE);
            JsonNode change = SpecReader.YAML.readTree(b[0]);
            change.fields().forEachRemaining(e -> tree.set(e.getKey(), e.getValue()));
            List<String> errors = schema.errors(tree);
            assertFalse(errors.isEmpty(), b[0]);
            assertTrue(errors.toString().contains(b[1]), b[0] + ": " + errors);
            // and the reader refuses it too
            assertTrue(refused(new SpecReader(), tree, b[0]).getMessage().length() > 0);
        }
        // with a log, the keys the log may give are not required of the file
        ObjectNode withLog = (ObjectNode) SpecReader.YAML.readTree("{cluster: dgx-h100, log: train.log, training: {seq_len: 4096}}");
        assertTrue(schema.errors(withLog).isEmpty(), schema.errors(withLog).toString());
        withLog.remove("log");
        assertFalse(schema.errors(withLog).isEmpty());
    }
}
