package dev.trainadvisor.engine;

import dev.trainadvisor.facts.BandwidthSource;
import dev.trainadvisor.facts.Fault;
import dev.trainadvisor.perf.FitHypothesis;
import dev.trainadvisor.perf.FitParam;
import dev.trainadvisor.perf.LinkScope;
import org.junit.jupiter.api.Test;
import org.kie.api.event.rule.AfterMatchFiredEvent;
import org.kie.api.event.rule.DefaultAgendaEventListener;
import org.kie.api.runtime.KieSession;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static dev.trainadvisor.engine.GivenFacts.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * rules/faults.drl on given facts: a Fault is derived from the fit's posterior (FittedParameterFact.probabilityBelow
 * over its mixture, against Materiality.faultRatio and faultPosterior 0.5), from the fit's chosen hypothesis, or from
 * the run's own measurement of a link (below linkFaultRatio 0.7 of the catalogue).
 */
class FaultRulesTest {
    /** The intra-node link's expected bandwidth in these tests, GB/s; a fault is below 0.7 x 10 = 7. */
    static final double EXPECTED = 10;

    /**
     * A fitted intra-node link at 4 GB/s, its posterior a mixture: {@code farBelow} of the weight around 4 GB/s (all of
     * it below 7) and {@code atThreshold} centred on 7 GB/s (half of it below).
     */
    static GivenFacts fittedLink(double farBelow, double atThreshold) {
        return GivenFacts.of(PCIE).fittedParameter(FitParam.INTRA_NODE_BUSBW, EXPECTED, 4, 1.0,
                component(FitParam.INTRA_NODE_BUSBW, farBelow, 4, 0.05),
                component(FitParam.INTRA_NODE_BUSBW, atThreshold, 0.7 * EXPECTED, 0.2));
    }

    static List<Fault> faults(RuleEngine.Result r) { return derived(r, Fault.class); }

    @Test
    void faultFromFitWhenTheMixtureIsLikelyBelowTheFaultRatio() {
        // P(below 7 GB/s) = 0.3 x Phi((ln 7 - ln 4) / 0.05 = 11.2) + 0.6 x Phi(0) = 0.3 + 0.3 = 0.6 >= faultPosterior 0.5
        List<Fault> fs = faults(fittedLink(0.3, 0.6).fire());
        assertEquals(1, fs.size(), fs.toString());
        Fault f = fs.get(0);
        assertEquals(FitParam.INTRA_NODE_BUSBW, f.param());
        assertEquals(Fault.Source.FIT_PROBABILITY, f.source());
        assertEquals(4, f.fitted());
        assertEquals(EXPECTED, f.expected());
        assertEquals(0.6, f.probability(), 1e-6); // Phi's approximation is good to 7.5e-8
        assertFalse(f.measured());
    }

    @Test
    void faultFromFitSilentWhenTheMixtureIsLessLikelyThanFaultPosterior() {
        // 0.3 + 0.3 x 0.5 = 0.45 < 0.5, and no hypothesis chosen
        assertEquals(List.of(), faults(fittedLink(0.3, 0.3).fire()));
    }

    @Test
    void faultChosenByFitWhenTheBestExplanationPutsTheLinkBelowTheRatio() {
        // probability 0.45 < 0.5, but the fit's chosen hypothesis frees the link and fits it at 4 < 0.7 x 10
        List<Fault> fs = faults(fittedLink(0.3, 0.3).hypothesis(FitHypothesis.INTRA_NODE_BUSBW, 0.45, true, false, 4, EXPECTED)
                .fire());
        assertEquals(List.of(new Fault(FitParam.INTRA_NODE_BUSBW, 4, EXPECTED, 0.45, Fault.Source.FIT_CHOSEN)), fs);
    }

    @Test
    void faultChosenByFitSilentWhenTheFitNamesNoFaultOrAlreadyFoundIt() {
        // chosen, but fitted at 8 >= 0.7 x 10
        RuleEngine.Result near = GivenFacts.of(PCIE).fittedParameter(FitParam.INTRA_NODE_BUSBW, EXPECTED, 8, 0.2,
                        component(FitParam.INTRA_NODE_BUSBW, 0.45, 8, 0.1))
                .hypothesis(FitHypothesis.INTRA_NODE_BUSBW, 0.45, true, false, 8, EXPECTED).fire();
        assertEquals(List.of(), faults(near));
        // the chosen hypothesis is NOMINAL: it frees nothing
        RuleEngine.Result nominal = fittedLink(0.3, 0.3).hypothesis(FitHypothesis.NOMINAL, 0.55, true, false, Double.NaN,
                Double.NaN).fire();
        assertEquals(List.of(), faults(nominal));
        // the probability found it (0.6): the chosen hypothesis adds no second fault
        List<Fault> fs = faults(fittedLink(0.3, 0.6).hypothesis(FitHypothesis.INTRA_NODE_BUSBW, 0.6, true, false, 4, EXPECTED)
                .fire());
        assertEquals(1, fs.size(), fs.toString());
        assertEquals(Fault.Source.FIT_PROBABILITY, fs.get(0).source());
    }

    @Test
    void intraNodeLinkMeasuredFarBelowItsRating() {
        // the example's PCIe4 link on its default host (8 GPUs under 2 sockets, shared memory across the socket link):
        // 10 GB/s expected (knowledge-base/transports.json); measured 4: 0.4 < linkFaultRatio 0.7
        GivenRun run = measuredIntra(run(PCIE), 4);
        assertEquals(10, run.link(LinkScope.INTRA_NODE).catalogueGbps());
        assertEquals(List.of(new Fault(FitParam.INTRA_NODE_BUSBW, 4, 10, 1.0, Fault.Source.MEASURED)),
                faults(GivenFacts.of(run).fire()));
    }

