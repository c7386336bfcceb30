package dev.trainadvisor.advice;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.perf.MeasurementCheck;
import dev.trainadvisor.spec.ReferenceRun;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import dev.trainadvisor.spec.SpecWriter;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Issue 8, items 3 and 5: every run whose throughput differs from its prediction by 10% or more gets a verdict (a cause
 * of medium or higher severity, or unexplained-slowdown / faster-than-model); measurements the hardware cannot produce
 * are a diagnosis of their own and are not fitted; every recommendation is priced from the fitted step and predicts more
 * than the run already does.
 */
class VerdictTest {

    /** The examples, the reference runs, and each of them with its throughput scaled from 0.5x to 1.5x. */
    static List<RunSpec> varied() throws Exception {
        List<RunSpec> base = new ArrayList<>();
        try (Stream<Path> f = Files.list(Path.of("examples"))) {
            for (Path p : f.filter(dev.trainadvisor.docs.ExampleFiles::isRunFile).sorted().toList()) base.add(new SpecReader().read(p));
        }
        for (ReferenceRun r : ReferenceRun.builtIn()) base.add(r.spec());
        Random rnd = new Random(11);
        List<RunSpec> out = new ArrayList<>(base);
        SpecReader reader = new SpecReader();
        for (RunSpec s : base) {
            double tokens = dev.trainadvisor.perf.ObservedThroughput.of(s.cluster(), s.run()).tokensPerGpuPerS();
            if (!(tokens > 0)) continue;
            double scale = 0.5 + rnd.nextDouble();
            ObjectNode t = SpecWriter.write(s.cluster(), s.run());
            t.putObject("metrics").put("tokens_per_gpu_per_s", tokens * scale);
            out.add(reader.read(t, s.name() + " x" + scale));
        }
        return out;
    }

    @Test
    void everyRunTenPercentOffItsPredictionGetsAVerdict() throws Exception {
        List<String> silent = new ArrayList<>();
        int judged = 0;
        for (RunSpec s : varied()) {
            Advice a = TrainAdvisor.advise(s);
            if (a.gap() == null || !a.baseline().implausible().isEmpty()) continue;
            double ratio = a.gap().observedOverPredicted();
            if (Math.abs(ratio - 1) < 0.10) continue;
            judged++;
            boolean verdict = a.diagnoses().stream().anyMatch(d -> d.severity().atLeastMedium()
                    || d.id().equals("unexplained-slowdown") || d.id().equals("faster-than-model"));
            if (!verdict) silent.add(s.name() + " at " + ratio + ": " + a.diagnoses().stream().map(Diagnosis::id).toList());
            if (ratio > 1.10) assertTrue(a.diagnoses().stream().anyMatch(d -> d.id().equals("faster-than-model")), s.name());
        }
        assertTrue(judged > 150, "runs 10% or more off: " + judged);
        assertTrue(silent.isEmpty(), silent.size() + " runs without a verdict:\n" + String.join("\n", silent));
    }

    @Test
    void recommendationsArePricedFromTheFittedStepAndBeatWhatTheRunDoes() throws Exception {
        int priced = 0;
        for (RunSpec s : varied()) {
            Advice a = TrainAdvisor.advise(s);
            boolean overflows = a.fitted().memory().headroomGb() < 0;
            for (Recommendation r : a.recommendations()) {
                priced++;
                assertEquals(a.fitted().stepTimeS(), r.baselineStepS(), 1e-12, s.name() + " " + r.id());
                assertEquals(r.predictedTokensPerGpuPerS() / a.fitted().tokensPerGpuPerS(), r.speedup(), 1e-9, r.id());
                assertTrue(r.speedupLow() <= r.speedup() + 1e-12 && r.speedup() <= r.speedupHigh() + 1e-12, r.toString());
                if (!overflows) {
                    assertTrue(r.speedup() >= 1.01, s.name() + " " + r.id() + " x" + r.speedup());
                    if (a.observed() != null && a.observed().tokensPerGpuPerS() > 0)
                        assertTrue(r.predictedTokensPerGpuPerS() > a.observed().tokensPerGpuPerS(),
                                s.name() + " " + r.id() + " predicts less than the run does");
                }
            }
            // same-math remedies never rank below those that change the optimisation
            boolean changed = false;
            for (Recommendation r : a.recommendations()) {
                assertFalse(changed && r.sameMath(), s.name() + ": " + a.recommendations().stream().map(Recommendation::id).toList());
                changed |= !r.sameMath();
            }
        }
        assertTrue(priced > 300, "recommendations priced: " + priced);
    }

