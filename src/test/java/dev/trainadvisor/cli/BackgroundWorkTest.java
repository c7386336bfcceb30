package dev.trainadvisor.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What Main starts on the second core before picocli reads the arguments: the shipped rules where the command advises
 * with them, and the JSON's serializers only where the advice is written as JSON (the default), since building them
 * for a Markdown or HTML report was 8% of a cold advise's CPU spent for nothing.
 */
class BackgroundWorkTest {
    @Test
    void theSerializersAreBuiltAheadOnlyForJson() {
        assertEquals(true, Main.writesJson("advise", "run.yaml"));
        assertEquals(true, Main.writesJson("advise", "run.yaml", "--format", "json"));
        assertEquals(true, Main.writesJson("batch", "runs", "--format=json"));
        assertEquals(false, Main.writesJson("advise", "run.yaml", "--format", "md"));
        assertEquals(false, Main.writesJson("advise", "--format=html", "run.yaml"));
        assertEquals(false, Main.writesJson("batch", "runs", "--format", "csv"));
        assertEquals(false, Main.writesJson("advise", "run.yaml", "--format"), "a format option without its value");
    }

    @Test
    void theShippedRulesAreBuiltAheadWhereTheCommandAdvisesWithThem() {
        assertEquals(true, Main.needsShippedRules("advise", "run.yaml", "--format", "md"));
        assertEquals(true, Main.needsShippedRules("batch", "runs"));
        assertEquals(false, Main.needsShippedRules("advise", "run.yaml", "--rules", "team"));
        assertEquals(false, Main.needsShippedRules("advise", "--help"));
        assertEquals(false, Main.needsShippedRules("search", "run.yaml"));
    }
}
