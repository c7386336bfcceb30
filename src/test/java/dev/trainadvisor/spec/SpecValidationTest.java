package dev.trainadvisor.spec;

import dev.trainadvisor.input.SpecException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Run-file validation (docs/run-file.md; the catalogue of knowledge-base/): every bad input is a {@link SpecException} whose
 * message names the file, the dotted field and what was expected; nothing the user wrote is
 * silently ignored. Each case writes its own run file into a temporary folder.
 */
class SpecValidationTest {

    @TempDir
    Path dir;

    /** The keys the catalogue requires of each entry. */
    static final List<String> GPUS = List.of("V100-SXM2-32GB", "A100-SXM4-40GB", "A100-SXM4-80GB", "A100-PCIe-80GB",
            "H100-SXM5-80GB", "H100-PCIe-80GB", "H200-SXM-141GB", "B200", "GB200", "MI300X", "L40S", "RTX-4090");
    static final List<String> LINKS = List.of("NVLink2", "NVLink3", "NVLink4", "NVLink5", "PCIe3", "PCIe4", "PCIe5");
    static final List<String> NETWORKS = List.of("IB-HDR100", "IB-HDR", "IB-NDR", "IB-XDR", "RoCE-100G", "RoCE-200G",
            "RoCE-400G", "Ethernet-25G", "Ethernet-100G", "OmniPath-100G");

    /** A valid run file: one DGX A100 node (8 GPUs) made two nodes, InternLM-7B. */
    static final String CLUSTER_2_NODES = """
            cluster:
              preset: dgx-a100-80gb
              nodes: 2
            """;
    static final String CLUSTER_1_NODE = """
            cluster:
              preset: dgx-a100-80gb
            """;
    static final String MODEL_PRESET = "model: internlm-7b\n";
    static final String TRAINING = "training: {seq_len: 2048, micro_batch_size: 2, micro_batches: 4}\n";

    // ------------------------------------------------------------------ helpers

