package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Frameworks;
import dev.trainadvisor.spec.RunSpec;
import org.junit.jupiter.api.Test;

import static dev.trainadvisor.perf.ContextExpertParallelTest.read;
import static dev.trainadvisor.perf.ContextParallelReplicasTest.collective;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Megatron-LM from 2022 runs a column-parallel linear's backward collectives beside its GEMMs
 * (LinearWithGradAccumulationAndAsyncCommunication, megatron/mpu/layers.py:203-312 at d07d29d): without sequence
 * parallelism the input gradient's all-reduce during the weight-gradient GEMM; with it the input gradient's
 * reduce-scatter during that GEMM and the input's slice gathered again during the input-gradient GEMM. Megatron-LM
 * v2.x waited for each. Korthikanti et al. 2022's 22B layout (tp 8, 48 layers of 6144, 4 sequences of 2048 a
 * micro-batch, one micro-batch) on one DGX A100.
 */
class TensorParallelBackwardOverlapTest {

    private static final String YAML = """
            cluster: {preset: dgx-a100-80gb, nodes: 1}
            model: {layers: 48, hidden: 6144, heads: 64, ffn_hidden: 24576, vocab: 51200}
            parallel: {tp: 8, pp: 1, dp: 1, sequence_parallel: %s}
            training: {seq_len: 2048, micro_batch_size: 4, micro_batches: 1, recompute: %s, flash_attention: false,
                       framework: megatron-lm, framework_version: '%s'}
            """;

    /** One micro-batch's activation: 2048 x 4 tokens x 6144 hidden x 2 bytes. */
    private static final double ACT = 2048.0 * 4 * 6144 * 2;

    @Test
    void theProfilesSayWhoOverlaps() {
        assertFalse(Frameworks.builtIn().find("megatron-lm", "2021", "test", "f").overlapsTpBackward());
        assertTrue(Frameworks.builtIn().find("megatron-lm", "2022-06", "test", "f").overlapsTpBackward());
        // Megatron-Core's and Transformer Engine's layers do it too, but their profiles do not say so yet
        // (docs/model.md, "Frameworks": measured, not shipped); the BigScience fork of Megatron-LM (2021) does not
        assertFalse(Frameworks.builtIn().find("megatron-core", null, "test", "f").overlapsTpBackward());
        assertFalse(Frameworks.builtIn().find("megatron-deepspeed", null, "test", "f").overlapsTpBackward());
        assertFalse(Frameworks.builtIn().generic().overlapsTpBackward());
    }

    @Test
    void withoutSequenceParallelismTheInputGradientsAllReduceHidesBehindTheGemms() throws Exception {
        RunSpec before = read(String.format(YAML, "false", "full", "2021"));
        RunSpec after = read(String.format(YAML, "false", "full", "2022-06"));
        StepPrediction b = StepModel.predict(before.cluster(), before.run()), a = StepModel.predict(after.cluster(), after.run());
        // v2.x: 48 layers x (2 forward + 2 recomputed + 2 backward) all-reduces, each waited for
        Collective all = collective(b, CollectiveOp.TP_ALL_REDUCE);
        assertEquals(288, all.calls());
        assertEquals(ACT, all.bytesPerPass(), 0);
        assertTrue(b.collectives().stream().noneMatch(c -> c.op() == CollectiveOp.TP_GRAD_ALL_REDUCE));
        // 2022: the forward's and the recomputed forward's 192 wait; the backward's 96 run beside the GEMMs
        Collective waiting = collective(a, CollectiveOp.TP_ALL_REDUCE), beside = collective(a, CollectiveOp.TP_GRAD_ALL_REDUCE);
        assertEquals(192, waiting.calls());
        assertEquals(96, beside.calls());
        assertEquals(OverlapWindow.NONE, waiting.overlapsWith());
        assertEquals(OverlapWindow.GEMMS, beside.overlapsWith());
        assertEquals(0.5, waiting.forwardShare(), 0, "the recomputed forward's half runs in the backward");
        assertEquals(0, beside.forwardShare(), 0);
        // the same calls of the same bytes on the same link: the seconds are split, not changed
        assertEquals(all.seconds(), waiting.seconds() + beside.seconds(), all.seconds() * 1e-12);
        assertEquals(waiting.seconds(), waiting.exposedSeconds(), 0);
        // the step's GEMMs (about 0.8 s) hold its 0.077 s many times over: all of it hidden, less what its transport
        // slows the GEMMs beside it (interference i: exposed s i / (1 + i))
        double i = beside.link().interference();
        assertEquals(beside.seconds() * i / (1 + i), beside.exposedSeconds(), beside.seconds() * 1e-12);
        assertTrue(a.stepTimeS() < b.stepTimeS());
        assertEquals(b.computeSeconds(), a.computeSeconds(), 1e-12, "the compute is the same");
    }

    @Test
    void withSequenceParallelismTheReduceScatterAndTheRegatherHideBehindTheGemms() throws Exception {
        RunSpec before = read(String.format(YAML, "true", "selective", "2021"));
        RunSpec after = read(String.format(YAML, "true", "selective", "2022-06"));
        StepPrediction b = StepModel.predict(before.cluster(), before.run()), a = StepModel.predict(after.cluster(), after.run());
        // v2.x (as the model counts it): 48 layers x (2 forward + 2 backward) all-gathers and reduce-scatters, waited for
        assertEquals(192, collective(b, CollectiveOp.TP_ALL_GATHER).calls());
        assertEquals(192, collective(b, CollectiveOp.TP_REDUCE_SCATTER).calls());
        // 2022: the all-gathers as before (the forward's two, and the backward's two of the row-parallel outputs'
        // gradients); the forward's two reduce-scatters wait; the backward's two run beside the weight-gradient GEMM,
        // with two more all-gathers of the input beside the input-gradient GEMM
        Collective gather = collective(a, CollectiveOp.TP_ALL_GATHER), scatter = collective(a, CollectiveOp.TP_REDUCE_SCATTER);
        assertEquals(192, gather.calls());
        assertEquals(0.5, gather.forwardShare(), 0);
        assertEquals(96, scatter.calls());
        assertEquals(1, scatter.forwardShare(), 0);
        for (CollectiveOp op : new CollectiveOp[]{CollectiveOp.TP_GRAD_REDUCE_SCATTER, CollectiveOp.TP_INPUT_REGATHER}) {
            Collective c = collective(a, op);
            assertEquals(96, c.calls(), op.key());
            assertEquals(ACT, c.bytesPerPass(), 0, op.key());
            assertEquals(OverlapWindow.GEMMS, c.overlapsWith(), op.key());
            double i = c.link().interference();
            assertEquals(c.seconds() * i / (1 + i), c.exposedSeconds(), c.seconds() * 1e-12, op.key());
        }
        assertEquals(CollectiveKind.ALL_GATHER, CollectiveOp.TP_INPUT_REGATHER.kind());
        assertEquals(CollectiveKind.REDUCE_SCATTER, CollectiveOp.TP_GRAD_REDUCE_SCATTER.kind());
    }
}
