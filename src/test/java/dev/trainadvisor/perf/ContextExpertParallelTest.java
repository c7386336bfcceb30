package dev.trainadvisor.perf;

import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;
import com.fasterxml.jackson.databind.ObjectMapper;

import static org.junit.jupiter.api.Assertions.*;

/** Context-parallel KV exchange and expert-parallel all-to-all, by hand. */
class ContextExpertParallelTest {
    static RunSpec read(String yaml) throws Exception {
        return new SpecReader().read(new ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree(yaml), "test");
    }

    @Test
    void contextParallelMovesKeysAndValuesAroundTheRing() throws Exception {
        // Llama-3-8B (32 layers, 8 KV heads of 128), seq 32768, micro-batch 1, 2 micro-batches, cp 4 on one DGX H100.
        // K and V of the whole sequence: 32768 tokens x 2 x 8 x 128 x 2 bytes = 134,217,728 bytes per layer; each rank
        // receives (cp-1)/cp of it: all-gather factor 3/4. Passes: 32 layers x 2 micro-batches x 3 (1 fwd + 2 bwd) = 192.
        RunSpec s = read("""
                cluster: {preset: dgx-h100, nodes: 1}
                model: llama-3-8b
                parallel: {cp: 4, dp: 2}
                training: {seq_len: 32768, micro_batch_size: 1, micro_batches: 2}
                """);
        StepPrediction p = StepModel.predict(s.cluster(), s.run());
        Collective cp = p.collectives().stream().filter(c -> c.name().equals("cp-kv-exchange")).findFirst().orElseThrow();
        assertEquals(134_217_728.0, cp.bytesPerPass());
        assertEquals(192, cp.passesPerStep());
        assertEquals(0.75, cp.kind().factor(cp.groupSize()));
        double busbw = s.cluster().intraNode().busbwGbps() * 1e9;
        double transfer = 0.75 * 134_217_728.0 * 192 / busbw;
        assertEquals(transfer, cp.seconds() - cp.link().alphaUs() * 1e-6 * 192 * 3, 1e-9);
        assertTrue(cp.exposedSeconds() < cp.seconds(), "hidden in part behind the attention kernels");
    }

    @Test
    void expertParallelAllToAllCarriesEachTokenToItsTopKExperts() throws Exception {
        // Mixtral 8x7B (32 MoE layers, top-2, hidden 4096), ep 8 on one node, seq 4096, micro-batch 1, 4 micro-batches:
        // per MoE layer and micro-batch 4096 tokens x 2 experts x 4096 x 2 bytes = 67,108,864 bytes per all-to-all,
        // four of them (dispatch and combine, forward and backward): 32 x 4 x 4 = 512 passes
        RunSpec s = read("""
                cluster: {preset: dgx-h100, nodes: 1}
                model: mixtral-8x7b
                parallel: {ep: 8, zero_stage: 1}
                training: {seq_len: 4096, micro_batch_size: 1, micro_batches: 4, recompute: full}
                """);
        StepPrediction p = StepModel.predict(s.cluster(), s.run());
        Collective ep = p.collectives().stream().filter(c -> c.name().equals("ep-all-to-all")).findFirst().orElseThrow();
        assertEquals(67_108_864.0, ep.bytesPerPass());
        assertEquals(512, ep.passesPerStep());
        assertEquals(ep.seconds(), ep.exposedSeconds(), "not overlapped");
    }
}
