package dev.trainadvisor.perf;

import dev.trainadvisor.spec.RunSpec;
import org.junit.jupiter.api.Test;

import static dev.trainadvisor.perf.ContextExpertParallelTest.read;
import static org.junit.jupiter.api.Assertions.*;

/**
 * An MoE's expert weights are copied on the expert-data-parallel ranks, tp x cp x dp / (ep x etp) of them, not on every
 * data-parallel rank, so ZeRO shards their states over that many (DataParallel.expertShardGroup says where Megatron-Core
 * and torchtitan do so): Megatron-Core's Mixtral 8x7B run on 64 H100 (tp 1, pp 4, ep 8, dp 16) keeps two copies of
 * each expert, so each GPU holds half of its experts' optimizer states, not a sixteenth.
 */
class ExpertDataParallelTest {

    /** Mixtral 8x7B's expert parameters on one GPU of pp 4, ep 8: 8 layers x 8 experts / 8 x 3 x 4096 x 14336. */
    static final double MIXTRAL_EXPERTS_PER_GPU = 8 * 3 * 4096.0 * 14336;

    static MemoryEstimate memory(String parallel, String model) throws Exception {
        RunSpec s = read("""
                cluster: {preset: dgx-h100, nodes: 8}
                model: %s
                parallel: %s
                training: {seq_len: 4096, micro_batch_size: 1, micro_batches: 8, recompute: full, framework: megatron-core}
                """.formatted(model, parallel));
        return StepModel.predict(s.cluster(), s.run()).memory();
    }

    @Test
    void expertStatesAreShardedOverTheirOwnReplicas() throws Exception {
        // ZeRO 0 keeps 12 bytes of optimizer state for each parameter the GPU holds: its parameters, from the model
        MemoryEstimate zero0 = memory("{pp: 4, ep: 8, dp: 16, zero_stage: 0}", "mixtral-8x7b");
        double psi = zero0.optimizerGb() * 1e9 / 12;
        assertTrue(psi > MIXTRAL_EXPERTS_PER_GPU, "experts are most of the shard: " + psi);
        // ZeRO 1: the dense part over the 16 data-parallel ranks, the experts over their 1 x 1 x 16 / (8 x 1) = 2 copies
        MemoryEstimate zero1 = memory("{pp: 4, ep: 8, dp: 16, zero_stage: 1}", "mixtral-8x7b");
        double expected = 12 * ((psi - MIXTRAL_EXPERTS_PER_GPU) / 16 + MIXTRAL_EXPERTS_PER_GPU / 2) / 1e9;
        assertEquals(expected, zero1.optimizerGb(), 1e-9);
        assertTrue(zero1.optimizerGb() > 8, "about 8.8 GB, where sharding all over 16 gave 1.4: " + zero1.optimizerGb());
    }

    @Test
    void theExpertShardGroupIsWhatTheFoldingLeaves() throws Exception {
        // zero_group_size x cp x tp / (ep x etp), at least one: Mixtral's 16 / 8 = 2; Qwen3-235B's ep 32 rows,
        // tp 2 x dp 16 / 32 = 1 (one copy of each expert: its states unsharded); a dense model's, the ZeRO group
        assertEquals(2, DataParallel.expertShardGroup(parallel("{pp: 4, ep: 8, dp: 16, zero_stage: 1}", "mixtral-8x7b")));
        assertEquals(1, DataParallel.expertShardGroup(parallel("{tp: 2, pp: 8, ep: 32, etp: 1, dp: 16, zero_stage: 1}",
                "qwen3-235b-a22b")));
        assertEquals(16, DataParallel.expertShardGroup(parallel("{pp: 4, dp: 16, zero_stage: 1}", "llama-3-8b")));
    }

    static dev.trainadvisor.spec.Parallel parallel(String parallel, String model) throws Exception {
        return read("""
                cluster: {preset: dgx-h100, nodes: %s}
                model: %s
                parallel: %s
                training: {seq_len: 4096, micro_batch_size: 1, micro_batches: 8, recompute: full}
                """.formatted(parallel.contains("tp: 2") ? 32 : 8, model, parallel)).run().parallel();
    }
}
