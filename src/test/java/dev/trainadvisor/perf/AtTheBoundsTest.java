package dev.trainadvisor.perf;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.advice.TrainAdvisor;
import dev.trainadvisor.spec.BoundsTest;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Runs as large as the run file allows (spec.Bounds) are predicted, fitted and advised at once, in finite numbers. */
class AtTheBoundsTest {

    static RunSpec read(ObjectNode tree) { return new SpecReader().read(tree, "largest.json"); }

    /** The largest MoE run of BoundsTest, and the same without moe (a dense model of 2^22-wide MLPs). */
    static List<RunSpec> largest() {
        ObjectNode moe = BoundsTest.largest();
        ObjectNode dense = BoundsTest.largest();
        ((ObjectNode) dense.get("model")).remove("moe");
        ((ObjectNode) dense.get("parallel")).remove(List.of("ep", "etp"));
        return List.of(read(moe), read(dense));
    }

    static void finite(double v, String what) {
        assertTrue(Double.isFinite(v) && v > 0, what + " = " + v);
    }

    @Test
    void theLargestRunsArePredictedInFiniteNumbers() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            for (RunSpec s : largest()) {
                StepPrediction p = StepModel.predict(s.cluster(), s.run());
                finite(p.stepTimeS(), "step time");
                finite(p.tokensPerGpuPerS(), "tokens/GPU/s");
                finite(p.tflopsPerGpu(), "TFLOPS");
                finite(p.memory().totalGb(), "memory");
                for (MemoryEstimate.Stage st : p.memory().stages()) finite(st.totalGb(), "stage " + st.stage() + " memory");
                assertEquals(1024, p.memory().stages().size(), "one entry per pipeline stage");
            }
        });
    }

    @Test
    void theLargestRunsAreFittedAndTheDenseOneAdvisedAtOnce() {
        // the hang was a per-layer loop in the fit: the fit runs on a measured step time
        List<RunSpec> runs = new java.util.ArrayList<>();
        for (RunSpec s : largest()) {
            ObjectNode t = BoundsTest.largest();
            if (!s.run().model().isMoe()) {
                ((ObjectNode) t.get("model")).remove("moe");
                ((ObjectNode) t.get("parallel")).remove(List.of("ep", "etp"));
            }
            t.putObject("metrics").put("step_time_s", 1e7);
            runs.add(read(t));
        }
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            for (RunSpec s : runs) assertNotNull(Fit.fit(s.cluster(), s.run()));
            // the whole advice; the layout search is tested below
            RunSpec dense = runs.get(1);
            Advice a = new TrainAdvisor(dev.trainadvisor.engine.RuleEngine.builtIn()).withoutLayoutSearch()
                    .adviseRun(dense.cluster(), dense.run());
            assertNotNull(a.top());
        });
    }

    @Test
    void aMillionDataParallelRanksAreFittedAtOnce() throws Exception {
        // 131,072 nodes of 8 GPUs, InternLM-7B data-parallel over all 2^20: placing each group was a loop over its ranks
        ObjectNode t = (ObjectNode) SpecReader.parse(java.nio.file.Path.of("examples/internlm-7b-pcie-2nodes.yaml"));
        ((ObjectNode) t.get("cluster")).put("nodes", 131_072);
        ((ObjectNode) t.get("parallel")).remove(List.of("dp", "zero_group_size"));
        RunSpec s = read(t);
        assertEquals(1 << 20, s.run().parallel().dp());
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            FitResult f = Fit.fit(s.cluster(), s.run());
            assertNotNull(f);
        });
    }

    @Test
    void logitsOfTheLargestMicroBatchAreCountedInDouble() {
        // 2^16 sequences of 2^24 tokens is 2^40 tokens, which an int multiply wraps to 0. On the last of 2 stages with
        // tp = cp = 1 the logits take tokens x vocab x (2 + 4) bytes (16-bit logits and the fp32 copy of the loss)
        ObjectNode t = BoundsTest.largest();
        ((ObjectNode) t.get("cluster")).put("nodes", 1).put("gpus_per_node", 2).remove("nvlink_domain");
        ((ObjectNode) t.get("model")).remove("moe");
        ((ObjectNode) t.get("model")).put("layers", 2).put("hidden", 4096).put("heads", 32).put("kv_heads", 32)
                .put("ffn_hidden", 11008).remove("head_dim");
        t.putObject("parallel").put("pp", 2);
        RunSpec s = read(t);
        MemoryEstimate m = MemoryModel.of(s.cluster(), s.run().model(), s.run().parallel(), s.run().training());
        double tokens = Math.pow(2, 16) * Math.pow(2, 24), vocab = Math.pow(2, 24);
        assertEquals(tokens * vocab * 6 / 1e9, m.stages().get(1).logitsGb(), 1e-9 * tokens * vocab * 6 / 1e9);
        assertEquals(0, m.stages().get(0).logitsGb(), "the first stage holds no output head");
    }

    /**
     * The MoE run at the bounds (2^20 experts) makes 34 x the dense run's 380,064 layouts: past the advice's
     * ADVICE_MAX_LAYOUTS (1,000,000) its own search gives up at once and the advice comes without a best-layout, in
     * seconds instead of minutes; `search` still enumerates them all when asked.
     */
    @Test
    void theAdvicesSearchStopsPastItsBudget() {
        RunSpec moe = largest().get(0);
        assertTrue(moe.run().model().isMoe());
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            dev.trainadvisor.search.LayoutSearch.Result r = dev.trainadvisor.search.LayoutSearch.search(moe,
                    dev.trainadvisor.search.LayoutSearch.Options.forAdvice());
            assertEquals(List.of(), r.best());
            assertEquals(0, r.visited());
        });
        // the dense run at the bounds is within the budget: searched
        RunSpec dense = largest().get(1);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertTrue(dev.trainadvisor.search.LayoutSearch.search(dense,
                dev.trainadvisor.search.LayoutSearch.Options.forAdvice()).visited() > 0));
    }
}
