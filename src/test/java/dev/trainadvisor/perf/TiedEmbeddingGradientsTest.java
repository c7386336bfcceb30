package dev.trainadvisor.perf;

import dev.trainadvisor.spec.RunSpec;
import org.junit.jupiter.api.Test;

import static dev.trainadvisor.perf.ContextExpertParallelTest.read;
import static dev.trainadvisor.perf.ContextParallelReplicasTest.collective;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A model whose output head is its input embedding, split over pipeline stages, holds that weight on the first stage
 * and a copy on the last (MemoryModel): the two copies' gradients are all-reduced between the stages once a step, after
 * the backward (Megatron-Core's finalize_model_grads._allreduce_word_embedding_grads, DeepSpeed's tied-module
 * reduction).
 */
class TiedEmbeddingGradientsTest {

    private static final String RUN = """
            cluster: {preset: dgx-h100, nodes: 2}
            model: %s
            parallel: {tp: 2, pp: %d, dp: %d}
            training: {seq_len: 2048, micro_batch_size: 1, micro_batches: 8, framework: megatron-core,
                       grad_reduce_precision: fp32}
            """;

    @Test
    void theFirstAndLastStagesSumTheTiedWeightsGradients() throws Exception {
        // GPT-3 XL: vocab 50257 x hidden 2048, split over tp 2: 51,463,168 parameters a rank, 4 bytes each in fp32
        RunSpec s = read(String.format(RUN, "gpt3-1.3b", 2, 4));
        StepPrediction p = StepModel.predict(s.cluster(), s.run());
        Collective c = collective(p, CollectiveOp.PP_EMBEDDING_ALL_REDUCE);
        assertEquals(2, c.groupSize());
        assertEquals(50257.0 * 2048 / 2 * 4, c.bytesPerStep(), 0);
        assertEquals(1, c.calls());
        assertTrue(c.afterBackward(), "after the backward, before the optimizer");
        assertEquals(c.seconds(), c.exposedSeconds(), 0, "nothing to hide behind");
        // stages outermost on two nodes of 8: rank 0's last stage is rank 8, on the other node
        assertTrue(c.link().crossesNodes());
        // an untied model has none; nor has a run without pipeline stages
        RunSpec untied = read(String.format(RUN, "llama-3-8b", 2, 4));
        assertTrue(StepModel.predict(untied.cluster(), untied.run()).collectives().stream()
                .noneMatch(x -> x.op() == CollectiveOp.PP_EMBEDDING_ALL_REDUCE));
        RunSpec flat = read(String.format(RUN, "gpt3-1.3b", 1, 8));
        assertTrue(StepModel.predict(flat.cluster(), flat.run()).collectives().stream()
                .noneMatch(x -> x.op() == CollectiveOp.PP_EMBEDDING_ALL_REDUCE));
    }
}
