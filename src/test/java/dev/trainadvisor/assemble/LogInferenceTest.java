package dev.trainadvisor.assemble;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The inferences of a run read around a training log (LogInference), apart from the commands that use them. */
class LogInferenceTest {
    @Test
    void theGlobalBatchIsReadFromTheConfigurationTheStepLinesOrTheTokensPerStep() {
        java.util.Map<String, Double> none = java.util.Map.of();
        assertEquals(128, LogInference.globalBatch(new dev.trainadvisor.ingest.ParsedLog("megatron", 3, 2, none, null,
                java.util.Map.of("training.global_batch_size", 128), java.util.Map.of("global_batch_size", 64), java.util.List.of()), 2048)
                .sequences(), "the printed configuration first");
        assertEquals(64, LogInference.globalBatch(new dev.trainadvisor.ingest.ParsedLog("megatron", 3, 2, none, null,
                java.util.Map.of(), java.util.Map.of("global_batch_size", 64), java.util.List.of()), 2048).sequences());
        assertEquals(64, LogInference.globalBatch(new dev.trainadvisor.ingest.ParsedLog("internevo", 3, 2, none, null,
                java.util.Map.of(), java.util.Map.of("tokens_per_step", 131072), java.util.List.of()), 2048).sequences());
        assertNull(LogInference.globalBatch(new dev.trainadvisor.ingest.ParsedLog("internevo", 3, 2, none, null,
                java.util.Map.of(), java.util.Map.of("tokens_per_step", 131073), java.util.List.of()), 2048), "not whole sequences");
        assertNull(LogInference.globalBatch(new dev.trainadvisor.ingest.ParsedLog("torchtitan", 3, 2, none, null,
                java.util.Map.of(), java.util.Map.of(), java.util.List.of()), 8192));
    }
}
