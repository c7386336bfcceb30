package dev.trainadvisor.ingest;

import dev.trainadvisor.pyliteral.RandomSource;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import static java.util.Map.entry;
import static org.junit.jupiter.api.Assertions.*;

/**
 * InternEvo config files (docs/logs.md (InternLM / InternEvo)) read into dotted run-file keys. Every expected value below is
 * worked out by hand from the config text.
 */
class InternEvoConfigTest {

    /** configs/7B_sft.py exactly as docs/logs.md (InternLM / InternEvo) shows it, "..." elisions included. */
    static final String SFT_7B_DOC = """
            SEQ_LEN = 2048
            HIDDEN_SIZE = 4096
            NUM_ATTENTION_HEAD = 32
            MLP_RATIO = 8 / 3
            NUM_LAYER = 32
            VOCAB_SIZE = 103168
            data = dict(seq_len=SEQ_LEN, micro_num=4, micro_bsz=2, ..., total_steps=50000, ...)  # packed_length = micro_bsz * SEQ_LEN
            model = dict(checkpoint=False, num_attention_heads=NUM_ATTENTION_HEAD, vocab_size=VOCAB_SIZE,
                         hidden_size=HIDDEN_SIZE, num_layers=NUM_LAYER, mlp_ratio=MLP_RATIO,
                         dtype="torch.bfloat16", use_flash_attn=True, num_chunks=1, ...)
            """;

    /** Every key the reader may produce. */
    static final Set<String> KEYS = Set.of("model.layers", "model.hidden", "model.heads", "model.kv_heads",
            "model.vocab", "model.mlp_ratio", "model.ffn_hidden", "model.gated_mlp", "training.seq_len",
            "training.micro_batch_size", "training.micro_batches", "training.recompute", "training.precision",
            "training.flash_attention", "parallel.tp", "parallel.pp", "parallel.virtual_stages", "parallel.zero_stage",
            "parallel.zero_group_size", "parallel.sequence_parallel");

    static Map<String, Object> parallel(String src) {
        Map<String, Object> p = new TreeMap<>();
        InternEvoConfig.read(src).forEach((k, v) -> {
            if (k.startsWith("parallel.")) p.put(k, v);
        });
        return p;
    }

    static long count(List<String> warnings, String part) {
        return warnings.stream().filter(w -> w.contains(part)).count();
    }

    // ------------------------------------------------------------------ the documented 7B_sft.py

    @Test
    void sft7BAsShownInLogFormats() {
        InternEvoConfig.Result r = InternEvoConfig.readWithWarnings(SFT_7B_DOC);
        assertEquals(Map.ofEntries(
                entry("model.layers", 32),                   // num_layers=NUM_LAYER = 32
                entry("model.hidden", 4096),
                entry("model.heads", 32),
                entry("model.kv_heads", 32),                 // no num_kv_attention_heads: as many as heads
                entry("model.vocab", 103168),
                entry("model.mlp_ratio", 8.0 / 3),           // 8 / 3 is a float in Python 3
                entry("model.ffn_hidden", 11008),            // int(4096 * 8/3) = 10922, up to a multiple of 256
                entry("model.gated_mlp", true),              // SwiGLU by default
                entry("training.seq_len", 2048),
                entry("training.micro_batch_size", 2),       // micro_bsz
                entry("training.micro_batches", 4),          // micro_num
                entry("training.recompute", "none"),         // checkpoint=False
                entry("training.precision", "bf16"),         // "torch.bfloat16"
                entry("training.flash_attention", true),
                entry("parallel.virtual_stages", 1)),        // num_chunks=1
                r.config());
        // the three "..." elisions are skipped entries, one warning each; nothing else is reported
        assertEquals(3, r.warnings().size(), r.warnings().toString());
        assertEquals(3, count(r.warnings(), "'...'"), r.warnings().toString());
        assertEquals(2, count(r.warnings(), "line 7: data"), "both elisions of the data line");
        assertEquals(1, count(r.warnings(), "line 10: model"), "the elision on the model block's third line");
        assertEquals(r.config(), InternEvoConfig.read(SFT_7B_DOC));
    }

    // ------------------------------------------------------------------ the parallel block's shapes

    @Test
    void parallelV1ZeroOnly() {
        // InternLM 2023-07: zero1=8 shards optimizer state over groups of 8; tensor and pipeline not given
        assertEquals(Map.of("parallel.zero_stage", 1, "parallel.zero_group_size", 8),
                parallel("parallel = dict(zero1=8,)"));
    }

