package dev.trainadvisor.ingest;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The shared skeleton keeps LogParser's promise: a parser's bug is "not this format" or a warning, never a throw. */
class GuardedLogParserTest {

    static final class Broken extends GuardedLogParser {
        Broken() { super("broken"); }

        @Override
        double score(String text) { throw new IllegalStateException("score bug"); }

        @Override
        ParsedLog read(LogSource log) { throw new ArrayIndexOutOfBoundsException("read bug"); }
    }

    @Test
    void aThrowingParserScoresZeroAndReadsToAWarning() {
        Broken b = new Broken();
        assertEquals("broken", b.format());
        assertEquals(0, b.confidence("anything"));
        ParsedLog p = b.parse("anything");
        assertEquals("broken", p.format());
        assertEquals(0, p.steps());
        assertTrue(p.metrics().isEmpty());
        assertEquals(java.util.List.of("parser error: ArrayIndexOutOfBoundsException: read bug"), p.warnings());
    }
}