    @Test
    void intraNodeLinkMeasuredSilentNearItsRatingOrWhenNotMeasured() {
        // 8 / 10 = 0.8 >= 0.7
        GivenRun near = measuredIntra(run(PCIE), 8);
        assertEquals(List.of(), faults(GivenFacts.of(near).fire()));
        // 9 GB/s on the dual-socket host is what the host does, not a fault, though peer-to-peer PCIe4 would give 20
        GivenRun socket = measuredIntra(run(PCIE), 9);
        assertEquals(20, dev.trainadvisor.spec.Catalog.builtIn().links().get("PCIe4").value().busbwGbps());
        assertEquals(List.of(), faults(GivenFacts.of(socket).fire()));
        // 4 GB/s fitted, not measured: the fit's rules judge it, not this one
        GivenRun fitted = run(PCIE).withLink(LinkScope.INTRA_NODE, 4.0, BandwidthSource.FITTED);
        assertEquals(List.of(), faults(GivenFacts.of(fitted).fire()));
    }

    @Test
    void networkMeasuredFarBelowItsRating() {
        // 2 x HDR100 per node: 24 GB/s in the catalogue; measured 10: 0.417 < 0.7
        GivenRun run = measuredInter(run(PCIE_2NODES), 10);
        assertEquals(24, run.link(LinkScope.INTER_NODE).catalogueGbps());
        assertEquals(List.of(new Fault(FitParam.INTER_NODE_GBPS, 10, 24, 1.0, Fault.Source.MEASURED)),
                faults(GivenFacts.of(run).fire()));
    }

    @Test
    void networkMeasuredSilentNearItsRatingOrOnOneNode() {
        GivenRun near = measuredInter(run(PCIE_2NODES), 20);
        assertEquals(List.of(), faults(GivenFacts.of(near).fire()));
        // one node: no network to be faulty, so no fact of one for the rule to judge
        assertNull(run(PCIE).link(LinkScope.INTER_NODE));
        assertEquals(List.of(), faults(GivenFacts.of(run(PCIE)).fire()));
    }

    @Test
    void everyFaultRuleFiresOncePerFaultAndNoneLoops() {
        // both links measured low, and the fit finds compute, the intra-node link and the overlap faulty
        GivenRun run = measuredInter(measuredIntra(run(PCIE_2NODES), 4), 10);
        GivenFacts g = GivenFacts.of(run).compute(2, 4, 0.5)
                .fittedParameter(FitParam.COMPUTE_SCALE, 1.0, 0.6, 2.0, component(FitParam.COMPUTE_SCALE, 0.9, 0.6, 0.05))
                .fittedParameter(FitParam.INTRA_NODE_BUSBW, 20, 3, 1.0, component(FitParam.INTRA_NODE_BUSBW, 0.3, 3, 0.05))
                .fittedParameter(FitParam.OVERLAP_FRACTION, 0.9, 0.2, 1.0, component(FitParam.OVERLAP_FRACTION, 0.8, 0.2, 0.3))
                .hypothesis(FitHypothesis.INTRA_NODE_BUSBW, 0.3, true, false, 3, 20);
        Map<String, Integer> firings = new TreeMap<>();
        KieSession session = KieBases.shipped().newKieSession();
        try {
            session.addEventListener(new DefaultAgendaEventListener() {
                @Override
                public void afterMatchFired(AfterMatchFiredEvent e) { firings.merge(e.getMatch().getRule().getName(), 1, Integer::sum); }
            });
            for (Object f : g.facts()) session.insert(f);
            int fired = session.fireAllRules(RuleEngine.MAX_FIRINGS);
            assertTrue(fired < 100, fired + " firings: " + firings);
        } finally {
            session.dispose();
        }
        // compute (0.9 x Phi(8.1) = 0.9) and the overlap (0.8 x Phi(6.4) = 0.8) by probability; the link's probability
        // 0.3 < 0.5, so the chosen hypothesis names it; both links measured
        assertEquals(2, firings.get("fault found by the fit"), firings.toString());
        assertEquals(1, firings.get("fault chosen by the fit"), firings.toString());
        assertEquals(1, firings.get("intra-node link measured far below its rating"), firings.toString());
        assertEquals(1, firings.get("network measured far below its rating"), firings.toString());
        List<Fault> fs = faults(g.fire());
        assertEquals(5, fs.size(), fs.toString());
        assertEquals(1, fs.stream().filter(f -> f.param() == FitParam.COMPUTE_SCALE && f.source() == Fault.Source.FIT_PROBABILITY).count());
        assertEquals(1, fs.stream().filter(f -> f.param() == FitParam.OVERLAP_FRACTION && f.source() == Fault.Source.FIT_PROBABILITY).count());
        assertEquals(1, fs.stream().filter(f -> f.param() == FitParam.INTRA_NODE_BUSBW && f.source() == Fault.Source.FIT_CHOSEN).count());
        assertEquals(1, fs.stream().filter(f -> f.param() == FitParam.INTRA_NODE_BUSBW && f.source() == Fault.Source.MEASURED).count());
        assertEquals(1, fs.stream().filter(f -> f.param() == FitParam.INTER_NODE_GBPS && f.source() == Fault.Source.MEASURED).count());
    }
}
