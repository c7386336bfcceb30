package dev.trainadvisor.perf;

import dev.trainadvisor.spec.AttentionKernel;
import dev.trainadvisor.spec.ElementwiseKernels;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.ReferenceRun;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Honest validation (issue 21, item 1): every constant fitted on published runs refitted without each source group,
 * the group predicted with the refit, the prediction intervals read off these out-of-source errors and their coverage
 * checked on held-out sources.
 */
class LeaveOneSourceOutTest {
    static final List<ReferenceRun> RUNS = ReferenceRun.builtIn();
    static final LeaveOneSourceOut.Report REPORT = LeaveOneSourceOut.of(RUNS);

    static ReferenceRun first(Predicate<ReferenceRun> p) {
        return RUNS.stream().filter(p).findFirst().orElseThrow();
    }

    /**
     * The refit reaches the model through Efficiency.defaults: the GEMMs' fraction is the GPU's MAMF over its peak times
     * the in-step fraction (H100 SXM: 792 of 989 TFLOPS in the catalogue); ring attention's time is 1 + overhead x
     * (cp - 1) / cp (cp 4: 1 + 0.75 at overhead 1, 1 at 0); Triton's rate off a curve is FA2's times its speed.
     */
    @Test
    void theFittedConstantsReachTheModelWhereTheyAreUsed() {
        ReferenceRun cp4 = first(r -> r.spec().run().parallel().cp() == 4 && r.spec().run().training().flashAttention());
        var gpu = cp4.spec().cluster().gpu();
        var run = cp4.spec().run();
        double mamf = gpu.mamfTflopsBf16() / gpu.peakTflops(Precision.BF16);
        assertEquals(mamf * 0.5, Efficiency.defaults(gpu, run, Calibration.SHIPPED.with(0, 0.5)).gemmFractionOfPeak(), 1e-12);
        double noRing = Efficiency.defaults(gpu, run, Calibration.SHIPPED.with(4, 0.0)).attentionFractionOfPeak();
        double fullRing = Efficiency.defaults(gpu, run, Calibration.SHIPPED.with(4, 1.0)).attentionFractionOfPeak();
        assertEquals(1 / 1.75, fullRing / noRing, 1e-12);

        ReferenceRun triton = first(r -> r.spec().run().training().attentionKernel() == AttentionKernel.TRITON
                && r.spec().cluster().gpu().architecture().equals("Ampere"));
        var t = triton.spec();
        double a = Efficiency.defaults(t.cluster().gpu(), t.run(), Calibration.SHIPPED.with(3, 0.5)).attentionFractionOfPeak();
        double b = Efficiency.defaults(t.cluster().gpu(), t.run(), Calibration.SHIPPED.with(3, 0.7)).attentionFractionOfPeak();
        assertEquals(0.5 / 0.7, a / b, 1e-12);

        ReferenceRun compiled = first(r -> r.spec().run().training().elementwiseKernels() == ElementwiseKernels.COMPILED);
        var c = compiled.spec();
        assertEquals(3.0, Efficiency.defaults(c.cluster().gpu(), c.run(), Calibration.SHIPPED.with(2, 3.0)).elementwiseTraffic());
        assertEquals(Efficiency.COMPILED_ELEMENTWISE_TRAFFIC,
                Efficiency.defaults(c.cluster().gpu(), c.run(), Calibration.SHIPPED.with(1, 3.0)).elementwiseTraffic());
        // the shipped constants are the model's own: the same efficiencies as the one-argument defaults, for every run
        for (ReferenceRun r : RUNS)
            assertEquals(Efficiency.defaults(r.spec().cluster().gpu(), r.spec().run()),
                    Efficiency.defaults(r.spec().cluster().gpu(), r.spec().run(), Calibration.SHIPPED), r.id());
    }