    @Test
    void parallelV020FlatInts() {
        assertEquals(Map.of("parallel.zero_stage", 1, "parallel.zero_group_size", 8, "parallel.pp", 1,
                        "parallel.tp", 1),
                parallel("parallel = dict(zero1=8, pipeline=1, tensor=1)"));
    }

    @Test
    void parallel2024NestedDicts() {
        String src = """
                parallel = dict(
                    zero1=dict(size=-1),
                    tensor=dict(size=1, mode="mtp"),
                    pipeline=dict(size=1, interleaved_overlap=True),
                    weight=dict(size=1, overlap=True, memory_pool=True),
                )
                """;
        InternEvoConfig.Result r = InternEvoConfig.readWithWarnings(src);
        // size=-1: ZeRO-1 over all of dp, so no group size; mode mtp: Megatron TP without sequence parallelism
        assertEquals(Map.of("parallel.zero_stage", 1, "parallel.tp", 1, "parallel.sequence_parallel", false,
                "parallel.pp", 1), r.config());
        assertEquals(List.of(), r.warnings(), "weight size 1 is nothing to report");
    }

    @Test
    void zeroGroupOfFourWithoutFsdp() {
        assertEquals(Map.of("parallel.zero_stage", 1, "parallel.zero_group_size", 4),
                parallel("parallel = dict(zero1=dict(size=4, fsdp=False))"));
    }

    @Test
    void zeroWithFsdpIsStage3() {
        assertEquals(Map.of("parallel.zero_stage", 3, "parallel.zero_group_size", 8),
                parallel("parallel = dict(zero1=dict(size=8, fsdp=True))"));
        assertEquals(Map.of("parallel.zero_stage", 3),
                parallel("parallel = dict(zero1=dict(size=-1, fsdp=True))"), "FSDP over all of dp");
    }

    @Test
    void zeroSizeOneIsNoZero() {
        assertEquals(Map.of("parallel.zero_stage", 0), parallel("parallel = dict(zero1=1)"));
        assertEquals(Map.of("parallel.zero_stage", 0), parallel("parallel = dict(zero1=dict(size=1))"));
        assertEquals(Map.of("parallel.zero_stage", 1), parallel("parallel = dict(zero1=0)"), "0 <= 0: all of dp");
    }

    @Test
    void missingZero1IsInternEvoDefault() {
        // args_sanity_check adds zero1=dict(size=-1, fsdp=False) to a parallel block without one
        assertEquals(Map.of("parallel.zero_stage", 1, "parallel.tp", 2, "parallel.sequence_parallel", true),
                parallel("parallel = dict(tensor=dict(size=2, mode=\"msp\"))"));
        assertEquals(Map.of(), parallel("model = dict(num_layers=2)"), "no parallel block, no parallel keys");
    }

    @Test
    void tensorModeIspIsSequenceParallel() {
        InternEvoConfig.Result r = InternEvoConfig.readWithWarnings("""
                SP = 4
                parallel = dict(zero1=dict(size=-1), tensor=dict(size=SP, mode="isp"))
                """);
        assertEquals(Map.of("parallel.zero_stage", 1, "parallel.tp", 4, "parallel.sequence_parallel", true),
                r.config());
        assertEquals(1, r.warnings().size(), r.warnings().toString());
        assertTrue(r.warnings().get(0).contains("isp") && r.warnings().get(0).contains("sequence-parallel size"),
                r.warnings().get(0));
    }

    @Test
    void tensorSizeFromAnUndefinedConstantIsSkipped() {
        InternEvoConfig.Result r = InternEvoConfig.readWithWarnings(
                "parallel = dict(zero1=8, tensor=dict(size=SP, mode=\"isp\"))");
        assertEquals(Map.of("parallel.zero_stage", 1, "parallel.zero_group_size", 8,
                "parallel.sequence_parallel", true), r.config(), "the mode is still known");
        assertEquals(1, count(r.warnings(), "parallel.tensor.size skipped: constant 'SP' is not defined"),
                r.warnings().toString());
    }

