package dev.trainadvisor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** `parse` says what the log's history keeps, so that a user sees what the rules on the history read. */
class ParseHistoryTest {

    /**
     * The Megatron-Core excerpt prints iterations 5 to 52, one per line (log interval 1): 48 entries. The first four,
     * iterations 5-8, are within ten logging intervals of the start: min(10, max(1, 48 / 10)) = 4 dropped as warm-up
     * by iteration number. Its timer block names 11 timers, save-checkpoint among them.
     */
    @Test
    void parseListsTheHistoryItKeeps() {
        CliTest.Result r = CliTest.run("parse", "src/test/resources/logs/history/megatron-ckpt-every10-gdn-56rank.log",
                "--format", "json");
        assertEquals(0, r.code(), r.err());
        JsonNode h = CliTest.parse(r.out()).path("history");
        assertEquals(48, h.path("entries").asInt());
        assertEquals(5, h.path("first_step").asLong());
        assertEquals(52, h.path("last_step").asLong());
        assertEquals(1, h.path("stride").asInt());
        assertEquals(4, h.path("warmup_entries").asInt());
        assertEquals("iteration number", h.path("warmup_reason").asText());
        List<String> timers = new ArrayList<>();
        h.path("timers").forEach(t -> timers.add(t.asText()));
        assertEquals(11, timers.size(), timers.toString());
        assertTrue(timers.containsAll(List.of("forward-backward", "batch-generator", "save-checkpoint")), timers.toString());
        List<String> series = new ArrayList<>();
        h.path("series").forEach(t -> series.add(t.asText()));
        assertTrue(series.containsAll(List.of("step_time_s", "timestamp_s", "loss")), series.toString());
    }

    /** nccl-tests output has no steps: no history block. */
    @Test
    void aLogWithoutStepsHasNoHistory() {
        CliTest.Result r = CliTest.run("parse", "src/test/resources/logs/nccl-tests-tagged.log", "--format", "json");
        assertEquals(0, r.code(), r.err());
        assertTrue(CliTest.parse(r.out()).path("history").isMissingNode());
    }
}