    /**
     * Runs that measured exactly what the model predicts at other constants (each on its grid) give those constants
     * back: the fit finds a known optimum from the shipped start, on runs that see every constant (Triton on A100,
     * element-wise and compiled traffic, context parallelism).
     */
    @Test
    void theFitFindsTheConstantsThatMadeTheMeasurements() {
        Calibration.Constants truth = new Calibration.Constants(0.75, 2.5, 1.0, 0.5, 0.3);
        List<Calibration.Row> rows = new ArrayList<>();
        for (ReferenceRun r : RUNS) {
            if (!r.split().equals("tune") || r.isExcluded()) continue;
            Calibration.Row plain = new Calibration.Row(r);
            rows.add(new Calibration.Row(r, plain.predict(truth).tokensPerGpuPerS() / plain.observed()));
        }
        Calibration.Result fit = Calibration.fit(rows, Calibration.SHIPPED);
        assertEquals(truth, fit.constants());
        assertEquals(0, fit.rmsLogError(), 1e-9);
    }

    /** Each group's refit is the fit on the other groups' tune rows, counted here from the files. */
    @Test
    void eachGroupIsPredictedByConstantsFittedWithoutIt() {
        List<Calibration.Row> all = Calibration.rows(RUNS);
        for (LeaveOneSourceOut.Group g : REPORT.groups()) {
            long others = RUNS.stream().filter(r -> r.split().equals("tune") && !r.isExcluded()
                    && !r.sourceGroup().equals(g.group())).count();
            assertEquals(others, g.fittedOn(), g.group());
        }
        LeaveOneSourceOut.Group torchtitan = REPORT.groups().stream().filter(g -> g.group().equals("torchtitan"))
                .findFirst().orElseThrow();
        Calibration.Result direct = Calibration.fit(all.stream().filter(r -> !r.run().sourceGroup().equals("torchtitan"))
                .toList(), Calibration.SHIPPED);
        assertEquals(direct.constants(), torchtitan.constants());
        assertEquals(RUNS.stream().filter(r -> r.split().equals("tune") && !r.isExcluded()).count(), REPORT.allTune().rows());
    }

    /**
     * Nothing a group measured reaches its own out-of-source prediction or its band: with the torchtitan runs made to
     * read 30% faster, their predictions and refit stay as they were, while the other groups', fitted with them, move.
     * On five groups (torchtitan, NeMo long-sequence, Consumer GPUs, Narayanan 2021, IBM fms-fsdp), so that it runs in
     * seconds; the bookkeeping is the same as on all.
     */
    @Test
    void aGroupsOwnMeasurementsNeverReachItsOutOfSourcePrediction() {
        String held = "torchtitan";
        java.util.Set<String> groups = java.util.Set.of(held, "NeMo long-sequence (CP)", "Consumer GPUs (RTX 3090/4090)",
                "Megatron-LM (Narayanan 2021)", "IBM fms-fsdp (PyTorch FSDP)");
        List<Calibration.Row> plain = new ArrayList<>(), faster = new ArrayList<>();
        for (ReferenceRun r : RUNS) {
            if (!groups.contains(r.sourceGroup()) || !ObservedThroughput.of(r.spec().cluster(), r.spec().run()).measured()) continue;
            plain.add(new Calibration.Row(r));
            faster.add(new Calibration.Row(r, r.sourceGroup().equals(held) ? 1.3 : 1.0));
        }
        LeaveOneSourceOut.Report before = LeaveOneSourceOut.ofRows(plain), moved = LeaveOneSourceOut.ofRows(faster);
        assertEquals(groups.size(), before.groups().size());
        boolean othersMoved = false;
        for (int i = 0; i < before.rows().size(); i++) {
            Validation.Row a = before.rows().get(i), b = moved.rows().get(i);
            assertEquals(a.id(), b.id());
            if (a.sourceGroup().equals(held)) {
                assertEquals(a.tokensPredicted(), b.tokensPredicted(), 0.0, a.id());
                assertEquals(a.tokensObserved() * 1.3, b.tokensObserved(), 1e-9 * b.tokensObserved());
            } else othersMoved |= a.tokensPredicted() != b.tokensPredicted();
        }
        assertTrue(othersMoved, "the groups fitted with the torchtitan rows see them");
        LeaveOneSourceOut.Group a = group(before, held), b = group(moved, held);
        assertEquals(a.constants(), b.constants());
        assertNotEquals(a.coverage(), b.coverage(), "30% faster runs leave the band they were inside");
    }

