package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.RemedyProposal;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Rule tp-across-nodes: a tensor-parallel group larger than a node. */
class TpAcrossNodesRuleTest {

    @Test
    void firesForTp16OnNodesOf8() {
        // 0.222 s of TP collectives exposed in a 1.9 s step: 11.7% -> medium
        RuleEngine.Result r = GivenFacts.of("runs/gpt3-tp16.yaml").step(1.9, 1000).tpCollective(0.222, 1.9).fire();
        Diagnosis d = GivenFacts.only(r, "tp-across-nodes");
        assertEquals("medium", d.severity());
        assertEquals(0.222 / 1.9, d.impactFraction(), 1e-12);
        RemedyProposal p = r.proposals().stream().filter(x -> x.id().equals("tp-inside-node")).findFirst().orElseThrow();
        assertEquals(8, p.change().get("parallel.tp"));
        assertEquals(16, p.change().get("parallel.pp"), "tp 16 x pp 8 = tp 8 x pp 16");
    }

    @Test
    void silentWhenTensorParallelismStaysInTheNode() {
        RuleEngine.Result r = GivenFacts.of("internlm-7b-nvlink-1node.yaml").step(3.9, 4200).fire();
        assertFalse(GivenFacts.fired(r, "tp-across-nodes"));
    }
}