    @Test
    void theEmptyChangeReproducesTheFittedStep() throws Exception {
        for (RunSpec s : varied()) {
            var b = dev.trainadvisor.perf.Baseline.of(s.cluster(), s.run());
            var q = b.price(dev.trainadvisor.spec.RunChange.NONE);
            assertNotNull(q, s.name());
            assertEquals(b.prediction().stepTimeS(), q.step().stepTimeS(), 1e-9 * b.prediction().stepTimeS(), s.name());
        }
    }

    static RunSpec pcieWith(Map<String, Object> metrics) {
        RunSpec s = new SpecReader().read(Path.of("examples/internlm-7b-pcie-1node.yaml"));
        ObjectNode t = SpecWriter.write(s.cluster(), s.run());
        ObjectNode m = t.putObject("metrics");
        metrics.forEach((k, v) -> m.set(k, SpecReader.JSON_MAPPER.valueToTree(v)));
        return new SpecReader().read(t, "implausible");
    }

    @Test
    void tenMillionTokensPerGpuPerSecondIsImplausibleAndNotFitted() {
        // 1e7 tokens/s x 44.6 GFLOPs per token = 446 PFLOP/s on a 312 TFLOPS A100: an MFU of 143,000%
        Advice a = TrainAdvisor.advise(pcieWith(Map.of("tokens_per_gpu_per_s", 1e7)));
        assertNull(a.fit(), "the fit is not used");
        assertEquals("implausible-measurement", a.top().id());
        assertTrue(a.top().fault());
        assertTrue(a.baseline().implausible().stream().anyMatch(c -> c.kind() == MeasurementCheck.Kind.MFU_ABOVE_PEAK
                && c.ratio() > 1000), a.baseline().implausible().toString());
        assertTrue(a.top().explanation().contains("MFU of 142989%"), a.top().explanation());
        // the link keeps its catalogue bandwidth: no 11,900 GB/s PCIe link
        assertEquals(10.0, a.fitted().collectives().get(0).link().busbwGbps(), 1e-9);
    }

    @Test
    void printedTflopsTwiceWhatTokensGiveIsImplausible() {
        // InternEvo counts 44.41 GFLOPs per token: 2231.46 tokens/s give 99.1 TFLOPS, not 198.2
        Advice a = TrainAdvisor.advise(pcieWith(Map.of("tokens_per_gpu_per_s", 2231.46, "tflops_per_gpu", 198.2,
                "tflops_convention", "internevo")));
        assertEquals("implausible-measurement", a.top().id());
        MeasurementCheck c = a.baseline().implausible().get(0);
        assertEquals(MeasurementCheck.Kind.PRINTED_TFLOPS_MISMATCH, c.kind());
        assertEquals(2.0, c.ratio(), 0.01);
        // the same log with its own TFLOPS is plausible
        assertTrue(TrainAdvisor.advise(pcieWith(Map.of("tokens_per_gpu_per_s", 2231.46, "tflops_per_gpu", 99.1,
                "tflops_convention", "internevo"))).baseline().implausible().isEmpty());
    }

    @Test
    void aForwardBackwardLongerThanTheStepIsImplausible() {
        Advice a = TrainAdvisor.advise(pcieWith(Map.of("step_time_s", 7.34, "fwd_bwd_time_s", 9.0)));
        assertEquals("implausible-measurement", a.top().id());
        assertEquals(MeasurementCheck.Kind.TIMER_EXCEEDS_STEP, a.baseline().implausible().get(0).kind());
        assertNull(a.fit());
    }
}