    Path write(String fileName, String text) {
        try {
            Path p = dir.resolve(fileName);
            Files.writeString(p, text, StandardCharsets.UTF_8);
            return p;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    static RunSpec read(Path p) { return new SpecReader().read(p); }

    /**
     * Reads {@code text} as {@code fileName}, expects a {@link SpecException} whose message names the file,
     * the dotted {@code field} (as a whole word, so "training.micro_batch" does not match
     * "training.micro_batches") and each of {@code phrases} (case-insensitive).
     */
    SpecException assertRejected(String fileName, String text, String field, String... phrases) {
        Path p = write(fileName, text);
        SpecException e = assertThrows(SpecException.class, () -> read(p),
                () -> fileName + " should be rejected (field " + field + ")");
        String msg = e.getMessage();
        assertNotNull(msg);
        assertTrue(msg.contains(fileName), () -> "message should name the file " + fileName + ": " + msg);
        if (field != null) assertNamesField(msg, field);
        for (String phrase : phrases)
            assertTrue(msg.toLowerCase(Locale.ROOT).contains(phrase.toLowerCase(Locale.ROOT)),
                    () -> "message should say '" + phrase + "': " + msg);
        return e;
    }

    static void assertNamesField(String msg, String field) {
        Pattern word = Pattern.compile("(?<![\\w.])" + Pattern.quote(field) + "(?![\\w.])");
        assertTrue(word.matcher(msg).find(), () -> "message should name the field '" + field + "': " + msg);
    }

    static String yaml(String... parts) { return String.join("", parts); }

    // ------------------------------------------------------------------ catalogue keys

    @Test
    void anEnumKeyWithoutAValueOrWithAnUnknownOneListsItsValues() {
        // Fields.choice spells the constants out only for a message: both refusals still list them, the first saying
        // that the key has no value
        String noValue = "training: {seq_len: 2048, micro_batch_size: 2, micro_batches: 4, recompute: null}\n";
        assertRejected("recompute-empty.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, noValue), "training.recompute",
                "one of [none, selective, full]", "without a value");
        SpecException e = assertRejected("recompute-typo.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET,
                "training: {seq_len: 2048, micro_batch_size: 2, micro_batches: 4, recompute: fulll}\n"),
                "training.recompute", "one of [none, selective, full]", "got 'fulll'");
        assertFalse(e.getMessage().contains("without a value"), e::getMessage);
    }

    @Test
    void unknownGpuKeyListsNearestKnownKeys() {
        SpecException e = assertRejected("gpu.yaml", yaml("""
                cluster:
                  gpu: A100-SXM4-80G
                  gpus_per_node: 8
                  intra_node: {link: NVLink3}
                """, MODEL_PRESET, TRAINING), "cluster.gpu", "A100-SXM4-80G", "GPU");
        String msg = e.getMessage();
        assertTrue(msg.contains("A100-SXM4-80GB"), () -> "nearest key A100-SXM4-80GB suggested: " + msg);
        // the nearest keys, not the whole catalogue
        assertFalse(msg.contains("RTX-4090") || msg.contains("MI300X"), () -> "only the nearest keys: " + msg);
    }

    @Test
    void unknownGpuKeyInsideAPresetOverrideIsRejected() {
        assertRejected("gpu-override.yaml", yaml("""
                cluster:
                  preset: dgx-a100-80gb
                  gpu: H100-SXM6-80GB
                """, MODEL_PRESET, TRAINING), "cluster.gpu", "H100-SXM5-80GB");
    }

    @Test
    void unknownIntraNodeLinkListsNearestKnownLinks() {
        SpecException e = assertRejected("link.yaml", yaml("""
                cluster:
                  gpu: A100-SXM4-80GB
                  gpus_per_node: 8
                  intra_node: {link: NVLnk3}
                """, MODEL_PRESET, TRAINING), "cluster.intra_node.link", "link", "NVLink3");
        assertFalse(e.getMessage().contains("InfinityFabric"), () -> "only the nearest keys: " + e.getMessage());
    }

    @Test
    void unknownNetworkListsNearestKnownNetworks() {
        SpecException e = assertRejected("net.yaml", yaml("""
                cluster:
                  gpu: A100-SXM4-80GB
                  nodes: 2
                  gpus_per_node: 8
                  intra_node: {link: NVLink3}
                  inter_node: {link: IB-NDRX, nics_per_node: 8}
                """, MODEL_PRESET, TRAINING), "cluster.inter_node.link", "network", "IB-NDR");
        assertFalse(e.getMessage().contains("OmniPath-100G"), () -> "only the nearest keys: " + e.getMessage());
    }

    @Test
    void unknownModelPresetListsNearestPresets() {
        SpecException e = assertRejected("model.yaml", yaml(CLUSTER_1_NODE, "model: llama-2-8b\n", TRAINING),
                "model", "preset", "llama-2-8b", "llama-2-7b");
        assertFalse(e.getMessage().contains("bloom-176b"), () -> "only the nearest presets: " + e.getMessage());
    }

    @Test
    void unknownClusterPresetListsNearestPresets() {
        assertRejected("cluster.yaml", yaml("""
                cluster:
                  preset: dgx-a100-80g
                """, MODEL_PRESET, TRAINING), "cluster.preset", "preset", "dgx-a100-80gb");
    }

    @Test
    void nodesGreaterThanOneWithoutANetworkIsRejected() {
        assertRejected("no-net.yaml", yaml("""
                cluster:
                  gpu: A100-SXM4-80GB
                  nodes: 2
                  gpus_per_node: 8
                  intra_node: {link: NVLink3}
                """, MODEL_PRESET, TRAINING), "cluster.inter_node.link", "nodes > 1");
    }

    // ------------------------------------------------------------------ parallel layout

    @Test
    void tpNotDividingHeadsIsRejected() {
        // 12 heads (hidden 768), tp 8 on 8 GPUs: the GPU count is fine, the heads are not
        assertRejected("tp-heads.yaml", yaml(CLUSTER_1_NODE, """
                model: {layers: 12, hidden: 768, heads: 12, ffn_hidden: 3072, vocab: 50304, gated_mlp: false}
                parallel: {tp: 8}
                """, TRAINING), "parallel.tp", "12", "heads");
    }

    @Test
    void dpInconsistentWithGpuCountIsRejected() {
        // 2 nodes x 8 GPUs = 16, tp 1: dp must be 16
        assertRejected("dp.yaml", yaml(CLUSTER_2_NODES, MODEL_PRESET, """
                parallel: {tp: 1, pp: 1, dp: 8}
                """, TRAINING), "parallel.dp", "16", "dp=8");
    }

    @Test
    void dpInconsistentWithTensorParallelismIsRejected() {
        // 16 GPUs, tp 2: dp must be 8, 16 over-counts
        assertRejected("dp-tp.yaml", yaml(CLUSTER_2_NODES, MODEL_PRESET, """
                parallel: {tp: 2, dp: 16}
                """, TRAINING), "parallel.dp", "16", "dp=8");
    }

    @Test
    void modelParallelDegreeNotDividingGpusIsRejected() {
        Path p = write("mp.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, """
                parallel: {tp: 2, pp: 3}
                """, TRAINING));
        SpecException e = assertThrows(SpecException.class, () -> read(p));
        String msg = e.getMessage();
        assertTrue(msg.contains("mp.yaml"), msg);
        assertTrue(Pattern.compile("(?<![\\w.])parallel\\.(tp|pp|cp)(?![\\w.])").matcher(msg).find(),
                () -> "names parallel.tp/pp/cp: " + msg);
        assertTrue(msg.contains("tp*pp*cp") && msg.contains("8 GPUs"), () -> "says tp*pp*cp must divide 8 GPUs: " + msg);
    }

    @Test
    void zeroGroupSizeNotDividingDpIsRejected() {
        assertRejected("zero.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, """
                parallel: {zero_stage: 1, zero_group_size: 3}
                """, TRAINING), "parallel.zero_group_size", "divisor of dp", "8");
    }

    @Test
    void zeroGroupSizeLargerThanDpIsRejected() {
        assertRejected("zero-big.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, """
                parallel: {zero_stage: 1, zero_group_size: 16}
                """, TRAINING), "parallel.zero_group_size", "divisor of dp");
    }

    @Test
    void zeroStageOutOfRangeIsRejected() {
        assertRejected("zero-stage.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, """
                parallel: {zero_stage: 4}
                """, TRAINING), "parallel.zero_stage", "0 to 3");
    }

    // ------------------------------------------------------------------ sizes and types

    @Test
    void zeroLayersIsRejected() {
        assertRejected("layers.yaml", yaml(CLUSTER_1_NODE, """
                model: {layers: 0, hidden: 4096, heads: 32, ffn_hidden: 11008, vocab: 32000}
                """, TRAINING), "model.layers", "positive integer");
    }

    @Test
    void negativeMicroBatchSizeIsRejected() {
        assertRejected("mbs.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, """
                training: {seq_len: 2048, micro_batch_size: -1}
                """), "training.micro_batch_size", "positive integer", "-1");
    }

    @Test
    void zeroSeqLenIsRejected() {
        assertRejected("seq.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, """
                training: {seq_len: 0, micro_batch_size: 2}
                """), "training.seq_len", "positive integer");
    }

    @Test
    void zeroNodesIsRejected() {
        assertRejected("nodes.yaml", yaml("""
                cluster:
                  preset: dgx-a100-80gb
                  nodes: 0
                """, MODEL_PRESET, TRAINING), "cluster.nodes", "positive integer");
    }

    @Test
    void fractionalMicroBatchSizeIsRejected() {
        assertRejected("mbs-frac.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, """
                training: {seq_len: 2048, micro_batch_size: 1.5}
                """), "training.micro_batch_size", "positive integer");
    }

    @Test
    void textForAnIntegerIsRejected() {
        assertRejected("tp-two.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, """
                parallel: {tp: two}
                """, TRAINING), "parallel.tp", "integer", "two");
    }

    @Test
    void numberForABooleanIsRejected() {
        assertRejected("gated.yaml", yaml(CLUSTER_1_NODE, """
                model: {layers: 32, hidden: 4096, heads: 32, ffn_hidden: 11008, vocab: 32000, gated_mlp: 3}
                """, TRAINING), "model.gated_mlp", "true or false");
    }

    @Test
    void listForAnObjectIsRejected() {
        assertRejected("training-list.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, """
                training: [2048, 2]
                """), "training", "object");
    }

    @Test
    void unknownEnumValueListsTheChoices() {
        assertRejected("recompute.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, """
                training: {seq_len: 2048, micro_batch_size: 2, recompute: partial}
                """), "training.recompute", "partial", "selective", "full");
    }

    @Test
    void kvHeadsNotDividingHeadsIsRejected() {
        assertRejected("kv.yaml", yaml(CLUSTER_1_NODE, """
                model: {layers: 32, hidden: 4096, heads: 32, kv_heads: 5, ffn_hidden: 11008, vocab: 32000}
                """, TRAINING), "model.kv_heads", "divisor of heads", "32");
    }

    // ------------------------------------------------------------------ precision and metrics

    @Test
    void fp8OnA100IsRejected() {
        assertRejected("fp8.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, """
                training: {seq_len: 2048, micro_batch_size: 2, precision: fp8}
                """), "training.precision", "fp8", "A100-SXM4-80GB");
    }

    @Test
    void fp8OnH100IsAccepted() {
        RunSpec s = read(write("fp8-h100.yaml", yaml("""
                cluster:
                  preset: dgx-h100
                """, MODEL_PRESET, """
                training: {seq_len: 2048, micro_batch_size: 2, precision: fp8}
                """)));
        assertEquals(Precision.FP8, s.run().training().precision());
        assertEquals("H100-SXM5-80GB", s.cluster().gpu().key());
    }

    @Test
    void mfuAboveOneIsRejected() {
        assertRejected("mfu.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, TRAINING, """
                metrics: {mfu: 42}
                """), "metrics.mfu", "between 0 and 1");
    }

    @Test
    void tflopsWithoutConventionIsRejected() {
        assertRejected("conv.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, TRAINING, """
                metrics: {tflops_per_gpu: 150}
                """), "metrics.tflops_convention", "tflops_per_gpu");
    }

    @Test
    void unknownTflopsConventionIsRejected() {
        assertRejected("conv-bad.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, TRAINING, """
                metrics: {tflops_per_gpu: 150, tflops_convention: internlm-evo}
                """), "metrics.tflops_convention", "internevo");
    }

    @Test
    void moreSkippedStepsThanStepsIsRejected() {
        assertRejected("skips.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, TRAINING, """
                metrics: {steps: 10, skipped_steps: 11}
                """), "metrics.skipped_steps", "at most steps");
    }

    @Test
    void negativeStepTimeIsRejected() {
        assertRejected("step-time.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, TRAINING, """
                metrics: {step_time_s: -3}
                """), "metrics.step_time_s", "positive number");
    }

    // ------------------------------------------------------------------ unknown keys

    static Stream<Arguments> unknownKeys() {
        return Stream.of(
                Arguments.of("top-level", yaml(CLUSTER_1_NODE, MODEL_PRESET, "paralel: {tp: 2}\n", TRAINING),
                        "paralel", "parallel"),
                Arguments.of("training", yaml(CLUSTER_1_NODE, MODEL_PRESET,
                        "training: {seq_len: 2048, micro_batch_size: 2, micro_batch: 4}\n"),
                        "training.micro_batch", "micro_batches"),
                Arguments.of("parallel", yaml(CLUSTER_1_NODE, MODEL_PRESET, "parallel: {tp: 1, zero: 1}\n", TRAINING),
                        "parallel.zero", "zero_stage"),
                Arguments.of("cluster", yaml("cluster:\n  preset: dgx-a100-80gb\n  node: 2\n", MODEL_PRESET, TRAINING),
                        "cluster.node", "nodes"),
                Arguments.of("intra_node", yaml("cluster:\n  preset: dgx-a100-80gb\n  intra_node: {link: NVLink3, busbw: 150}\n",
                        MODEL_PRESET, TRAINING), "cluster.intra_node.busbw", "busbw_gbps"),
                Arguments.of("inline model", yaml(CLUSTER_1_NODE,
                        "model: {layers: 32, hidden: 4096, heads: 32, ffn_hidden: 11008, vocab: 32000, num_layers: 32}\n",
                        TRAINING), "model.num_layers", "layers"),
                Arguments.of("metrics", yaml(CLUSTER_1_NODE, MODEL_PRESET, TRAINING,
                        "metrics: {tflops: 150, tflops_convention: internevo}\n"), "metrics.tflops", "tflops_per_gpu"));
    }

    @ParameterizedTest(name = "unknown key in {0}")
    @MethodSource("unknownKeys")
    void unknownKeyIsAnErrorNamingIt(String where, String text, String field, String meant) {
        SpecException e = assertRejected("unknown-key.yaml", text, field, "unknown key");
        assertTrue(e.getMessage().contains(meant), () -> "lists the known key " + meant + ": " + e.getMessage());
    }

    static Stream<Arguments> hints() {
        return Stream.of(
                Arguments.of(yaml(CLUSTER_1_NODE, MODEL_PRESET, "parallel: {tp: 1, zero: 1}\n", TRAINING),
                        "parallel.zero", "zero_stage"),
                Arguments.of(yaml(CLUSTER_1_NODE, MODEL_PRESET, TRAINING,
                        "metrics: {tflops: 150, tflops_convention: internevo}\n"), "metrics.tflops", "tflops_per_gpu"));
    }

    /**
     * The "nearest" hint should put the key the user most likely meant first. A typo that is a prefix
     * of the real key ("zero" for zero_stage, "tflops" for tflops_per_gpu) is closer in meaning than a
     * short unrelated key that happens to be few edits away ("ep", "mfu").
     */
    @ParameterizedTest(name = "unknown key {1} hints {2}")
    @MethodSource("hints")
    void unknownKeyHintPutsTheMeantKeyFirst(String text, String field, String meant) {
        SpecException e = assertRejected("hint.yaml", text, field, "unknown key");
        assertTrue(e.getMessage().contains("(nearest: " + meant),
                () -> "hint starts with " + meant + ": " + e.getMessage());
    }

    /**
     * "gpu: A100" (no such key: it is ambiguous between 40/80 GB and SXM/PCIe) should be pointed at the
     * A100 entries, not at whatever short key is fewest edits away.
     */
    @ParameterizedTest(name = "gpu {0}")
    @ValueSource(strings = {"A100", "H100"})
    void unknownGpuFamilyNameSuggestsThatFamily(String family) {
        SpecException e = assertRejected("family.yaml", yaml("cluster:\n  gpu: " + family
                + "\n  gpus_per_node: 8\n  intra_node: {link: NVLink3}\n", MODEL_PRESET, TRAINING), "cluster.gpu");
        String msg = e.getMessage();
        String hint = msg.substring(msg.indexOf("nearest"));
        assertTrue(hint.contains(family + "-"), () -> "suggests " + family + " entries: " + msg);
        assertFalse(hint.contains("B200") || hint.contains("L40S"), () -> "does not suggest unrelated GPUs: " + msg);
    }

    @Test
    void unknownKeyInJsonIsAnError() {
        assertRejected("unknown.json", """
                {"cluster": {"preset": "dgx-a100-80gb"}, "model": "internlm-7b",
                 "training": {"seq_len": 2048, "micro_batch_size": 2, "micro_batch": 4}}
                """, "training.micro_batch", "unknown key");
    }

    // ------------------------------------------------------------------ file-level errors

    @Test
    void duplicateTopLevelKeyInJsonIsRejected() {
        assertRejected("dup-top.json", """
                {"name": "a",
                 "cluster": {"preset": "dgx-a100-80gb"}, "model": "internlm-7b",
                 "name": "b",
                 "training": {"seq_len": 2048, "micro_batch_size": 2}}
                """, "name", "duplicate", "line 3");
    }

    @Test
    void duplicateNestedKeyInJsonNamesTheDottedField() {
        assertRejected("dup.json", """
                {"cluster": {"preset": "dgx-a100-80gb"}, "model": "internlm-7b",
                 "parallel": {"tp": 1, "tp": 2},
                 "training": {"seq_len": 2048, "micro_batch_size": 2}}
                """, "parallel.tp", "duplicate", "line 2");
    }

    @Test
    void duplicateKeyInYamlIsRejected() {
        assertRejected("dup.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, """
                parallel:
                  tp: 1
                  tp: 2
                """, TRAINING), null, "duplicate", "tp", "line 6");
    }

    @Test
    void yamlSyntaxErrorGivesTheLine() {
        assertRejected("syntax.yaml", """
                cluster: {preset: dgx-a100-80gb}
                model: internlm-7b
                parallel: {tp: 1
                training: {seq_len: 2048, micro_batch_size: 2}
                """, null, "valid YAML", "line 3");
    }

    @Test
    void jsonSyntaxErrorGivesTheLine() {
        assertRejected("syntax.json", """
                {"cluster": {"preset": "dgx-a100-80gb"},
                 "model": "internlm-7b",
                 "parallel": {"tp": 1} "training": {"seq_len": 2048, "micro_batch_size": 2}}
                """, null, "valid JSON", "line 3");
    }

    @Test
    void trailingContentAfterTheJsonObjectIsASyntaxError() {
        // a stray closing brace: the object before it is complete, the file is not valid JSON
        assertRejected("trailing.json", """
                {"cluster": {"preset": "dgx-a100-80gb"}, "model": "internlm-7b",
                 "parallel": {"tp": 2},
                 "training": {"seq_len": 2048, "micro_batch_size": 2}}}
                """, null, "valid JSON", "line 3");
    }

    @Test
    void aSecondYamlDocumentIsNotSilentlyIgnored() {
        // everything after '---' would otherwise be dropped without a word
        Path p = write("two-docs.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, TRAINING, """
                ---
                parallel: {tp: 3}
                """));
        SpecException e = assertThrows(SpecException.class, () -> read(p),
                "a run file with two YAML documents must be rejected, not read up to '---'");
        assertTrue(e.getMessage().contains("two-docs.yaml"), e.getMessage());
        // line 5 holds '---', line 6 the second document's first key: the parser stops there
        assertTrue(e.getMessage().contains("line 6"), () -> "names the line of the second document: " + e.getMessage());
        assertTrue(e.getMessage().contains("single YAML document"), e.getMessage());
    }

    @Test
    void aKeyWithoutAValueIsNotSilentlyDefaulted() {
        // 'micro_batches:' with nothing after it is YAML null; reading it as the default 1 hides the mistake
        assertRejected("no-value.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, """
                training: {seq_len: 2048, micro_batch_size: 2, micro_batches: }
                """), "training.micro_batches", "integer");
    }

    @Test
    void jsonWithAByteOrderMarkIsRead() throws IOException {
        // Windows editors save UTF-8 with a BOM; RFC 8259 lets parsers ignore it, and the YAML reader does
        Path p = dir.resolve("bom.json");
        byte[] body = """
                {"cluster": {"preset": "dgx-a100-80gb"}, "model": "internlm-7b",
                 "training": {"seq_len": 2048, "micro_batch_size": 2}}
                """.getBytes(StandardCharsets.UTF_8);
        byte[] withBom = new byte[body.length + 3];
        withBom[0] = (byte) 0xEF; withBom[1] = (byte) 0xBB; withBom[2] = (byte) 0xBF;
        System.arraycopy(body, 0, withBom, 3, body.length);
        Files.write(p, withBom);
        RunSpec s = read(p);
        assertEquals(8, s.run().parallel().dp());
    }

    @Test
    void nonUtf8FileSaysUtf8WasExpected() throws IOException {
        Path p = dir.resolve("latin1.yaml");
        Files.write(p, yaml("name: caf\u00e9\n", CLUSTER_1_NODE, MODEL_PRESET, TRAINING)
                .getBytes(StandardCharsets.ISO_8859_1));
        SpecException e = assertThrows(SpecException.class, () -> read(p));
        assertTrue(e.getMessage().contains("latin1.yaml"), e.getMessage());
        assertTrue(e.getMessage().contains("UTF-8"), () -> "says the file must be UTF-8: " + e.getMessage());
    }

    @Test
    void missingFileIsRejected() {
        Path p = dir.resolve("nowhere.yaml");
        SpecException e = assertThrows(SpecException.class, () -> read(p));
        assertTrue(e.getMessage().contains("nowhere.yaml"), e.getMessage());
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }

    @ParameterizedTest(name = "empty {0}")
    @ValueSource(strings = {"empty.yaml", "empty.json", "empty.yml"})
    void emptyFileIsRejected(String name) {
        assertRejected(name, "", null, "empty");
    }

    @Test
    void commentOnlyYamlIsRejectedAsEmpty() {
        assertRejected("comments.yaml", "# a run file to fill in\n", null, "empty");
    }

    @Test
    void whitespaceOnlyJsonIsRejectedAsEmpty() {
        assertRejected("blank.json", "  \n\n", null, "empty");
    }

    @Test
    void topLevelListIsRejected() {
        assertRejected("list.json", "[1, 2]\n", null, "object");
    }

    @Test
    void missingRequiredBlocksAreNamed() {
        assertRejected("no-training.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET), "training", "required");
        assertRejected("no-model.yaml", yaml(CLUSTER_1_NODE, TRAINING), "model", "required");
        assertRejected("no-cluster.yaml", yaml(MODEL_PRESET, TRAINING), "cluster", "required");
        assertRejected("no-seq.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, "training: {micro_batch_size: 2}\n"),
                "training.seq_len", "required");
    }

    // ------------------------------------------------------------------ what valid files mean

    @Test
    void dpIsDerivedWhenOmitted() {
        RunSpec s = read(write("derive.yaml", yaml(CLUSTER_2_NODES, MODEL_PRESET, "parallel: {tp: 2}\n", TRAINING)));
        assertEquals(16, s.cluster().gpus());
        assertEquals(2, s.run().parallel().tp());
        assertEquals(8, s.run().parallel().dp(), "dp = 16 GPUs / (tp 2 * pp 1 * cp 1)");
    }

    @Test
    void dpIsDerivedFromAllModelParallelDimensions() {
        RunSpec s = read(write("derive-pp.yaml", yaml(CLUSTER_2_NODES, MODEL_PRESET,
                "parallel: {tp: 2, pp: 2, cp: 2}\n", TRAINING)));
        assertEquals(2, s.run().parallel().dp(), "dp = 16 / (2*2*2)");
    }

    @Test
    void zeroGroupSizeDefaultsToDp() {
        RunSpec s = read(write("zg.yaml", yaml(CLUSTER_2_NODES, MODEL_PRESET,
                "parallel: {tp: 2, zero_stage: 1}\n", TRAINING)));
        assertEquals(8, s.run().parallel().dp());
        assertEquals(8, s.run().parallel().zeroGroupSize());
        assertEquals(1, s.run().parallel().zeroStage());
    }

    @Test
    void givenZeroGroupSizeIsKept() {
        RunSpec s = read(write("zg8.yaml", yaml(CLUSTER_2_NODES, MODEL_PRESET,
                "parallel: {zero_stage: 1, zero_group_size: 8}\n", TRAINING)));
        assertEquals(16, s.run().parallel().dp());
        assertEquals(8, s.run().parallel().zeroGroupSize());
    }

    @Test
    void runFileOverridesTheClusterPresetsNodes() {
        RunSpec s = read(write("override.yaml", yaml("""
                cluster:
                  preset: a100-80gb-pcie-8x
                  nodes: 3
                  intra_node: {busbw_gbps: 18}
                """, MODEL_PRESET, TRAINING)));
        assertEquals(3, s.cluster().nodes(), "nodes from the run file, not the preset's 1");
        assertEquals(8, s.cluster().gpusPerNode(), "gpus_per_node from the preset");
        assertEquals(24, s.cluster().gpus());
        assertEquals(24, s.run().parallel().dp());
        assertEquals("A100-PCIe-80GB", s.cluster().gpu().key());
        // a nested override merges with the preset's intra_node: the link stays, the busbw is the run's
        assertEquals("PCIe4", s.cluster().intraNode().key(), "knowledge-base/clusters/a100-80gb-pcie-8x.json");
        assertEquals(18, s.cluster().intraNode().busbwGbps(), 1e-9);
        assertTrue(s.cluster().intraNode().busbwMeasured());
        assertEquals("IB-HDR100", s.cluster().interNode().key());
        assertEquals(2, s.cluster().interNode().nicsPerNode());
    }

    @Test
    void presetAloneKeepsItsNodes() {
        RunSpec s = read(write("preset.yaml", yaml(CLUSTER_1_NODE, MODEL_PRESET, TRAINING)));
        assertEquals(1, s.cluster().nodes());
        assertEquals(8, s.cluster().gpus());
    }

    @Test
    void jsonAndYamlGiveTheSameSpec() {
        RunSpec y = read(write("same.yaml", yaml(CLUSTER_2_NODES, MODEL_PRESET, "parallel: {tp: 2}\n", TRAINING)));
        RunSpec j = read(write("same.json", """
                {"cluster": {"preset": "dgx-a100-80gb", "nodes": 2}, "model": "internlm-7b",
                 "parallel": {"tp": 2},
                 "training": {"seq_len": 2048, "micro_batch_size": 2, "micro_batches": 4}}
                """));
        assertEquals(y.cluster(), j.cluster());
        assertEquals(y.run().parallel(), j.run().parallel());
        assertEquals(y.run().training(), j.run().training());
        assertEquals(y.run().model(), j.run().model());
        assertEquals("same", y.name(), "name defaults to the file's stem");
    }

    @Test
    void examplesAreValid() {
        RunSpec s = read(Path.of("examples", "internlm-7b-pcie-2nodes.yaml"));
        assertEquals(16, s.cluster().gpus());
        assertEquals("A100-PCIe-80GB", s.cluster().gpu().key());
        assertEquals(16, s.run().parallel().dp());
        assertEquals(93.48, s.run().measured().tflopsPerGpu(), 1e-9);
    }

    // ------------------------------------------------------------------ catalogue matching

    @Test
    void catalogueKeysMatchCaseInsensitivelyAndThroughAliases() {
        Catalog c = Catalog.builtIn();
        assertEquals("A100-SXM4-80GB", c.gpu("a100 80gb sxm", "f", "cluster.gpu").key());
        assertEquals("A100-SXM4-80GB", c.gpu("a100-sxm4-80gb", "f", "cluster.gpu").key());
        assertEquals("A100-SXM4-80GB", c.gpu("NVIDIA A100-SXM4-80GB", "f", "cluster.gpu").key());
        assertEquals("H100-SXM5-80GB", c.gpu("h100 sxm", "f", "cluster.gpu").key());
        assertEquals("RTX-4090", c.gpu("GeForce RTX 4090", "f", "cluster.gpu").key());
        assertEquals("PCIe4", c.link("pcie gen4", "f", "cluster.intra_node.link").key());
        assertEquals("NVLink3", c.link("nvlink3", "f", "cluster.intra_node.link").key());
        assertEquals("IB-HDR100", c.network("hdr100", "f", "cluster.inter_node.link").key());
        assertEquals("IB-NDR", c.network("infiniband ndr", "f", "cluster.inter_node.link").key());
    }

    @Test
    void aliasesWorkInARunFile() {
        RunSpec s = read(write("alias.yaml", yaml("""
                cluster:
                  gpu: a100 80gb sxm
                  nodes: 2
                  gpus_per_node: 8
                  intra_node: {link: nvlink 3}
                  inter_node: {link: infiniband hdr, nics_per_node: 8}
                """, "model: LLaMA-2-7B\n", TRAINING)));
        assertEquals("A100-SXM4-80GB", s.cluster().gpu().key());
        assertEquals("NVLink3", s.cluster().intraNode().key());
        assertEquals("IB-HDR", s.cluster().interNode().key());
        assertEquals(32, s.run().model().layers(), "model preset matched case-insensitively");
    }

    @ParameterizedTest(name = "GPU {0}")
    @MethodSource("gpus")
    void everyRequiredGpuResolves(String key) {
        Gpu g = Catalog.builtIn().gpu(key, "f", "cluster.gpu");
        assertEquals(key, g.key());
        assertEquals(key, Catalog.builtIn().gpu(key.toLowerCase(Locale.ROOT), "f", "cluster.gpu").key());
        assertTrue(g.peakTflops(Precision.BF16) > 0 || g.peakTflops(Precision.FP16) > 0, key + " has a 16-bit peak");
        assertTrue(g.hbmGb() > 0 && g.hbmGbps() > 0, key + " has memory size and bandwidth");
        assertFalse(g.source().isBlank(), key + " names its source");
    }

    @ParameterizedTest(name = "link {0}")
    @MethodSource("links")
    void everyRequiredLinkResolves(String key) {
        IntraNodeLink l = Catalog.builtIn().link(key, "f", "cluster.intra_node.link");
        assertEquals(key, l.key());
        assertEquals(key, Catalog.builtIn().link(key.toUpperCase(Locale.ROOT), "f", "x").key());
        assertTrue(l.busbwGbps() > 0, key + " has a bus bandwidth");
        assertFalse(l.source().isBlank(), key + " names its source");
    }

    @ParameterizedTest(name = "network {0}")
    @MethodSource("networks")
    void everyRequiredNetworkResolves(String key) {
        Catalog.NetworkEntry n = Catalog.builtIn().network(key, "f", "cluster.inter_node.link");
        assertEquals(key, n.key());
        assertEquals(key, Catalog.builtIn().network(key.toLowerCase(Locale.ROOT), "f", "x").key());
        assertTrue(n.lineRateGbitS() > 0 && n.efficiency() > 0 && n.efficiency() <= 1, key + " has rate and efficiency");
        assertFalse(n.source().isBlank(), key + " names its source");
    }

    static List<String> gpus() { return GPUS; }
    static List<String> links() { return LINKS; }
    static List<String> networks() { return NETWORKS; }

    @Test
    void catalogueHoldsEveryRequiredKey() {
        Catalog c = Catalog.builtIn();
        assertTrue(c.gpus().keySet().containsAll(GPUS), () -> "GPUs: " + c.gpus().keySet());
        assertTrue(c.links().keySet().containsAll(LINKS), () -> "links: " + c.links().keySet());
        assertTrue(c.networks().keySet().containsAll(NETWORKS), () -> "networks: " + c.networks().keySet());
    }

    @Test
    void unknownCatalogueKeyFromTheApiNamesFileAndField() {
        SpecException e = assertThrows(SpecException.class,
                () -> Catalog.builtIn().network("IB-QDR", "run.yaml", "cluster.inter_node.link"));
        assertTrue(e.getMessage().contains("run.yaml"), e.getMessage());
        assertNamesField(e.getMessage(), "cluster.inter_node.link");
        assertTrue(e.getMessage().contains("IB-HDR") || e.getMessage().contains("IB-NDR"), e.getMessage());
    }
}
