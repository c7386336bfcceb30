package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.Evidence;
import dev.trainadvisor.facts.RemedyProposal;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Rule intra-node-bandwidth: collectives bound by the intra-node link leave >= 5% of the step exposed. */
class IntraNodeBandwidthRuleTest {

    @Test
    void firesHighWhenPcieBoundCollectivesExposeAQuarterOfTheStep() {
        // 8 GPUs on PCIe at 20 GB/s: a 29.3 GB gradient reduce-scatter takes 7/8 * 29.3 / 20 = 1.28 s;
        // suppose 1.5 s of collectives are exposed in a 6 s step: impact 1.5 / 6 = 0.25 >= 0.20 -> high
        RuleEngine.Result r = GivenFacts.of("internlm-7b-pcie-1node.yaml").step(6.0, 2730)
                .collective("zero-grad-reduce-scatter", "intra-node", "PCIe4", 20, 29.3e9, 0.9, 6.0)
                .collective("zero-param-all-gather", "intra-node", "PCIe4", 20, 14.6e9, 0.6, 6.0)
                .fire();
        Diagnosis d = GivenFacts.only(r, "intra-node-bandwidth");
        assertEquals("high", d.severity());
        assertEquals(0.25, d.impactFraction(), 1e-12);
        assertEquals("intra-node-bandwidth", d.rule());
        assertTrue(d.explanation().contains("PCIe4"), d.explanation());
        assertTrue(d.explanation().contains("1.5 s of the 6 s step"), d.explanation());
        // the reduce-scatter's own arithmetic is spelled out: 0.875 x 29.3 GB / 20 GB/s = 1.28 s
        assertTrue(d.explanation().contains("0.875 x 29.3 GB / 20 GB/s = 1.28 s"), d.explanation());
        double exposed = d.evidence().stream().filter(e -> e.name().equals("exposed_seconds"))
                .mapToDouble(Evidence::value).findFirst().orElseThrow();
        assertEquals(1.5, exposed, 1e-12);

        // remedies: NVLink nodes of the same generation (the A100 PCIe card's NVLink sibling is the SXM4 80GB)
        RemedyProposal nv = r.proposals().stream().filter(p -> p.id().equals("nvlink-nodes")).findFirst().orElseThrow();
        assertEquals("A100-SXM4-80GB", nv.change().get("cluster.gpu"));
        assertEquals("NVLink3", nv.change().get("cluster.intra_node.link"));
        assertTrue(nv.change().containsKey("cluster.intra_node.busbw_gbps"), "a measured PCIe busbw must be dropped");
        assertTrue(r.proposals().stream().anyMatch(p -> p.id().equals("more-micro-batches")
                && Integer.valueOf(8).equals(p.change().get("training.micro_batches"))));
    }

    @Test
    void mediumBetweenFiveAndTwentyPercent() {
        // 0.6 s exposed of a 6 s step: 10% -> medium
        RuleEngine.Result r = GivenFacts.of("internlm-7b-pcie-1node.yaml").step(6.0, 2730)
                .collective("zero-param-all-gather", "intra-node", "PCIe4", 20, 14.6e9, 0.6, 6.0).fire();
        assertEquals("medium", GivenFacts.only(r, "intra-node-bandwidth").severity());
    }

    @Test
    void silentBelowFivePercent() {
        // NVLink: 14.6 GB at 231.6 GB/s is 0.055 s exposed of a 3.9 s step, 1.4%
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").step(3.9, 4200)
                .collective("zero-param-all-gather", "intra-node", "NVLink3", 231.6, 14.6e9, 0.055, 3.9).fire();
        assertFalse(GivenFacts.fired(r, "intra-node-bandwidth"), r.diagnoses().toString());
    }

    @Test
    void silentWhenTheExposedCollectivesAreBoundByTheNetwork() {
        RuleEngine.Result r = GivenFacts.of("internlm-7b-pcie-2nodes.yaml").step(6.0, 2730)
                .collective("zero-replica-grad-all-reduce", "inter-node", "IB-HDR100", 3, 3.66e9, 1.2, 6.0).fire();
        assertFalse(GivenFacts.fired(r, "intra-node-bandwidth"));
        assertTrue(GivenFacts.fired(r, "inter-node-bandwidth"));
    }

    @Test
    void noNvlinkRemedyWhenTheNodesAlreadyHaveNvlink() {
        // a slow NVLink node (say a measured 40 GB/s) is still intra-node bound, but "buy NVLink" is no remedy
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").step(5.0, 3300)
                .collective("zero-grad-reduce-scatter", "intra-node", "NVLink3", 40, 29.3e9, 1.0, 5.0).fire();
        assertEquals("high", GivenFacts.only(r, "intra-node-bandwidth").severity());
        assertTrue(r.proposals().stream().noneMatch(p -> p.id().equals("nvlink-nodes")));
    }
}