    @Test
    void legacySequenceParallelFlag() {
        // configs/_base_/models/internlm2_7B.py's block
        String src = """
                parallel = dict(
                    zero1=dict(size=8, fsdp=False),
                    tensor=1,
                    pipeline=dict(size=1, interleaved_overlap=True),
                    sequence_parallel=False,
                )
                """;
        assertEquals(Map.of("parallel.zero_stage", 1, "parallel.zero_group_size", 8, "parallel.tp", 1,
                "parallel.pp", 1, "parallel.sequence_parallel", false), parallel(src));
        assertEquals(true, parallel("parallel = dict(tensor=8, sequence_parallel=True)")
                .get("parallel.sequence_parallel"));
    }

    @Test
    void tensorModeDecidesOverTheFlag() {
        InternEvoConfig.Result r = InternEvoConfig.readWithWarnings(
                "parallel = dict(tensor=dict(size=2, mode=\"mtp\"), sequence_parallel=True)");
        assertEquals(false, r.config().get("parallel.sequence_parallel"));
        assertEquals(1, count(r.warnings(), "sequence_parallel=True ignored"), r.warnings().toString());
        assertEquals(true, parallel("parallel = dict(tensor=dict(size=2, mode=\"fsp\"))")
                .get("parallel.sequence_parallel"));
    }

    @Test
    void numChunksNeedsAPipeline() {
        assertEquals(Map.of("parallel.zero_stage", 1, "parallel.pp", 4, "parallel.virtual_stages", 2),
                parallel("model = dict(num_chunks=2)\nparallel = dict(pipeline=dict(size=4))"));
        InternEvoConfig.Result r = InternEvoConfig.readWithWarnings(
                "model = dict(num_chunks=2)\nparallel = dict(pipeline=1)");
        assertFalse(r.config().containsKey("parallel.virtual_stages"), "pipeline 1: no interleaving");
        assertEquals(1, count(r.warnings(), "num_chunks=2 ignored"), r.warnings().toString());
    }

    // ------------------------------------------------------------------ the model block

    @Test
    void gqaAndOtherMlpRatios() {
        // InternLM2-7B (configs/_base_/models/internlm2_7B.py): 8 KV heads, mlp_ratio 3.5 -> 14336 (a multiple of 256)
        Map<String, Object> c = InternEvoConfig.read("""
                NUM_ATTENTION_HEAD = 32
                NUM_KV_ATTENTION_HEAD = 8
                MLP_RATIO = 3.5
                model = dict(hidden_size=4096, num_attention_heads=NUM_ATTENTION_HEAD,
                             num_kv_attention_heads=NUM_KV_ATTENTION_HEAD, mlp_ratio=MLP_RATIO)
                """);
        assertEquals(32, c.get("model.heads"));
        assertEquals(8, c.get("model.kv_heads"));
        assertEquals(3.5, c.get("model.mlp_ratio"));
        assertEquals(14336, c.get("model.ffn_hidden"));
        // Qwen2-7B (configs/7B_qwen2.py): int(3584 * 5.25) = 18816 = 73.5 * 256 -> 74 * 256 = 18944
        assertEquals(18944, InternEvoConfig.read("model = dict(hidden_size=3584, mlp_ratio=5.25)")
                .get("model.ffn_hidden"));
        // an integer ratio: 1024 * 4 = 4096 stays
        assertEquals(4096, InternEvoConfig.read("model = dict(hidden_size=1024, mlp_ratio=4)").get("model.ffn_hidden"));
        assertEquals(4.0, InternEvoConfig.read("model = dict(hidden_size=1024, mlp_ratio=4)").get("model.mlp_ratio"));
        // a width the config gives is taken as it is
        assertEquals(11000, InternEvoConfig.read("model = dict(hidden_size=4096, mlp_ratio=8 / 3, intermediate_size=11000)")
                .get("model.ffn_hidden"));
    }

    @Test
    void kvHeadsDefaultDependsOnTheModelType() {
        String model = "model = dict(num_attention_heads=32)";
        assertEquals(32, InternEvoConfig.read(model).get("model.kv_heads"), "InternLM: multi-head attention");
        assertEquals(32, InternEvoConfig.read("model_type = \"INTERNLM\"\n" + model).get("model.kv_heads"));
        InternEvoConfig.Result r = InternEvoConfig.readWithWarnings("model_type = \"INTERNLM2\"\n" + model);
        assertFalse(r.config().containsKey("model.kv_heads"), r.config().toString());
        assertEquals(1, count(r.warnings(), "model.kv_heads"), r.warnings().toString());
        assertEquals(4, InternEvoConfig.read("model_type = \"QWEN2\"\n"
                + "model = dict(num_attention_heads=28, num_kv_attention_heads=4)").get("model.kv_heads"));
    }

