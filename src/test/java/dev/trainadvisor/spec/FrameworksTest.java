package dev.trainadvisor.spec;

import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.perf.CollectiveOp;
import dev.trainadvisor.perf.StepModel;
import dev.trainadvisor.perf.StepPrediction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** The framework profiles of knowledge-base/frameworks/ and how a run takes one. */
class FrameworksTest {

    @TempDir
    Path dir;

    static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    @Test
    void atLeastTenFrameworksBesideTheDefaultEachFactWithItsSource() throws IOException {
        Map<String, Frameworks.Profile> all = Frameworks.builtIn().profiles();
        List<String> named = new ArrayList<>(all.keySet());
        named.remove(Frameworks.DEFAULT);
        assertTrue(named.size() >= 10, named.toString());
        for (String key : List.of("megatron-core", "megatron-lm", "megatron-deepspeed", "deepspeed", "pytorch", "torchtitan",
                "composer", "internevo", "nemo", "hf-trainer", "nanotron", "llm.c"))
            assertTrue(all.containsKey(key), key);
        // every fact object of every file names its source: walk the raw JSON
        try (var files = Files.list(Path.of("knowledge-base/frameworks"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".json")).toList()) {
                List<String> missing = new ArrayList<>();
                walk(JSON.readTree(f.toFile()), "", missing);
                assertTrue(missing.isEmpty(), f + ": facts without a source: " + missing);
            }
        }
    }

    private static void walk(com.fasterxml.jackson.databind.JsonNode n, String path, List<String> missing) {
        if (!n.isObject()) return;
        if (n.has("value") && (!n.has("source") || n.get("source").asText().isBlank())) missing.add(path);
        for (Iterator<Map.Entry<String, com.fasterxml.jackson.databind.JsonNode>> it = n.fields(); it.hasNext(); ) {
            var e = it.next();
            walk(e.getValue(), path + "." + e.getKey(), missing);
        }
    }

    @Test
    void aVersionOverridesOnlyTheFactsItNames() {
        Framework newest = Frameworks.builtIn().find("internevo", null, "t", "training.framework");
        Framework july2023 = Frameworks.builtIn().find("InternLM", "2023", "t", "training.framework");
        assertEquals("2024", newest.version());
        assertEquals("internevo", july2023.key(), "an alias, any case");
        // InternLM's code of July 2023 ran FlashAttention 1.0.5; InternEvo runs FlashAttention 2
        assertEquals(AttentionKernel.FA1, july2023.attentionKernel().value());
        assertEquals(AttentionKernel.FA2, newest.attentionKernel().value());
        // the rest is the base's: the bf16 all-reduce and the per-rank broadcast
        assertEquals(Framework.Kind.ALL_REDUCE, july2023.stage(1).gradients().collective().value());
        assertEquals(Framework.Kind.BROADCAST, july2023.stage(1).parameters().collective().value());
        assertEquals(newest.bucket(), july2023.bucket());
    }

    @Test
    void anUnknownFrameworkOrVersionIsRefusedWithTheKnownOnes() {
        SpecException e = assertThrows(SpecException.class,
                () -> Frameworks.builtIn().find("megatorn-core", null, "run.yaml", "training.framework"));
        assertEquals("training.framework", e.field());
        assertTrue(e.getMessage().contains("nearest known: megatron-core"), e.getMessage());
        e = assertThrows(SpecException.class, () -> Frameworks.builtIn().find("deepspeed", "0.9", "run.yaml", "training.framework"));
        assertEquals("training.framework_version", e.field());
        assertTrue(e.getMessage().contains("2023-11"), e.getMessage());
    }

    /** A run file of 16 A100 on 2 NVLink nodes at ZeRO stage {@code zero}, with {@code extra} in its training block. */
    static com.fasterxml.jackson.databind.node.ObjectNode run(int zero, String extra) throws IOException {
        return (com.fasterxml.jackson.databind.node.ObjectNode) new com.fasterxml.jackson.databind.ObjectMapper(
                new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree("""
                cluster: {preset: dgx-a100-80gb, nodes: 2}
                model: llama-2-7b
                parallel: {zero_stage: %d}
                training: {seq_len: 4096, micro_batch_size: 1, micro_batches: 4%s}
                """.formatted(zero, extra));
    }

    /** A shipped profile's tree under another key and without its aliases, to be changed and read as a team's own. */
    static com.fasterxml.jackson.databind.node.ObjectNode renamedCopy(String shipped, String key) throws IOException {
        var tree = (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(
                Path.of("knowledge-base/frameworks/" + shipped + ".json").toFile());
        tree.put("key", key);
        tree.putArray("aliases");
        return tree;
    }

    @Test
    void aNewFrameworkIsOneDataFile() throws IOException {
        // a team's trainer: PyTorch's profile, but its ZeRO 1 all-gathers the parameters in one coalesced call where
        // ZeroRedundancyOptimizer broadcasts them per rank
        var tree = renamedCopy("pytorch", "our-trainer");
        var params = (com.fasterxml.jackson.databind.node.ObjectNode) tree.get("zero").get("1").get("parameters");
        params.putObject("collective").put("value", "all-gather").put("source", "our trainer, zero.py line 40");
        params.putObject("calls").put("value", "one").put("source", "our trainer, zero.py line 41");
        Files.writeString(dir.resolve("our-trainer.json"), tree.toPrettyString());
        Frameworks mine = Frameworks.builtIn().with(dir);
        SpecReader reader = new SpecReader(Catalog.builtIn(), mine);
        RunSpec ours = reader.read(run(1, ", framework: our-trainer"), "ours.yaml");
        RunSpec torch = reader.read(run(1, ", framework: pytorch"), "torch.yaml");
        StepPrediction a = StepModel.predict(ours.cluster(), ours.run()), b = StepModel.predict(torch.cluster(), torch.run());
        var gather = a.collectives().stream().filter(c -> c.op() == CollectiveOp.ZERO_PARAM_ALL_GATHER).findFirst().orElseThrow();
        assertEquals(1, gather.calls());
        assertTrue(a.collectives().stream().noneMatch(c -> c.op() == CollectiveOp.ZERO_PARAM_BROADCAST));
        assertTrue(b.collectives().stream().anyMatch(c -> c.op() == CollectiveOp.ZERO_PARAM_BROADCAST));
        // and nothing else of the step differs
        assertEquals(b.computeSeconds(), a.computeSeconds(), 1e-12);
        // the built-in catalogue does not know it
        assertThrows(SpecException.class, () -> new SpecReader().read(run(1, ", framework: our-trainer"), "ours.yaml"));
    }

    /** A profile's boolean fact that is not a boolean is refused with its file, field and what was expected. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"pipeline_scatter_gather", "tp_backward_overlap"})
    void aBooleanFactThatIsNoBooleanIsRefused(String fact) throws IOException {
        var tree = (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(
                Path.of("knowledge-base/frameworks/megatron-lm.json").toFile());
        tree.put("key", "our-megatron");
        tree.putArray("aliases");
        ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get(fact)).put("value", "yes");
        Files.writeString(dir.resolve("our-megatron.json"), tree.toPrettyString());
        SpecException e = assertThrows(SpecException.class, () -> Frameworks.builtIn().with(dir));
        assertEquals(fact + ".value", e.field());
        assertTrue(e.getMessage().contains("our-megatron.json") && e.getMessage().contains("true or false"), e.getMessage());
    }

    @Test
    void aProfileWithoutItsSourcesIsRefused() throws IOException {
        var tree = (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(
                Path.of("knowledge-base/frameworks/generic.json").toFile());
        tree.put("key", "unsourced");
        ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("bucket")).remove("source");
        Files.writeString(dir.resolve("unsourced.json"), tree.toPrettyString());
        SpecException e = assertThrows(SpecException.class, () -> Frameworks.builtIn().with(dir));
        assertEquals("bucket.source", e.field());
    }

    @Test
    void aRunTakesTheFrameworkItsFileItsLogOrItsConventionNames() throws IOException {
        SpecReader reader = new SpecReader();
        RunSpec given = reader.read(run(1, ", framework: deepspeed"), "a.yaml");
        assertEquals("deepspeed", given.run().training().framework().key());
        assertTrue(given.run().training().implementation().given());
        var byConvention = run(1, "");
        byConvention.putObject("metrics").put("tflops_per_gpu", 150).put("tflops_convention", "megatron-legacy");
        RunSpec mcore = reader.read(byConvention, "b.yaml");
        // Megatron-Core printed full attention up to 0.11: the version whose own convention it is
        assertEquals("megatron-core 0.11", mcore.run().training().framework().label());
        assertEquals("metrics.tflops_convention (megatron-legacy)", mcore.run().training().implementation().origin());
        RunSpec byLog = reader.read(run(1, ""), "c.yaml", false, "deepspeed");
        assertEquals("deepspeed", byLog.run().training().framework().key());
        assertEquals("the log's format (deepspeed)", byLog.run().training().implementation().origin());
        RunSpec none = reader.read(run(1, ""), "d.yaml");
        assertTrue(none.run().training().implementation().defaulted());
        assertEquals(Frameworks.DEFAULT, none.run().training().framework().key());
        // a version without its framework, and a stage the framework does not run, are refused
        SpecException e = assertThrows(SpecException.class, () -> reader.read(run(1, ", framework_version: '2023'"), "e.yaml"));
        assertEquals("training.framework_version", e.field());
        e = assertThrows(SpecException.class, () -> reader.read(run(3, ", framework: internevo"), "f.yaml"));
        assertEquals("parallel.zero_stage", e.field());
        assertTrue(e.getMessage().contains("internevo 2024 runs, one of [0, 1]"), e.getMessage());
    }

    /**
     * A log printed before its framework's default version began was written by an older one: the version current on
     * the log's day (each version's since date is the commit its description cites). torchtitan's default, 2026-06
     * (1695457, 2026-06-09), runs FlexAttention; the 2025-06 sample log's torchtitan ran SDPA's flash kernel.
     */
    @Test
    void aLogTakesTheVersionItsDateAllows() throws IOException {
        SpecReader reader = new SpecReader();
        var run = run(3, "");
        java.util.function.Function<java.time.LocalDate, Implementation> on = d ->
                reader.read(run, "t.yaml", false, "torchtitan", d).run().training().implementation();
        // before 5a090f2 (2025-10-29): the earliest, undated version
        Implementation june2025 = on.apply(java.time.LocalDate.of(2025, 6, 16));
        assertEquals("torchtitan before-2025-10", june2025.framework().label());
        assertEquals("the log's format (torchtitan), at the version current on 2025-06-16, the log's date (the default, "
                + "2026-06, began 2026-06-09)", june2025.origin());
        assertTrue(Implementation.versionByLog(june2025.origin()));
        assertEquals(AttentionKernel.FA2, june2025.framework().attentionKernel().value());
        // the day a version began is that version's; the day before, the one before it
        assertEquals("2025-10", on.apply(java.time.LocalDate.of(2025, 10, 29)).framework().version());
        assertEquals("before-2025-10", on.apply(java.time.LocalDate.of(2025, 10, 28)).framework().version());
        assertEquals("2025-10", on.apply(java.time.LocalDate.of(2026, 6, 8)).framework().version());
        // a date the default allows, and no date: the default, said as before
        for (java.time.LocalDate d : new java.time.LocalDate[]{java.time.LocalDate.of(2026, 6, 9), null}) {
            Implementation dflt = on.apply(d);
            assertEquals("2026-06", dflt.framework().version());
            assertEquals("the log's format (torchtitan)", dflt.origin());
            assertFalse(Implementation.versionByLog(dflt.origin()));
        }
        // a framework named without its version, beside a log of its: the same bound; with its version, as given
        Implementation named = reader.read(run(3, ", framework: torchtitan"), "g.yaml", false, "torchtitan",
                java.time.LocalDate.of(2025, 6, 16)).run().training().implementation();
        assertEquals("torchtitan before-2025-10", named.framework().label());
        assertEquals("training.framework, at the version current on 2025-06-16, the log's date (the default, 2026-06, "
                + "began 2026-06-09)", named.origin());
        assertTrue(named.given());
        Implementation pinned = reader.read(run(3, ", framework: torchtitan, framework_version: '2026-06'"), "h.yaml",
                false, "torchtitan", java.time.LocalDate.of(2025, 6, 16)).run().training().implementation();
        assertEquals("torchtitan 2026-06", pinned.framework().label());
        assertEquals(Implementation.GIVEN, pinned.origin());
        // a date bounds a version from above only: Megatron-DeepSpeed's default (2023, its earliest) stays in 2025
        assertEquals("2023", reader.read(run(1, ""), "m.yaml", false, "megatron-deepspeed",
                java.time.LocalDate.of(2025, 1, 1)).run().training().framework().version());
        // InternLM's July 2023 logs (the motivating case's era): InternEvo 2024 began 2024-03-28 (c628a8c)
        assertEquals("internevo 2023", reader.read(run(1, ""), "i.yaml", false, "internevo",
                java.time.LocalDate.of(2023, 7, 7)).run().training().framework().label());
        // DeepSpeed up to v0.12.3 (6ea44d0, 2023-11-10), before 2afa1c7 (2023-11-21)
        assertEquals("deepspeed before-2023-11", reader.read(run(1, ""), "d.yaml", false, "deepspeed",
                java.time.LocalDate.of(2023, 11, 10)).run().training().framework().label());
    }

    /**
     * Some versions of a profile print a log format and others do not: NeMo 2.0's ProgressPrinter and MegatronProgressBar
     * lines (the nemo format) are NeMo 2.0's, not Megatron-Bridge's (the profile's default, whose loop prints
     * Megatron-LM's line). A nemo log is read at the NeMo 2.0 versions only, its day choosing between them (nemo-2.0
     * from 6251117, 2025-08-09, the FLOPs count with causal attention at half).
     */
    @Test
    void aLogFormatSomeVersionsPrintIsReadAtThoseVersions() throws IOException {
        SpecReader reader = new SpecReader();
        var run = run(1, "");
        java.util.function.Function<java.time.LocalDate, Implementation> on = d ->
                reader.read(run, "n.yaml", false, "nemo", d).run().training().implementation();
        Implementation undated = on.apply(null);
        assertEquals("nemo nemo-2.0", undated.framework().label(), "not bridge, the profile's default");
        assertEquals("the log's format (nemo), at the newest version a log of its format runs under", undated.origin());
        assertTrue(Implementation.versionByLog(undated.origin()));
        Implementation nov2024 = on.apply(java.time.LocalDate.of(2024, 11, 5));
        assertEquals("nemo nemo-before-2025-08", nov2024.framework().label());
        assertEquals("the log's format (nemo), at the version current on 2024-11-05, the log's date (the newest its log's "
                + "format runs under, nemo-2.0, began 2025-08-09)", nov2024.origin());
        assertEquals(dev.trainadvisor.spec.FlopsConvention.MEGATRON_LEGACY, nov2024.framework().flopsConvention().value());
        assertEquals("nemo-2.0", on.apply(java.time.LocalDate.of(2025, 8, 9)).framework().version(), "its first day");
        assertEquals("nemo-before-2025-08", on.apply(java.time.LocalDate.of(2025, 8, 8)).framework().version());
        // named without its version beside a nemo log: the same versions; named with it: as given
        Implementation named = reader.read(run(1, ", framework: nemo"), "m.yaml", false, "nemo", null)
                .run().training().implementation();
        assertEquals("nemo nemo-2.0", named.framework().label());
        assertEquals(Implementation.GIVEN_AT_LOGS_NEWEST, named.origin());
        assertTrue(named.given());
        assertEquals("nemo bridge", reader.read(run(1, ", framework: nemo"), "b.yaml").run().training().framework().label(),
                "no log: the profile's default");
        assertEquals("nemo bridge", reader.read(run(1, ", framework: nemo, framework_version: bridge"), "p.yaml", false,
                "nemo", null).run().training().framework().label(), "a version given is taken");
        // the date check holds among the versions a format runs under: both NeMo 2.0 versions dated leaves none earliest
        var tree = renamedCopy("nemo", "nemo-copy");
        ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("versions").get("nemo-before-2025-08")).putObject("since")
                .put("value", "2024-07-01").put("source", "test");
        Files.writeString(dir.resolve("nemo-copy.json"), tree.toPrettyString());
        SpecException e = assertThrows(SpecException.class, () -> Frameworks.builtIn().with(dir));
        assertEquals("versions", e.field());
        assertTrue(e.getMessage().contains("among the versions a nemo log runs under") && e.getMessage().contains("0 have none"),
                e.getMessage());
    }

    /** recipe_zero_stage, the stage a framework's recipes run, is a ZeRO stage: anything else names the field. */
    @Test
    void aRecipeStageIsAZeroStage() throws IOException {
        var tree = renamedCopy("nemo", "nemo-copy");
        ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("recipe_zero_stage")).put("value", 4);
        Files.writeString(dir.resolve("nemo-copy.json"), tree.toPrettyString());
        SpecException e = assertThrows(SpecException.class, () -> Frameworks.builtIn().with(dir));
        assertEquals("recipe_zero_stage.value", e.field());
        assertTrue(e.getMessage().contains("a ZeRO stage, 0 to 3"), e.getMessage());
        assertTrue(e.getMessage().contains("nemo-copy.json"), e.getMessage());
        // the shipped profile's: NeMo's and Megatron-Bridge's recipes run the distributed optimizer
        assertEquals(1, Frameworks.builtIn().profiles().get("nemo").at(null).recipeZeroStageOrNull());
        assertNull(Frameworks.builtIn().profiles().get("torchtitan").at(null).recipeZeroStageOrNull());
    }

    /** A profile's rank_order is one of the two orders a run file writes; anything else names the file and field. */
    @Test
    void aRankOrderIsOneOfTheTwo() throws IOException {
        for (String bad : new String[]{"tp-cp-ep-dp-pp", "pp-dp-cp-tp"}) {
            var tree = renamedCopy("megatron-core", "megatron-core-copy");
            ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("rank_order")).put("value", bad);
            Files.writeString(dir.resolve("megatron-core-copy.json"), tree.toPrettyString());
            SpecException e = assertThrows(SpecException.class, () -> Frameworks.builtIn().with(dir));
            assertEquals("rank_order.value", e.field());
            assertTrue(e.getMessage().contains("[tp-cp-dp-pp, tp-cp-pp-dp]") && e.getMessage().contains(bad), e.getMessage());
            assertTrue(e.getMessage().contains("megatron-core-copy.json"), e.getMessage());
        }
    }

    /**
     * A DeepSpeed log states its release (deepspeed.initialize's "DeepSpeed info: version="), which says which version
     * ran exactly: 2afa1c7's chunked all-reduce was first released in v0.12.4. The release decides before the date
     * (a team may run an old release long after).
     */
    @Test
    void aLogThatStatesItsReleaseIsReadAtItsVersion() throws IOException {
        SpecReader reader = new SpecReader();
        Frameworks.Profile ds = Frameworks.builtIn().profiles().get("deepspeed");
        assertEquals("before-2023-11", ds.versionOfRelease("0.12.3", null));
        assertEquals("2023-11", ds.versionOfRelease("0.12.4", null));
        assertEquals("2023-11", ds.versionOfRelease("0.12.10", null));   // number by number, not as text
        assertEquals("before-2023-11", ds.versionOfRelease("0.9", null));
        assertEquals("2023-11", ds.versionOfRelease("1", null));
        assertNull(ds.versionOfRelease(null, null));
        assertNull(Frameworks.builtIn().profiles().get("torchtitan").versionOfRelease("0.10.3", null), "no releases told apart");
        // Megatron-DeepSpeed: before 0.12.4 its BLOOM-era 2023; from it 2024-01 or 2024-08, which share the release and
        // differ by Megatron-DeepSpeed's b7b2d5e (2024-08-19): the log's day tells them apart, else the earlier
        Frameworks.Profile mds = Frameworks.builtIn().profiles().get("megatron-deepspeed");
        assertEquals("2023", mds.versionOfRelease("0.12.3", java.time.LocalDate.of(2024, 9, 1)));
        assertEquals("2024-08", mds.versionOfRelease("0.14.0", java.time.LocalDate.of(2024, 8, 19)));
        assertEquals("2024-01", mds.versionOfRelease("0.14.0", java.time.LocalDate.of(2024, 8, 18)));
        assertEquals("2024-01", mds.versionOfRelease("0.14.0", null));
        Implementation undated = reader.read(run(1, ""), "m.yaml", false, "megatron-deepspeed", null, "0.14.0")
                .run().training().implementation();
        assertEquals("megatron-deepspeed 2024-01", undated.framework().label());
        assertEquals("the log's format (megatron-deepspeed), at the version of release 0.14.0, which the log states, the "
                + "earliest of the versions it runs under (the log is undated)", undated.origin());
        assertEquals("the log's format (megatron-deepspeed), at the version of release 0.14.0, which the log states and its "
                + "date, 2024-09-01", reader.read(run(1, ""), "n.yaml", false, "megatron-deepspeed",
                java.time.LocalDate.of(2024, 9, 1), "0.14.0").run().training().implementation().origin());
        Implementation old = reader.read(run(1, ""), "d.yaml", false, "deepspeed", java.time.LocalDate.of(2025, 1, 1),
                "0.10.3").run().training().implementation();
        assertEquals("deepspeed before-2023-11", old.framework().label());
        assertEquals("the log's format (deepspeed), at the version of release 0.10.3, which the log states", old.origin());
        assertTrue(Implementation.versionByLog(old.origin()));
        Implementation named = reader.read(run(1, ", framework: deepspeed"), "e.yaml", false, "deepspeed", null, "0.14.0")
                .run().training().implementation();
        assertEquals("deepspeed 2023-11", named.framework().label());
        assertTrue(named.given());
        assertEquals("training.framework, at the version of release 0.14.0, which the log states", named.origin());
    }

    /** Where some versions have a since date, all but one do: the earliest, which a log older than the rest takes. */
    @Test
    void sinceDatesLeaveExactlyOneVersionUndatedAndAreDays() throws IOException {
        var tree = renamedCopy("torchtitan", "titan-copy");
        var versions = (com.fasterxml.jackson.databind.node.ObjectNode) tree.get("versions");
        ((com.fasterxml.jackson.databind.node.ObjectNode) versions.get("2025-10")).remove("since");
        Files.writeString(dir.resolve("titan-copy.json"), tree.toPrettyString());
        SpecException e = assertThrows(SpecException.class, () -> Frameworks.builtIn().with(dir));
        assertEquals("versions", e.field());
        assertTrue(e.getMessage().contains("2 have none"), e.getMessage());
        ((com.fasterxml.jackson.databind.node.ObjectNode) versions.get("2025-10")).putObject("since")
                .put("value", "29 Oct 2025").put("source", "5a090f2");
        Files.writeString(dir.resolve("titan-copy.json"), tree.toPrettyString());
        e = assertThrows(SpecException.class, () -> Frameworks.builtIn().with(dir));
        assertEquals("versions.2025-10.since.value", e.field());
        assertTrue(e.getMessage().contains("a day, yyyy-mm-dd"), e.getMessage());
        // from_release: numbers joined by dots, one version without
        var ds = renamedCopy("deepspeed", "ds-copy");
        var dsVersions = (com.fasterxml.jackson.databind.node.ObjectNode) ds.get("versions");
        ((com.fasterxml.jackson.databind.node.ObjectNode) dsVersions.get("2023-11").get("from_release")).put("value", "v0.12.4");
        Files.delete(dir.resolve("titan-copy.json"));
        Files.writeString(dir.resolve("ds-copy.json"), ds.toPrettyString());
        e = assertThrows(SpecException.class, () -> Frameworks.builtIn().with(dir));
        assertEquals("versions.2023-11.from_release.value", e.field());
        ((com.fasterxml.jackson.databind.node.ObjectNode) dsVersions.get("before-2023-11")).putObject("from_release")
                .put("value", "0.1").put("source", "test");
        ((com.fasterxml.jackson.databind.node.ObjectNode) dsVersions.get("2023-11").get("from_release")).put("value", "0.12.4");
        Files.writeString(dir.resolve("ds-copy.json"), ds.toPrettyString());
        e = assertThrows(SpecException.class, () -> Frameworks.builtIn().with(dir));
        assertEquals("versions", e.field());
        assertTrue(e.getMessage().contains("0 have none"), e.getMessage());
    }

    @Test
    void runFileKeysOverrideTheProfilesDefaults() throws IOException {
        SpecReader reader = new SpecReader();
        // Megatron-Core reduces fp32 gradients, overlaps neither collective and buckets max(40M, 1M x dp) parameters
        RunSpec mcore = reader.read(run(1, ", framework: megatron-core"), "a.yaml");
        assertEquals(Precision.FP32, mcore.run().training().gradReducePrecision());
        assertFalse(mcore.run().parallel().overlapGradReduce());
        assertFalse(mcore.run().parallel().overlapParamGather());
        assertEquals(40e6 * 4 / 1e6, mcore.run().parallel().bucketMb(), 1e-9, "40M fp32 parameters over dp 16");
        // Transformer Engine keeps FlashAttention on Ampere and prefers cuDNN's fused attention on Hopper
        assertEquals(AttentionKernel.FA2, mcore.run().training().attentionKernel());
        var mcoreH100 = run(1, ", framework: megatron-core");
        ((com.fasterxml.jackson.databind.node.ObjectNode) mcoreH100.get("cluster")).put("preset", "dgx-h100");
        assertEquals(AttentionKernel.CUDNN, reader.read(mcoreH100, "h.yaml").run().training().attentionKernel());
        var tree = run(1, ", framework: megatron-core, grad_reduce_precision: bf16");
        tree.putObject("parallel").put("zero_stage", 1).put("overlap_grad_reduce", true).put("bucket_mb", 100);
        RunSpec set = reader.read(tree, "b.yaml");
        assertEquals(Precision.BF16, set.run().training().gradReducePrecision());
        assertTrue(set.run().parallel().overlapGradReduce());
        assertEquals(100, set.run().parallel().bucketMb(), 1e-9);
        // the default profile keeps the run file's old defaults
        RunSpec plain = reader.read(run(1, ""), "c.yaml");
        assertEquals(Precision.BF16, plain.run().training().gradReducePrecision());
        assertTrue(plain.run().parallel().overlapGradReduce());
        assertEquals(Parallel.DEFAULT_BUCKET_MB, plain.run().parallel().bucketMb(), 1e-9);
        // PyTorch's SDPA runs cuDNN's attention on Hopper (measured, h200-sdpa-default.json), FlashAttention-2 elsewhere
        var h100 = run(0, ", framework: pytorch");
        ((com.fasterxml.jackson.databind.node.ObjectNode) h100.get("cluster")).put("preset", "dgx-h100");
        assertEquals(AttentionKernel.CUDNN, reader.read(h100, "d.yaml").run().training().attentionKernel());
        assertEquals(AttentionKernel.FA2, reader.read(run(0, ", framework: pytorch"), "e.yaml").run().training().attentionKernel());
    }
}
