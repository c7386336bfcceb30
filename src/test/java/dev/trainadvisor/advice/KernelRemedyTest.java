package dev.trainadvisor.advice;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.perf.StepModel;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** The kernel rules end to end: the diagnosis from the model's numbers, the remedy re-evaluated through the model. */
class KernelRemedyTest {

    static RunSpec run(Map<String, Object> training) {
        Map<String, Object> t = new LinkedHashMap<>(Map.of("seq_len", 16384, "micro_batch_size", 1, "micro_batches", 8));
        t.putAll(training);
        return new SpecReader().read(new ObjectMapper().valueToTree(Map.of(
                "cluster", Map.of("preset", "dgx-a100-80gb"), "model", "llama-2-7b",
                "parallel", Map.of("zero_stage", 3), "training", t)), "run.json");
    }

    static Recommendation recommendation(Advice a, String id) {
        return a.recommendations().stream().filter(r -> r.id().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + id + " in " + a.recommendations()));
    }

    /**
     * Nothing measured, so the facts are the catalogue prediction: the diagnosis costs the step difference between
     * the run and the same run with the remedy, and the recommendation's speedup is their ratio.
     */
    static double assertPriced(RunSpec slow, RunSpec remedied, String diagnosis, String recommendation) {
        Advice a = TrainAdvisor.advise(slow);
        Diagnosis d = a.diagnoses().stream().filter(x -> x.id().equals(diagnosis)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + diagnosis + " in " + a.diagnoses()));
        double slowStep = StepModel.predict(slow.cluster(), slow.run()).stepTimeS();
        double fastStep = StepModel.predict(remedied.cluster(), remedied.run()).stepTimeS();
        assertEquals((slowStep - fastStep) / slowStep, d.impactFraction(), 1e-9);
        assertEquals(slowStep / fastStep, recommendation(a, recommendation).speedup(), 1e-9);
        assertTrue(TrainAdvisor.advise(remedied).diagnoses().stream().noneMatch(x -> x.id().equals(diagnosis)));
        return d.impactFraction();
    }

    @Test
    void tritonAttentionAtLongSequencesIsDiagnosedAndFa2IsPricedByTheModel() {
        // full recompute, so that s 16384 fits in 80 GB (recommendations that do not fit are dropped)
        double impact = assertPriced(run(Map.of("attention_kernel", "triton", "recompute", "full")),
                run(Map.of("recompute", "full")), "slow-attention-kernel", "flash-attention-2");
        assertTrue(impact > 0.05, "at s 16384 attention is a large share: " + impact);
    }

    @Test
    void eagerKernelsAreDiagnosedAndFusingIsPricedByTheModel() {
        // the remedy compiles the model: Inductor's kernels, not the hand-fused ones
        assertPriced(run(Map.of("elementwise_kernels", "eager", "seq_len", 4096, "micro_batch_size", 2)),
                run(Map.of("elementwise_kernels", "compiled", "seq_len", 4096, "micro_batch_size", 2)),
                "eager-elementwise", "fused-elementwise");
    }
}
