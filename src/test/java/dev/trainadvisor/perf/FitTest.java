package dev.trainadvisor.perf;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import dev.trainadvisor.spec.SpecWriter;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fit weighs hypotheses (nothing far off, one quantity far off, several) against a run's times. Here the times are
 * made by the step model itself from a known truth, so what the fit must recover is known: the hypothesis, and the
 * degraded quantity's value. The example run is the InternLM PCIe node (catalogue link 10 GB/s: eight PCIe GPUs over
 * two sockets, NCCL's model of the socket link).
 */
class FitTest {
    private static final SpecReader READER = new SpecReader();

    private static Scenario example(String file) {
        RunSpec s = READER.read(Path.of("examples", file));
        return Scenario.catalogue(s.cluster(), s.run());
    }

    /** The run of {@code at} with the times {@code truth} produces: Megatron's step, forward, backward, optimizer. */
    private static Scenario measured(Scenario at, Scenario truth, boolean phases) {
        StepPrediction p = truth.predict();
        ObjectNode t = SpecWriter.write(at.cluster(), at.run());
        ObjectNode m = t.putObject("metrics");
        m.put("step_time_s", p.stepTimeS());
        if (phases) {
            m.put("forward_time_s", p.forwardSeconds());
            m.put("backward_time_s", p.backwardSeconds());
            m.put("optimizer_time_s", p.afterBackwardSeconds());
        }
        RunSpec s = READER.read(t, "synthetic");
        return Scenario.catalogue(s.cluster(), s.run());
    }

    private static double posteriorSum(FitResult r) {
        return r.hypotheses().stream().mapToDouble(HypothesisFit::posterior).sum();
    }

    @Test
    void theCatalogueLinkOfTheExampleIsTheSocketLink() {
        Scenario s = example("internlm-7b-pcie-1node.yaml");
        // knowledge-base/transports.json: shared memory across sockets is bound by the CPU link, 10 GB/s for the
        // Skylake-Ice Lake hosts of PCIe Gen4 GPUs in NCCL's topology model
        assertEquals(10.0, s.value(FitParam.INTRA_NODE_BUSBW), 1e-9);
    }

    /**
     * The link at a third of the catalogue, compute and overlap as the catalogue says: the fit chooses the link
     * hypothesis, recovers 3.33 GB/s within 5%, and the times are met to 1%.
     */
    @Test
    void recoversALinkFault() {
        Scenario s = example("internlm-7b-pcie-1node.yaml");
        Scenario truth = s.with(FitParam.INTRA_NODE_BUSBW, 10.0 / 3);
        FitResult r = Fit.fit(measured(s, truth, true));
        assertEquals(FitHypothesis.INTRA_NODE_BUSBW, r.chosen().hypothesis(), r.hypotheses().toString());
        assertEquals(10.0 / 3, r.chosen().fitted(FitParam.INTRA_NODE_BUSBW), 0.05 * 10 / 3);
        assertTrue(r.chosen().posterior() > 0.5, "probability " + r.chosen().posterior());
        for (FitObservation o : r.observations()) assertTrue(Math.abs(o.residual()) < 0.01, o.toString());
        assertEquals(1.0, posteriorSum(r), 1e-9);
        assertTrue(r.chosen().departs());
    }

    /** Compute at 0.7 of the catalogue (two ordinary sigmas of 9.7% below it): compute is chosen and recovered. */
    @Test
    void recoversAComputeFault() {
        Scenario s = example("internlm-7b-nvlink-1node.yaml");
        Scenario truth = s.with(FitParam.COMPUTE_SCALE, 0.7);
        FitResult r = Fit.fit(measured(s, truth, true));
        assertEquals(FitHypothesis.COMPUTE_SCALE, r.chosen().hypothesis(), r.hypotheses().toString());
        assertEquals(0.7, r.chosen().fitted(FitParam.COMPUTE_SCALE), 0.02);
    }

    /**
     * A healthy run, measured exactly as the catalogue predicts: nothing is far off, NOMINAL is chosen and leaves
     * every quantity at its prior; no fault hypothesis is an alternative (none moves its quantity on the slow side).
     */
    @Test
    void aHealthyRunIsNominal() {
        Scenario s = example("internlm-7b-nvlink-1node.yaml");
        FitResult r = Fit.fit(measured(s, s, true));
        assertEquals(FitHypothesis.NOMINAL, r.chosen().hypothesis(), r.hypotheses().toString());
        assertFalse(r.nominalRuledOut());
        assertTrue(r.alternatives().stream().noneMatch(HypothesisFit::departs), r.alternatives().toString());
        for (FitParameter p : r.parameters())
            assertEquals(0, p.shiftInNominalSigmas(), 0.1, p.toString());
    }

