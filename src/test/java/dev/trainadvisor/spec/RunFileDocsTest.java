package dev.trainadvisor.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
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
 * list); and the schema, read by a JSON Schema 2020-12 validator, accepts every run file the project ships and every
 * example, and refuses a mistyped key, a wrong word and a wrong type.
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

    static Schema schema() throws IOException {
        return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                .getSchema(Files.readString(RunFileDocs.SCHEMA), com.networknt.schema.InputFormat.JSON);
    }

    static List<Path> shippedRunFiles() throws IOException {
        List<Path> out = new ArrayList<>();
        for (Path dir : List.of(Path.of("examples"), Path.of("src/test/resources/runs")))
            try (Stream<Path> s = Files.walk(dir)) {
                s.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".json")).sorted().forEach(out::add);
            }
        return out;
    }

    @Test
    void theSchemaAcceptsEveryShippedRunFileAndEveryExample() throws IOException {
        Schema schema = schema();
        List<String> wrong = new ArrayList<>();
        List<Path> files = shippedRunFiles();
        assertTrue(files.size() >= 30, files.toString());
        for (Path f : files) {
            List<Error> errors = schema.validate(SpecReader.parse(f));
            if (!errors.isEmpty()) wrong.add(f + ": " + errors);
        }
        for (RunFileKeys.Key k : RunFileKeys.all()) {
            List<Error> errors = schema.validate(withExample(k));
            if (!errors.isEmpty()) wrong.add("example of " + k.path() + ": " + errors);
        }
        // the presets, written inline, are run files too
        for (Map.Entry<String, JsonNode> m : Presets.models().entrySet())
            for (Map.Entry<String, JsonNode> c : Presets.clusters().entrySet()) {
                ObjectNode tree = (ObjectNode) SpecReader.YAML.readTree(BASE);
                tree.set("model", m.getValue());
                tree.set("cluster", c.getValue());
                List<Error> errors = schema.validate(tree);
                if (!errors.isEmpty()) wrong.add("presets " + m.getKey() + " on " + c.getKey() + ": " + errors);
            }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    @Test
    void theSchemaRefusesAMistypedKeyAWrongWordAndAWrongType() throws IOException {
        Schema schema = schema();
        assertTrue(schema.validate(SpecReader.YAML.readTree(BASE)).isEmpty());
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
            List<Error> errors = schema.validate(tree);
            assertFalse(errors.isEmpty(), b[0]);
            assertTrue(errors.toString().contains(b[1]), b[0] + ": " + errors);
            // and the reader refuses it too
            assertTrue(refused(new SpecReader(), tree, b[0]).getMessage().length() > 0);
        }
        // with a log, the keys the log may give are not required of the file
        ObjectNode withLog = (ObjectNode) SpecReader.YAML.readTree("{cluster: dgx-h100, log: train.log, training: {seq_len: 4096}}");
        assertTrue(schema.validate(withLog).isEmpty(), schema.validate(withLog).toString());
        withLog.remove("log");
        assertFalse(schema.validate(withLog).isEmpty());
    }
}