    @Test
    void nonGatedMlpGivesNoFfnWidth() {
        InternEvoConfig.Result r = InternEvoConfig.readWithWarnings(
                "model = dict(hidden_size=1024, mlp_ratio=4, use_swiglu=False)");
        assertEquals(false, r.config().get("model.gated_mlp"));
        assertFalse(r.config().containsKey("model.ffn_hidden"));
        assertEquals(1, count(r.warnings(), "model.ffn_hidden"), r.warnings().toString());
    }

    @Test
    void checkpointToRecompute() {
        assertEquals("none", recompute("False"));
        assertEquals("full", recompute("True"));
        assertEquals("none", recompute("0"));
        assertEquals("full", recompute("1"));
        // a fraction recomputes int(layers * f) layers: 0.2 of 32 -> 6 layers, reported, read as full
        InternEvoConfig.Result r = InternEvoConfig.readWithWarnings("model = dict(num_layers=32, checkpoint=0.2)");
        assertEquals("full", r.config().get("training.recompute"));
        assertEquals(1, count(r.warnings(), "recomputes 6 of 32 layers"), r.warnings().toString());
        assertEquals(6.0 / 32, r.config().get("training.recompute_fraction"));
        // 0.01 of 32 -> int(0.32) = 0 layers: nothing recomputes
        assertEquals("none", InternEvoConfig.read("model = dict(num_layers=32, checkpoint=0.01)")
                .get("training.recompute"));
        // without num_layers a fraction is still full
        assertEquals("full", recompute("0.5"));
        InternEvoConfig.Result bad = InternEvoConfig.readWithWarnings("model = dict(checkpoint=\"yes\")");
        assertFalse(bad.config().containsKey("training.recompute"));
        assertEquals(1, count(bad.warnings(), "model.checkpoint"), bad.warnings().toString());
    }

    static Object recompute(String checkpoint) {
        return InternEvoConfig.read("model = dict(checkpoint=" + checkpoint + ")").get("training.recompute");
    }

    @Test
    void dtypeToPrecision() {
        assertEquals("bf16", precision("torch.bfloat16"));
        assertEquals("fp16", precision("torch.float16"));
        assertEquals("fp16", precision("torch.half"));
        assertEquals("fp32", precision("torch.float32"));
        assertEquals("fp32", precision("torch.tf32"));
        InternEvoConfig.Result r = InternEvoConfig.readWithWarnings("model = dict(dtype=\"torch.int8\")");
        assertFalse(r.config().containsKey("training.precision"));
        assertEquals(1, count(r.warnings(), "model.dtype"), r.warnings().toString());
        // an unquoted torch.bfloat16 is an attribute of a name: not evaluated
        InternEvoConfig.Result u = InternEvoConfig.readWithWarnings("model = dict(dtype=torch.bfloat16, num_layers=2)");
        assertEquals(Map.of("model.layers", 2, "model.gated_mlp", true), u.config());
        assertEquals(1, count(u.warnings(), "model.dtype skipped"), u.warnings().toString());
    }

    static Object precision(String dtype) {
        return InternEvoConfig.read("model = dict(dtype=\"" + dtype + "\")").get("training.precision");
    }

    // ------------------------------------------------------------------ statements the evaluator skips
    // (the evaluator itself: dev.trainadvisor.pyliteral.PyLiteralsTest)

    @Test
    void otherStatementsAreSkippedAndReported() {
        InternEvoConfig.Result r = InternEvoConfig.readWithWarnings("""
                import os
                \"""a module docstring is nothing to report\"""
                if os.environ.get("BIG"):
                    model = dict(num_layers=80)
                model = dict(num_layers=32)
                model["checkpoint"] = True
                NUM = 1
                NUM += 1
                """);
        assertEquals(32, r.config().get("model.layers"), "the if-block body is not run");
        assertFalse(r.config().containsKey("training.recompute"));
        assertEquals(4, r.warnings().size(), r.warnings().toString());
        assertTrue(r.warnings().get(0).startsWith("line 1: skipped 'import os'"), r.warnings().get(0));
        assertTrue(r.warnings().get(1).startsWith("line 3: skipped 'if os.environ"), r.warnings().get(1));
        assertTrue(r.warnings().get(2).startsWith("line 6: skipped 'model[\"checkpoint\"] = True'"), r.warnings().get(2));
        assertTrue(r.warnings().get(3).startsWith("line 8: skipped 'NUM += 1'"), r.warnings().get(3));
    }

