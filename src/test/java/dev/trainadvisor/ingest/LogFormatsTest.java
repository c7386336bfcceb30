package dev.trainadvisor.ingest;

import dev.trainadvisor.input.SpecException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** Format detection over every sample of shared/samples/logs, and what happens with an unknown log. */
class LogFormatsTest {
    /** Sample file prefix to the format it must be detected as (the longest prefix wins). */
    static final Map<String, String> EXPECTED = Map.ofEntries(
            Map.entry("internlm", "internevo"),
            Map.entry("megatron", "megatron"),
            Map.entry("megatron-deepspeed", "megatron-deepspeed"),
            Map.entry("deepspeed", "deepspeed"),
            Map.entry("torchtitan", "torchtitan"),
            Map.entry("nanotron", "nanotron"),
            Map.entry("composer", "composer"),
            Map.entry("hf-trainer", "hf-trainer"),
            Map.entry("nccl-tests", "nccl-tests"),
            Map.entry("nvidia-smi-topo", "nvidia-smi-topo"));

    static String expected(String fileName) {
        String best = null;
        for (String prefix : EXPECTED.keySet())
            if (fileName.startsWith(prefix + "-") && (best == null || prefix.length() > best.length())) best = prefix;
        return best == null ? null : EXPECTED.get(best);
    }

    @Test
    void everySampleIsDetectedAsItsFormat() {
        List<String> names = Samples.all();
        assumeFalse(names.isEmpty(), "shared samples not present");
        int checked = 0;
        for (String name : names) {
            String want = expected(name);
            if (want == null) continue;
            String text = Samples.text(name);
            ParsedLog p = LogFormats.detectAndParse(text, name);
            assertEquals(want, p.format(), name);
            assertFalse(p.warnings().stream().anyMatch(w -> w.startsWith("parser error")), name + ": " + p.warnings());
            checked++;
        }
        assertTrue(checked >= 20, "checked " + checked + " samples");
    }

    @Test
    void allFormatsInOrder() {
        assertEquals(List.of("internevo", "megatron", "megatron-deepspeed", "deepspeed", "torchtitan", "nanotron",
                "nemo", "composer", "hf-trainer", "lightning", "nccl-tests", "nvidia-smi-topo"), LogFormats.formats());
        for (String f : LogFormats.formats()) assertEquals(f, LogFormats.byFormat(f).format());
    }

    @Test
    void unknownLogNamesTheFile() {
        SpecException e = assertThrows(SpecException.class,
                () -> LogFormats.detectAndParse("just some text\nwith two lines\n", "runs/notes.txt"));
        assertEquals("runs/notes.txt", e.file());
        assertTrue(e.getMessage().contains("a log of a known format (internevo, megatron,"), e.getMessage());
        assertTrue(e.getMessage().endsWith("none recognized"), e.getMessage());
        assertThrows(SpecException.class, () -> LogFormats.detectAndParse("", "empty.log"));
        assertThrows(SpecException.class, () -> LogFormats.detectAndParse(null, "null.log"));
    }

    @Test
    void nvidiaSmiTopoIsIncluded() {
        assertTrue(LogFormats.all().stream().anyMatch(p -> p instanceof TopologyLog));
    }

    @Test
    void dottedLinesAreNotAnArgumentDump() {
        String dots = "Loading ... done\nBuilding ... done\nCompiling ... done\nLinking ... done\nSaving ... done\n";
        assertThrows(SpecException.class, () -> LogFormats.detectAndParse(dots, "build.log"));
        String dump = "  num_layers ...................................... 24\n"
                + "  hidden_size ..................................... 1024\n"
                + "  num_attention_heads ............................. 16\n";
        ParsedLog p = LogFormats.detectAndParse(dump, "args.log");
        assertEquals("megatron", p.format());
        assertEquals(24, p.config().get("model.layers"));
    }
}
