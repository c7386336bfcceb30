package dev.trainadvisor.advice;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.trainadvisor.facts.Severity;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.perf.Offloading;
import dev.trainadvisor.perf.Phase;
import dev.trainadvisor.perf.StepModel;
import dev.trainadvisor.perf.StepPrediction;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Offload (training.offload, issue 18): what leaves the GPU, what the host's optimizer and the host link then cost,
 * the cause and its remedy, and the combinations a run file may not ask for. The host's rates are the ones measured on
 * the H200 machine (knowledge-base/measurements/h200-host-offload.json); nothing is fitted to the runs judged here.
 */
class OffloadTest {

    static final Path DIR = Path.of("src/test/resources/runs/offload");

    /** The FSDP2 CPUOffloadPolicy run's measured step, and the same run's without offload (issue 18). */
    static final double MEASURED_STEP_S = 3.60, WITHOUT_OFFLOAD_S = 0.578;

    static RunSpec read(String file) { return new SpecReader().read(DIR.resolve(file)); }

    @Test
    void fsdpCpuOffloadIsPredictedWithinTwentyPercentAndHeadlinedByTheHostOptimizer() {
        RunSpec s = read("fsdp2-cpu-offload-1xh200.yaml");
        StepPrediction p = StepModel.predict(s.cluster(), s.run());
        assertEquals(MEASURED_STEP_S, p.stepTimeS(), 0.20 * MEASURED_STEP_S, "step " + p.stepTimeS());
        // the 1.3B GPT by hand: 24 x (12 h^2 + 13 h) + V h + 2 h, h = 2048, V = 50257
        double psi = 24 * (12.0 * 2048 * 2048 + 13 * 2048) + 50257.0 * 2048 + 2 * 2048;
        // the host's AdamW over all of them at the single-tensor rate measured with 16 threads
        assertEquals(psi / 0.7026e9, phase(p, Phase.HOST_OPTIMIZER), 0.01 * psi / 0.7026e9);
        // the fp32 shard copied in before the forward's and the backward's gather of 4 micro-batches, at 55.2 GB/s
        assertEquals(8 * 4 * psi / 55.2e9, exposed(p, Phase.OFFLOAD_COPIES), 0.01 * 8 * 4 * psi / 55.2e9);
        // which is what the forward-backward measured beyond the run without offload (1.33 s against 0.557)
        assertEquals(1.33, p.fwdBwdSeconds(), 0.05 * 1.33);
        assertEquals(0, p.memory().optimizerGb(), 1e-12, "Adam's states and the master weights are on the host");
        assertTrue(p.memory().hostGb() > 12 * psi / 1e9, "the host holds the fp32 parameters, their states and gradients");

        Advice a = TrainAdvisor.advise(s);
        assertEquals("offload-bound", a.top().id(), a.diagnoses().toString());
        assertEquals(Severity.HIGH, a.top().severity());
        assertTrue(a.top().explanation().contains("Most of it is the host's optimizer step"), a.top().explanation());
        Recommendation drop = a.recommendations().get(0);
        assertEquals("drop-offload", drop.id());
        double measured = MEASURED_STEP_S / WITHOUT_OFFLOAD_S;
        assertEquals(measured, drop.speedup(), 0.25 * measured, "x" + drop.speedup() + " against the measured x" + measured);
    }

    private static double phase(StepPrediction p, String name) {
        return p.phases().stream().filter(x -> x.name().equals(name)).mapToDouble(Phase::seconds).sum();
    }

    private static double exposed(StepPrediction p, String name) {
        return p.phases().stream().filter(x -> x.name().equals(name)).mapToDouble(Phase::exposedSeconds).sum();
    }

    @Test
    void fourteenBillionFitsFourConsumerGpusWithItsOptimizerOnTheHost() {
        RunSpec s = read("qwen2.5-14b-4x4090-zero3-offload.yaml");
        StepPrediction p = StepModel.predict(s.cluster(), s.run());
        // 14.8e9 parameters: their bf16 shard over 4 is 7.4 GB; without offload their 12 bytes of Adam alone would be
        // 44 GB a GPU
        assertEquals(0, p.memory().optimizerGb(), 1e-12);
        assertTrue(p.memory().totalGb() <= 24, p.memory().toString());
        Advice a = TrainAdvisor.advise(s);
        assertTrue(a.diagnoses().stream().noneMatch(d -> d.id().equals("memory-overflow")), a.diagnoses().toString());
        // the same run without offload does not fit
        RunSpec without = s.with(dev.trainadvisor.spec.RunChange.clearing(dev.trainadvisor.spec.RunField.OFFLOAD));
        assertTrue(StepModel.predict(without.cluster(), without.run()).memory().totalGb() > 24);
    }