    static LeaveOneSourceOut.Group group(LeaveOneSourceOut.Report r, String name) {
        return r.groups().stream().filter(g -> g.group().equals(name)).findFirst().orElseThrow();
    }

    /**
     * The 80% interval, read off out-of-source errors, covers 75-85% of the runs of sources held out of it (each group
     * against the band of the others' out-of-source errors, themselves predicted without that group).
     */
    @Test
    void theEightyPercentIntervalCoversThreeQuartersToSixSeventhsOfHeldOutSources() {
        LeaveOneSourceOut.Coverage c = REPORT.coverage();
        int rows = 0, inside = 0;
        for (LeaveOneSourceOut.Group g : REPORT.groups()) {
            rows += g.coverage().rows();
            inside += g.coverage().inside();
        }
        assertEquals(rows, c.rows());
        assertEquals(inside, c.inside());
        assertEquals(REPORT.outOfSource().rows(), c.rows(), "every run not excluded is counted once");
        assertTrue(c.share() >= 0.75 && c.share() <= 0.85, c.inside() + " of " + c.rows());
    }

    /** The summaries are those of the rows: the out-of-source mean absolute error recomputed here. */
    @Test
    void theOverallErrorIsTheMeanOverEveryRun() {
        double abs = 0;
        int n = 0;
        for (Validation.Row r : REPORT.rows()) {
            if (r.excluded() != null) continue;
            abs += Math.abs(r.tokensPredicted() / r.tokensObserved() - 1);
            n++;
        }
        assertEquals(abs / n, REPORT.outOfSource().tokensMape(), 1e-12);
        Map<String, PredictionInterval> shipped = PredictionInterval.table();
        assertEquals(PredictionInterval.fit(REPORT.rows()).keySet(), shipped.keySet());
    }

    /**
     * Issue 21's done-when, out of source: 10% or less overall and no source group over 20% (mean absolute error of
     * tokens/GPU/s, each group predicted with the constants refitted without it).
     */
    @Test
    void outOfSourceTheWholeIsWithinTenPercentAndNoGroupOverTwenty() {
        assertTrue(REPORT.outOfSource().tokensMape() <= 0.10, "overall " + REPORT.outOfSource().tokensMape());
        for (LeaveOneSourceOut.Group g : REPORT.groups())
            if (g.outOfSource().rows() > 0)
                assertTrue(g.outOfSource().tokensMape() <= 0.20, g.group() + ": " + g.outOfSource().tokensMape());
    }

