package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.RemedyProposal;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Rule inter-node-bandwidth: collectives bound by the network leave >= 5% of the step exposed. */
class InterNodeBandwidthRuleTest {

    @Test
    void firesAndProposesHierarchicalShardingAndMoreNics() {
        // 2 nodes, 2 x HDR100 per node (the 2-node example, ZeRO over all 16 ranks): 2 s of a 7 s step
        // exposed on the network = 0.2857 -> high
        RuleEngine.Result r = GivenFacts.of("internlm-7b-pcie-2nodes.yaml").step(7.0, 2340)
                .collective("zero-grad-reduce-scatter", "inter-node", "IB-HDR100", 24, 29.3e9, 2.0, 7.0).fire();
        Diagnosis d = GivenFacts.only(r, "inter-node-bandwidth");
        assertEquals("high", d.severity());
        assertEquals(2.0 / 7.0, d.impactFraction(), 1e-12);
        assertTrue(d.explanation().contains("2 NICs per node"), d.explanation());
        RemedyProposal shard = r.proposals().stream().filter(p -> p.id().equals("intra-node-sharding")).findFirst().orElseThrow();
        assertEquals(8, shard.change().get("parallel.zero_group_size"));
        RemedyProposal nics = r.proposals().stream().filter(p -> p.id().equals("more-nics")).findFirst().orElseThrow();
        assertEquals(8, nics.change().get("cluster.inter_node.nics_per_node"));
    }

    @Test
    void silentWhenTheNetworkHidesBehindCompute() {
        // 0.2 s exposed of 7 s: 2.9% < 5%
        RuleEngine.Result r = GivenFacts.of("internlm-7b-pcie-2nodes.yaml").step(7.0, 2340)
                .collective("zero-grad-reduce-scatter", "inter-node", "IB-HDR100", 24, 29.3e9, 0.2, 7.0).fire();
        assertFalse(GivenFacts.fired(r, "inter-node-bandwidth"));
    }
}