    /**
     * A run 20% slower than the catalogue in every phase, as compute at 0.8 would make it, measured only by its step
     * time: NOMINAL explains 20% as two ordinary sigmas of compute, but a run slower than the model's error (10%) is
     * not called healthy: the likeliest departing fault is chosen.
     */
    @Test
    void aRunSlowerThanTheModelsErrorIsNotNominal() {
        Scenario s = example("internlm-7b-nvlink-1node.yaml");
        Scenario truth = s.with(FitParam.COMPUTE_SCALE, 0.8);
        FitResult r = Fit.fit(measured(s, truth, false));
        assertTrue(s.predict().stepTimeS() / truth.predict().stepTimeS() < 1 - Fit.MODEL_ERROR);
        assertTrue(r.chosen().hypothesis() != FitHypothesis.NOMINAL, r.hypotheses().toString());
        assertTrue(r.chosen().departs());
    }

    /**
     * Compute at 0.75 and the link at a fifth together: SEVERAL, started from where the single faults ended, fits
     * both, and meets the times to 1%, where any one fault alone misses them.
     */
    @Test
    void severalFaultsAreFittedTogether() {
        Scenario s = example("internlm-7b-pcie-1node.yaml");
        Scenario truth = s.with(FitParam.COMPUTE_SCALE, 0.75).with(FitParam.INTRA_NODE_BUSBW, 2.0);
        FitResult r = Fit.fit(measured(s, truth, true));
        HypothesisFit several = r.hypotheses().stream().filter(h -> h.hypothesis() == FitHypothesis.SEVERAL)
                .findFirst().orElseThrow();
        assertEquals(0.75, several.fitted(FitParam.COMPUTE_SCALE), 0.75 * 0.03, several.toString());
        assertEquals(2.0, several.fitted(FitParam.INTRA_NODE_BUSBW), 2.0 * 0.05, several.toString());
        assertTrue(several.dataCost() < 1, "each time within about one 2% sigma: " + several.dataCost());
        assertEquals(FitHypothesis.SEVERAL, r.chosen().hypothesis(), r.hypotheses().toString());
    }

    /**
     * A measured link bandwidth is not a quantity that can be far off: its prior is the measurement's 10%, and no
     * hypothesis frees it.
     */
    @Test
    void aMeasuredLinkHasNoFaultHypothesis() {
        Scenario s = example("internlm-7b-pcie-1node.yaml");
        ObjectNode t = SpecWriter.write(s.cluster(), s.run());
        ((ObjectNode) t.get("cluster").get("intra_node")).put("busbw_gbps", 10.0);
        RunSpec spec = READER.read(t, "measured-link");
        Scenario m = Scenario.catalogue(spec.cluster(), spec.run());
        FitResult r = Fit.fit(measured(m, m.with(FitParam.COMPUTE_SCALE, 0.9), true));
        List<FitHypothesis> weighed = r.hypotheses().stream().map(HypothesisFit::hypothesis).toList();
        assertFalse(weighed.contains(FitHypothesis.INTRA_NODE_BUSBW), weighed.toString());
        FitParameter link = r.parameter(FitParam.INTRA_NODE_BUSBW).orElseThrow();
        assertEquals(Fit.MEASURED_LINK_SIGMA, link.priorSigma(), 0);
        assertEquals("measured intra_node.busbw_gbps", link.priorSource());
    }

    /** Nothing measured: nothing is fitted, and the fitted step is the catalogue's. */
    @Test
    void withoutTimesTheCatalogueStands() {
        Scenario s = example("internlm-7b-pcie-2nodes.yaml");
        RunSpec bare = READER.read(SpecWriter.write(s.cluster(), s.run()), "bare");
        FitResult r = Fit.fit(bare.cluster(), bare.run());
        assertFalse(r.fitted());
        assertEquals(r.expected(), r.prediction());
        for (FitParameter p : r.parameters()) assertEquals(p.expected(), p.fitted(), 0, p.name());
    }

    /** The same times give bit-identical fits. */
    @Test
    void deterministic() {
        Scenario s = example("internlm-7b-pcie-2nodes.yaml");
        FitResult a = Fit.fit(s), b = Fit.fit(s);
        assertEquals(a.hypotheses().size(), b.hypotheses().size());
        for (int i = 0; i < a.hypotheses().size(); i++) {
            HypothesisFit x = a.hypotheses().get(i), y = b.hypotheses().get(i);
            assertEquals(x.hypothesis(), y.hypothesis());
            assertEquals(Double.doubleToRawLongBits(x.logEvidence()), Double.doubleToRawLongBits(y.logEvidence()));
            assertEquals(x.parameters(), y.parameters());
        }
    }
}
