package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.FactBuilder;
import dev.trainadvisor.facts.Lever;
import dev.trainadvisor.facts.RemedyProposal;
import dev.trainadvisor.facts.Saving;
import dev.trainadvisor.perf.Baseline;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static dev.trainadvisor.engine.GivenFacts.derived;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Where a switch applies is declared once (rules/levers.drl), and both the cause that weighs what it saves and the
 * remedy that pulls it read that one declaration: a run with the overlap off gets the lever, its saving priced by the
 * step model, the cause and the remedy; the same run with the overlap on gets none of the three.
 */
class LeversTest {
    /** ZeRO 0 over 16 A100-40GB on one 100G NIC a node, the gradient reduction not overlapped (issue 10, case 3). */
    static final String OFF = """
            name: llama-2-7b-zero0-no-overlap
            cluster: {gpu: A100-SXM4-40GB, nodes: 2, gpus_per_node: 8, intra_node: {link: NVLink3}, inter_node: {link: RoCE-100G, nics_per_node: 1}}
            model: llama-2-7b
            parallel: {dp: 16, zero_stage: 0, overlap_grad_reduce: %s}
            training: {seq_len: 4096, micro_batch_size: 1, micro_batches: 4}
            """;

    static RunSpec read(boolean overlap) {
        try {
            return new SpecReader().read(new com.fasterxml.jackson.databind.ObjectMapper(
                    new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree(OFF.formatted(overlap)), "run.yaml");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static RuleEngine.Result fire(RunSpec s) {
        return RuleEngine.builtIn().run(FactBuilder.facts(Baseline.of(s.cluster(), s.run())));
    }

    @Test
    void theLeverIsPricedAsTheRunWrittenWithTheOverlapOn() {
        RunSpec off = read(false), on = read(true);
        RuleEngine.Result r = fire(off);
        List<Lever> levers = derived(r, Lever.class).stream().filter(l -> l.kind() == Saving.Kind.OVERLAP_GRAD_REDUCE).toList();
        assertEquals(1, levers.size(), derived(r, Lever.class).toString());
        Saving saving = derived(r, Saving.class).stream().filter(s -> s.kind() == Saving.Kind.OVERLAP_GRAD_REDUCE).findFirst().orElseThrow();
        // the saving is the step of the run as written with the overlap off, less that of the run as written with it on:
        // the two files predicted apart, neither through the lever's change
        double written = Baseline.of(off.cluster(), off.run()).prediction().stepTimeS()
                - Baseline.of(on.cluster(), on.run()).prediction().stepTimeS();
        assertTrue(written > 0.1, "the overlap saves " + written + " s");
        assertEquals(written, saving.seconds(), 1e-9);
        // the run does not fit its 40 GB GPUs at ZeRO 0, overlapped or not: the saving says so, as the written file's memory does
        assertEquals(Baseline.of(on.cluster(), on.run()).prediction().memory().headroomGb() >= 0, saving.fits());
        Diagnosis d = r.diagnoses().stream().filter(x -> x.id().equals("unoverlapped-communication")).findFirst().orElseThrow();
        assertEquals(saving.seconds() / Baseline.of(off.cluster(), off.run()).prediction().stepTimeS(), d.impactFraction(), 1e-9);
        RemedyProposal p = r.proposals().stream().filter(x -> x.id().equals("overlap-grad-reduce")).findFirst().orElseThrow();
        assertEquals(levers.get(0).change(), p.change());
    }

    @Test
    void withTheOverlapOnThereIsNoLeverNoSavingNoCauseAndNoRemedy() {
        RuleEngine.Result r = fire(read(true));
        assertTrue(derived(r, Lever.class).stream().noneMatch(l -> l.kind() == Saving.Kind.OVERLAP_GRAD_REDUCE));
        assertTrue(derived(r, Saving.class).stream().noneMatch(s -> s.kind() == Saving.Kind.OVERLAP_GRAD_REDUCE));
        assertFalse(r.diagnoses().stream().anyMatch(x -> x.id().equals("unoverlapped-communication")));
        assertFalse(r.proposals().stream().anyMatch(x -> x.id().equals("overlap-grad-reduce")));
    }

    /**
     * Whether Llama-2-70B at ZeRO 3 on {@code gpus} A100s of {@code gb} GB, which does not fit, fits with its optimizer
     * offloaded, as the lever's price says; and that the parameters' remedy is proposed exactly where it does not.
     */
    static boolean offloadFits(int gpus, int gb) {
        RunSpec s;
        try {
            s = new SpecReader().read(new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
                    .readTree("""
                            name: llama-2-70b-zero3
                            cluster: {gpu: A100-SXM4-%dGB, nodes: 1, gpus_per_node: %d, intra_node: {link: NVLink3}}
                            model: llama-2-70b
                            parallel: {dp: %d, zero_stage: 3}
                            training: {seq_len: 4096, micro_batch_size: 1, micro_batches: 16, recompute: full, framework: deepspeed}
                            """.formatted(gb, gpus, gpus)), "run.yaml");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        assertTrue(Baseline.of(s.cluster(), s.run()).prediction().memory().headroomGb() < 0, gpus + " x " + gb + " GB");
        RuleEngine.Result r = fire(s);
        Saving offload = derived(r, Saving.class).stream().filter(x -> x.kind() == Saving.Kind.OPTIMIZER_OFFLOAD).findFirst().orElseThrow();
        assertEquals(!offload.fits(), r.proposals().stream().anyMatch(p -> p.id().equals("offload-parameters-to-fit")));
        assertTrue(r.proposals().stream().anyMatch(p -> p.id().equals("offload-optimizer-to-fit")));
        return offload.fits();
    }

    /** A run that fits offloads nothing to fit; one that does not fit gets the lever, and its price says whether it fits then. */
    @Test
    void theOptimizerOffloadLeverOnlyWhereTheRunDoesNotFit() {
        RunSpec fits = new SpecReader().read(Path.of("examples/internlm-7b-pcie-1node.yaml"));
        assertTrue(Baseline.of(fits.cluster(), fits.run()).prediction().memory().headroomGb() > 0);
        assertTrue(derived(fire(fits), Lever.class).stream().noneMatch(l -> l.kind() == Saving.Kind.OPTIMIZER_OFFLOAD));
        // Llama-2-70B at ZeRO 3 (69e9 parameters): on 8 A100 80 GB its 16-bit weights take 17 GB a GPU and the
        // optimizer's offload makes room (issue 18: 118 TFLOPS with it); on 4 A100 40 GB they take 34.5 of the 40 GB
        // before a layer is gathered or an activation kept, and the parameters must go too
        assertEquals(List.of(true, false), List.of(offloadFits(8, 80), offloadFits(4, 40)));
    }
}