    /**
     * Issue 21's done-when: the attention-by-build rows (whose run file names a 2022-23 kernel build, FlashAttention-1
     * or the Triton kernel, or attention without flash, on an A100 or newer: not a framework's default, which is how the
     * InternLM-issue rows run FlashAttention-1), the multi-node MoE rows (experts on more than one node) and the
     * consumer-GPU rows (GeForce cards: nanoGPT/Languini/speedrun tuned, llm.c PR 322 held out) each come
     * from a source the constants are fitted on (a group with tune rows) and from a source they never saw (a group with
     * no tune row), each new family whole on one side.
     */
    @Test
    void attentionBuildsAndMultiNodeMoeHaveATunedAndAHeldOutSource() {
        java.util.Set<String> namedBuild = new java.util.HashSet<>();   // ids whose run file names the kernel's build
        try (var files = java.nio.file.Files.list(java.nio.file.Path.of("knowledge-base/reference-runs"))) {
            for (var f : files.filter(p -> p.toString().endsWith(".json")).toList())
                for (var n : new com.fasterxml.jackson.databind.ObjectMapper().readTree(f.toFile()).path("runs"))
                    if (List.of("fa1", "triton", "unfused", "math").contains(n.path("run").path("training").path("attention_kernel").asText()))
                        namedBuild.add(n.path("id").asText());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Predicate<ReferenceRun> attentionBuild = r -> namedBuild.contains(r.id()) && r.spec().cluster().gpu().smVersion() >= 80;
        Predicate<ReferenceRun> multiNodeMoe = r -> r.spec().run().model().moe() != null && r.spec().cluster().nodes() > 1;
        // consumer GPUs as perf.RunClass's family names them: the catalogue's GPUs without PCIe peer-to-peer (GeForce)
        Predicate<ReferenceRun> consumerGpu = r -> r.spec().run().model().moe() == null && !r.spec().cluster().gpu().pcieP2p();
        for (var kind : Map.of("attention by build", attentionBuild, "multi-node MoE", multiNodeMoe,
                "consumer GPUs", consumerGpu).entrySet()) {
            java.util.Set<String> tuned = new java.util.TreeSet<>(), heldOut = new java.util.TreeSet<>();
            for (ReferenceRun r : RUNS) {
                if (r.isExcluded() || !kind.getValue().test(r)) continue;
                boolean groupTunes = RUNS.stream().anyMatch(o -> o.sourceGroup().equals(r.sourceGroup()) && o.split().equals("tune"));
                (groupTunes ? tuned : heldOut).add(r.sourceGroup());
            }
            assertFalse(tuned.isEmpty(), kind.getKey() + ": a tuned source");
            assertFalse(heldOut.isEmpty(), kind.getKey() + ": a held-out source, tuned " + tuned);
        }
        // the families issue 21 added for these kinds are whole on one side
        for (String g : List.of("FlashAttention (Dao et al., 8xA100)", "Lambda FlashAttention-2 benchmark (A100/H100)",
                "DeepSeek-V3 (H800)", "llm.c pull requests (RTX 4090)"))
            assertEquals(1, RUNS.stream().filter(r -> r.sourceGroup().equals(g)).map(ReferenceRun::split).distinct().count(), g);
    }

    /**
     * The new rows' observed throughput is what their sources print, converted by hand: the FlashAttention-2 paper's
     * 196 TFLOPs/s for GPT3-1.3B at 2k (FlashAttention-2) over its count 6 N + 12 L d s, N = V d + s d + L (12 d^2 + 13 d)
     * + 2 d = 50264 x 2048 + 2048 x 2048 + 24 x (12 x 2048^2 + 13 x 2048) + 4096 = 1,315,737,600, so 9,102,385,152 FLOPs
     * a token and 21,533 tokens/GPU/s; DeepSeek-V3's 14.8T tokens in 2.664M H800 GPU-hours, 1,543 tokens/GPU/s.
     */
    @Test
    void theNewFamiliesThroughputIsTheirSourcesOwn() {
        double n = 50264.0 * 2048 + 2048.0 * 2048 + 24 * (12.0 * 2048 * 2048 + 13 * 2048) + 4096;
        assertEquals(1_315_737_600, n, 0.5);
        double fa2 = 196e12 / (6 * n + 12.0 * 24 * 2048 * 2048);
        assertEquals(21_533, fa2, 1);
        double observed = Calibration.rows(List.of(first(r -> r.id().equals("flashattn2-paper-gpt3-1.3b-s2k-8xa100-fa2"))))
                .get(0).observed();
        assertEquals(fa2, observed, 0.01 * fa2, "the paper's TFLOPS read back through the composer count");
        double deepseek = 14.8e12 / (2.664e6 * 3600);
        assertEquals(deepseek, Calibration.rows(List.of(first(r -> r.id().equals("deepseek-v3-pretrain-2048xh800"))))
                .get(0).observed(), 0.5);
    }
}
