package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Frameworks;
import dev.trainadvisor.spec.RunSpec;
import org.junit.jupiter.api.Test;

import static dev.trainadvisor.perf.ContextExpertParallelTest.read;
import static dev.trainadvisor.perf.ContextParallelReplicasTest.collective;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Megatron-LM before Megatron-Core splits what a pipeline stage sends over its tensor-parallel ranks when the
 * activations are not already split by sequence parallelism (Narayanan et al. 2021, section 4.1, the scatter/gather
 * communication optimization; megatron/p2p_communication.py at v2.6: each rank sends numel / tp of the tensor and the
 * receiving stage all-gathers the slices over its tensor-parallel group, megatron/mpu/random.py
 * gather_split_1d_tensor): the bytes that cross the pipeline's link, often the network, fall by tp, and an all-gather of
 * the whole tensor runs over the tensor-parallel group's link, NVLink inside a node. Megatron-Core sends whole tensors.
 */
class PipelineScatterGatherTest {

    /** GPT-3 175B's layout in Narayanan et al. 2021 (tp 8, pp 8 of 96 layers) on eight DGX A100 nodes. */
    private static final String YAML = """
            cluster: {preset: dgx-a100-80gb, nodes: 8}
            model: gpt3-175b
            parallel: {tp: 8, pp: 8, dp: 1%s}
            training: {seq_len: 2048, micro_batch_size: 1, micro_batches: 64, recompute: full, framework: %s}
            """;

    @Test
    void theProfilesSayWhoScatters() {
        assertTrue(Frameworks.builtIn().find("megatron-lm", null, "test", "f").scattersPipelineSends());
        assertTrue(Frameworks.builtIn().find("megatron-lm", "2022-06", "test", "f").scattersPipelineSends());
        assertFalse(Frameworks.builtIn().find("megatron-core", null, "test", "f").scattersPipelineSends());
        assertFalse(Frameworks.builtIn().generic().scattersPipelineSends());
    }

    @Test
    void eachRankSendsItsSliceAndTheStageGathersTheWhole() throws Exception {
        RunSpec lm = read(String.format(YAML, "", "megatron-lm"));
        StepPrediction p = StepModel.predict(lm.cluster(), lm.run());
        // one micro-batch's activation: 2048 tokens x 12288 hidden x 2 bytes = 50,331,648 bytes; a rank sends an eighth
        double whole = 2048.0 * 12288 * 2;
        Collective sends = collective(p, CollectiveOp.PP_SEND_RECV);
        assertEquals(whole / 8, sends.bytesPerPass(), 0);
        // forward and backward, each of the 64 micro-batches: 128 sends, each followed by a gather of the whole
        assertEquals(128, sends.calls());
        Collective gather = collective(p, CollectiveOp.PP_RECV_ALL_GATHER);
        assertEquals(whole, gather.bytesPerPass(), 0);
        assertEquals(128, gather.calls());
        assertEquals(8, gather.groupSize());
        // the gather runs over the tensor-parallel group, inside the node; the sends cross between nodes
        assertFalse(gather.link().crossesNodes());
        assertTrue(sends.link().crossesNodes());
        // an all-gather of 8 moves 7/8 of its output through each rank's link: at NVLink3's bus bandwidth
        double busbw = gather.busbwGbps() * 1e9;
        assertEquals(gather.latencySeconds() + 128 * whole * gather.factor() / busbw, gather.seconds(), 1e-12);
        assertEquals(7.0 / 8, gather.factor(), 1e-12, "ring all-gather moves (n - 1) / n of its output");

        // Megatron-Core sends the whole tensor and gathers nothing
        RunSpec core = read(String.format(YAML, "", "megatron-core"));
        StepPrediction q = StepModel.predict(core.cluster(), core.run());
        assertEquals(whole, collective(q, CollectiveOp.PP_SEND_RECV).bytesPerPass(), 0);
        assertTrue(q.collectives().stream().noneMatch(c -> c.op() == CollectiveOp.PP_RECV_ALL_GATHER));
        // over the same network an eighth of the bytes: Megatron-LM's sends take less than a fifth as long
        assertTrue(sends.seconds() < collective(q, CollectiveOp.PP_SEND_RECV).seconds() / 5);
    }

    /** With sequence parallelism the activations are already split: Megatron-LM sends its slice and gathers nothing. */
    @Test
    void sequenceParallelismSendsItsShareWithoutAGather() throws Exception {
        RunSpec lm = read(String.format(YAML, ", sequence_parallel: true", "megatron-lm"));
        StepPrediction p = StepModel.predict(lm.cluster(), lm.run());
        assertEquals(2048.0 * 12288 * 2 / 8, collective(p, CollectiveOp.PP_SEND_RECV).bytesPerPass(), 0);
        assertTrue(p.collectives().stream().noneMatch(c -> c.op() == CollectiveOp.PP_RECV_ALL_GATHER));
    }
}