    @Test
    void aBadEntryLosesOnlyItself() {
        InternEvoConfig.Result r = InternEvoConfig.readWithWarnings("""
                model = dict(num_layers=32, hidden_size=foo(1, (2, 3)), vocab_size=(100 + x, 2), num_attention_heads=8,
                             **extra, use_flash_attn=False)
                """);
        assertEquals(Map.of("model.layers", 32, "model.heads", 8, "model.kv_heads", 8, "model.gated_mlp", true,
                "training.flash_attention", false), r.config());
        assertEquals(3, r.warnings().size(), r.warnings().toString());
        assertTrue(r.warnings().get(0).startsWith("line 1: model.hidden_size skipped: call foo(...)"), r.warnings().get(0));
        assertTrue(r.warnings().get(1).startsWith("line 1: model.vocab_size skipped: name 'x'"), r.warnings().get(1));
        assertTrue(r.warnings().get(2).startsWith("line 2: model skipped: expected key=value"), r.warnings().get(2));
    }

    // ------------------------------------------------------------------ a real config file

    @Test
    void realIspConfigFromInternEvo() throws IOException {
        String src;
        try (InputStream in = getClass().getResourceAsStream("/internevo/7B_isp_sft.py")) {
            assertNotNull(in, "fixture internevo/7B_isp_sft.py");
            src = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(src.startsWith("# Source: https://github.com/InternLM/InternEvo/"), "line 1 names the source");
        InternEvoConfig.Result r = InternEvoConfig.readWithWarnings(src);
        assertEquals(Map.ofEntries(
                entry("model.layers", 32),
                entry("model.hidden", 4096),
                entry("model.heads", 32),
                // no model.kv_heads: NUM_KV_ATTENTION_HEAD = 8 is defined but the model dict does not pass it,
                // and model_type INTERNLM2's class defaults num_kv_attention_heads to 12, not to the 32 heads
                entry("model.vocab", 103168),
                entry("model.mlp_ratio", 8.0 / 3),
                entry("model.ffn_hidden", 11008),
                entry("model.gated_mlp", true),
                entry("training.seq_len", 2048),
                entry("training.micro_batch_size", 2),
                entry("training.micro_batches", 4),
                entry("training.recompute", "none"),
                entry("training.precision", "bf16"),
                entry("training.flash_attention", true),
                entry("parallel.virtual_stages", 1),
                entry("parallel.zero_stage", 1),             // zero1=dict(size=-1): all of dp, no group size
                entry("parallel.tp", 2),                     // tensor=dict(size=2, mode="isp")
                entry("parallel.sequence_parallel", true),
                entry("parallel.pp", 1)),
                r.config());
        List<String> ws = r.warnings();
        assertEquals(8, ws.size(), ws.toString());
        assertEquals(1, count(ws, "model.kv_heads: not given"), ws.toString());
        assertEquals(1, count(ws, "ckpt.oss_snapshot_freq skipped: call int(...)"), ws.toString());
        assertEquals(1, count(ws, "lr_scheduler.total_steps skipped: subscript data[...]"), ws.toString());
        assertEquals(1, count(ws, "beta2_scheduler.init_beta2 skipped: subscript adam[...]"), ws.toString());
        assertEquals(1, count(ws, "beta2_scheduler.c skipped: subscript adam[...]"), ws.toString());
        assertEquals(1, count(ws, "monitor.alert.alert_file_path skipped: f-string"), ws.toString());
        assertEquals(1, count(ws, "mode \"isp\""), ws.toString());
        assertEquals(1, count(ws, "parallel.weight.size=4"), ws.toString());
    }

    // ------------------------------------------------------------------ garbage

    static void survives(String text, String what) {
        InternEvoConfig.Result r;
        try {
            r = InternEvoConfig.readWithWarnings(text);
        } catch (Throwable e) {
            throw new AssertionError("threw on " + what, e);
        }
        assertNotNull(r, what);
        assertTrue(KEYS.containsAll(r.config().keySet()), what + ": " + r.config().keySet());
        assertTrue(r.warnings().size() <= InternEvoConfig.MAX_WARNINGS + 1, what);
        for (String w : r.warnings()) assertFalse(w.startsWith("internal error"), what + ": " + w);
        assertNotNull(InternEvoConfig.read(text), what);
    }

    @Test
    void nullAndEmpty() {
        assertEquals(Map.of(), InternEvoConfig.read(null));
        assertEquals(List.of("no config text"), InternEvoConfig.readWithWarnings(null).warnings());
        assertEquals(new InternEvoConfig.Result(Map.of(), List.of()), InternEvoConfig.readWithWarnings(""));
        survives("\uFEFF", "a lone BOM");
        survives("\r\n\r\n   \n\t#", "blank lines");
    }

    @Test
    void randomText() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            List<String> texts = RandomSource.texts(11, 400);
            for (int i = 0; i < texts.size(); i++) survives(texts.get(i), "random text or bytes #" + i);
        });
    }

    @Test
    void unbalancedAndUnterminated() {
        List<String> inputs = List.of("model = dict(num_layers=32", ")))\nA = 1", "parallel = dict(zero1=dict(size=8)",
                "data = dict(seq_len=(2048)", "A = (1, 2]", "A = {'a': 1", "A = [1, 2", "'''never closed",
                "A = 'abc\nB = 2", "model = dict(num_layers=32))", "model = dict(num_layers=32]", "}{", "dict(",
                "A = dict(a=1, b=", "A = (", "A = -", "A = 2 **", "A = 1 +", "= 1", "A =", "A == 1", "x = y = 1",
                "A = 1e999", "A = 99999999999999999999999", "A = 1j", "A = 0xZZ", "A = \\", "model = dict(a=1,,b=2)");
        for (String s : inputs) survives(s, s);
        // whatever fails to close fails, but what came before is kept
        Map<String, Object> c = InternEvoConfig.read("model = dict(num_layers=2)\ndata = dict(seq_len=(2048)\n");
        assertEquals(2, c.get("model.layers"));
        assertFalse(c.containsKey("training.seq_len"));
        // a closed model block before an unterminated string still counts
        assertEquals(2, InternEvoConfig.read("model = dict(num_layers=2)\nA = 'x").get("model.layers"));
    }

    @Test
    void megabyteLines() {
        int mb = 1 << 20;
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            survives("(".repeat(mb), "1 MB of (");
            survives("A = " + "(".repeat(mb) + "1" + ")".repeat(mb), "1 MB nesting, closed");
            survives("A = " + "[".repeat(mb), "1 MB of [");
            survives("model = " + "dict(a=".repeat(mb / 7) + "1", "1 MB of nested dicts");
            survives("A = " + "-".repeat(mb) + "1", "1 MB of unary minus");
            survives("A = " + "2**".repeat(mb / 3) + "2", "1 MB power tower");
            survives("#".repeat(mb), "1 MB comment");
            survives("A = \"" + "x".repeat(mb), "1 MB unterminated string");
            survives("A = \"\"\"" + "x\n".repeat(mb / 2), "1 MB unterminated triple-quoted string");
            survives("A = 1" + " 1".repeat(mb / 2), "1 MB of numbers");
            survives("x = " + "y = ".repeat(mb / 4) + "1", "1 MB chained assignment");
            Random random = new Random(3);
            StringBuilder b = new StringBuilder(mb);
            String alphabet = "abcXYZ_019 =(),[]{}:.'\"#\\+-*/";
            for (int k = 0; k < mb; k++) b.append(alphabet.charAt(random.nextInt(alphabet.length())));
            survives(b.toString(), "1 MB random line");

            // long but well-formed: evaluated, not just survived
            assertEquals(3, InternEvoConfig.read("model = dict(" + "a=1, ".repeat(mb / 5) + "num_layers=3)")
                    .get("model.layers"));
        });
    }

    @Test
    void warningsAreBounded() {
        String many = "import os\n".repeat(10_000);
        List<String> ws = InternEvoConfig.readWithWarnings(many).warnings();
        assertEquals(InternEvoConfig.MAX_WARNINGS + 1, ws.size());
        assertEquals((10_000 - InternEvoConfig.MAX_WARNINGS) + " more warnings not shown", ws.get(ws.size() - 1));
    }

    @Test
    void resultIsImmutable() {
        InternEvoConfig.Result r = InternEvoConfig.readWithWarnings("model = dict(num_layers=2)\nimport os");
        assertThrows(UnsupportedOperationException.class, () -> r.config().put("x", 1));
        assertThrows(UnsupportedOperationException.class, () -> r.warnings().add("x"));
        assertEquals(new ArrayList<>(r.config().keySet()), List.of("model.gated_mlp", "model.layers"), "sorted keys");
    }
}