    @Test
    void aSeventyBillionModelThatFitsOnlyWithOffloadIsOfferedItBesideMoreGpus() {
        RunSpec s = read("llama-2-70b-8xa100-80gb-zero3.yaml");
        // 69e9 parameters x 16 bytes of model states over 8 GPUs: 138 GB a GPU, on 80 GB
        Advice a = TrainAdvisor.advise(s);
        assertEquals("memory-overflow", a.top().id());
        Recommendation offload = a.recommendations().stream().filter(r -> r.id().equals("offload-optimizer-to-fit"))
                .findFirst().orElseThrow(() -> new AssertionError(a.recommendations().toString()));
        Recommendation more = a.recommendations().stream().filter(r -> r.id().equals("scale-out-to-fit"))
                .findFirst().orElseThrow(() -> new AssertionError(a.recommendations().toString()));
        // both priced by the model, both fit
        assertTrue(offload.memoryHeadroomGb() >= 0 && more.memoryHeadroomGb() >= 0);
        assertTrue(offload.predictedTflopsPerGpu() > 0 && more.predictedTflopsPerGpu() > 0);
        assertEquals(java.util.Map.of("training.offload", java.util.Map.of("optimizer", "cpu", "master_weights", "cpu",
                "gradients", "cpu")), new ObjectMapper().convertValue(offload.change().asRunFile(), java.util.Map.class));
        // the optimizer alone makes room: the parameters stay on the GPU, the fewest states offloaded
        assertTrue(a.recommendations().stream().noneMatch(r -> r.id().equals("offload-parameters-to-fit")));
    }

    @Test
    void theHostsRateFallsWithItsCoresAsMeasured() {
        assertEquals(0.70e9, Offloading.hostParamsPerS(16), 1);
        assertEquals(0.72 * 0.70e9, Offloading.hostParamsPerS(8), 1);
        assertEquals(0.43 * 0.70e9, Offloading.hostParamsPerS(4), 1);
        assertEquals((0.43 + 0.72) / 2 * 0.70e9, Offloading.hostParamsPerS(6), 1);
        // PCIe Gen5 x16 measured at 55.2 GB/s; Gen4 half of it
        assertEquals(55.2, Offloading.hostLinkGbps(5), 1e-12);
        assertEquals(27.6, Offloading.hostLinkGbps(4), 1e-12);
    }

    static ObjectNode run(int zero, String offload) throws IOException {
        return (ObjectNode) new ObjectMapper(new YAMLFactory()).readTree("""
                cluster: {preset: dgx-a100-80gb, nodes: 1}
                model: llama-2-7b
                parallel: {zero_stage: %d}
                training: {seq_len: 4096, micro_batch_size: 1, offload: %s}
                """.formatted(zero, offload));
    }

    @Test
    void combinationsNoFrameworkRunsAreRefusedNamingTheField() throws IOException {
        SpecReader r = new SpecReader();
        String[][] bad = {
                {"1", "{parameters: cpu, optimizer: cpu}", "training.offload.parameters", "ZeRO 3"},
                {"3", "{gradients: cpu}", "training.offload.optimizer", "where the optimizer runs"},
                {"3", "{master_weights: cpu}", "training.offload.optimizer", "where the optimizer runs"},
                {"3", "{optimizer: nvme}", "training.offload.nvme_path", "path"},
                {"3", "{optimizer: cpu, gradients: nvme, nvme_path: /nvme}", "training.offload.gradients", "NVMe tier"},
                {"3", "{ratio: 0.5}", "training.offload.ratio", "optimizer"},
                {"3", "{optimizer: cpu, ratio: 1.5}", "training.offload.ratio", "at most 1"},
                {"3", "{optimizer: cpu, nvme_path: /nvme}", "training.offload.nvme_path", "no nvme_path"},
                {"3", "{optimizer: gpu}", "training.offload.optimizer", "[none, cpu, nvme]"},
                {"3", "{optimiser: cpu}", "training.offload.optimiser", "nearest: optimizer"}};
        for (String[] b : bad) {
            SpecException e = assertThrows(SpecException.class, () -> r.read(run(Integer.parseInt(b[0]), b[1]), "run.yaml"), b[1]);
            assertEquals(b[2], e.field(), b[1] + ": " + e.getMessage());
            assertTrue(e.getMessage().contains(b[3]), b[1] + ": " + e.getMessage());
        }
        // valid ones read
        assertEquals(0.5, r.read(run(2, "{optimizer: cpu, ratio: 0.5}"), "ok.yaml").run().training().offload().ratio());
        assertTrue(r.read(run(3, "{optimizer: nvme, parameters: nvme, nvme_path: /local_nvme}"), "ok.yaml").run().training()
                .offload().any());
    }
}
