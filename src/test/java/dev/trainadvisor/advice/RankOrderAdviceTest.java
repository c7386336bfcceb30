package dev.trainadvisor.advice;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The advice says where a collective's group lies, as the framework's rank order puts it: tp 2, pp 2, dp 4 on two DGX
 * H100 under Megatron-Core's order keeps rank 0's data-parallel group {0, 2, 4, 6} in one node; numbered replicas
 * outermost ({@code rank_order: tp-cp-pp-dp}) the group is {0, 4, 8, 12}, two on each of two nodes, and the diagnosis
 * that claims its time says so.
 */
class RankOrderAdviceTest {

    private static Advice advise(String order) throws Exception {
        String yaml = """
                cluster: {preset: dgx-h100, nodes: 2}
                model: llama-3-8b
                parallel: {tp: 2, pp: 2, dp: 4%s}
                training: {seq_len: 4096, micro_batch_size: 1, micro_batches: 8, framework: megatron-core}
                metrics: {step_time_s: 2.0}
                """.formatted(order);
        return TrainAdvisor.advise(new SpecReader().read(new ObjectMapper(new YAMLFactory()).readTree(yaml), "test"));
    }

    private static String explanations(Advice a) {
        StringBuilder b = new StringBuilder();
        for (Diagnosis d : a.diagnoses()) b.append(d.explanation()).append('\n');
        return b.toString();
    }

    @Test
    void theDiagnosisSaysWhereTheGroupLies() throws Exception {
        String stages = explanations(advise(""));
        assertTrue(stages.contains("dp-grad-all-reduce over 4 GPUs: "), stages);
        String replicas = explanations(advise(", rank_order: tp-cp-pp-dp"));
        assertTrue(replicas.contains("dp-grad-all-reduce over 4 GPUs across 2 nodes, 2 on each: "), replicas);
    }
}
