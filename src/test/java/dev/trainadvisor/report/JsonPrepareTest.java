package dev.trainadvisor.report;

import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.advice.TrainAdvisor;
import dev.trainadvisor.assemble.RunFiles;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Json.prepare, which the command line runs on a second core while the advice is worked out, builds every serializer
 * the advice's JSON is written with, so that writing it (at the end of a cold advise, on one core) builds none: Jackson's
 * cache of serializers holds as many after writing the advice of every example and every test run file as before. And
 * what is written is the same with the serializers prepared as without.
 */
class JsonPrepareTest {
    @Test
    void writingTheAdviceBuildsNoSerializerThatPrepareDidNot() throws Exception {
        List<Advice> advice = new java.util.ArrayList<>();
        try (Stream<Path> files = Stream.concat(Files.list(Path.of("examples")), Files.list(Path.of("src/test/resources/runs")))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
                try {
                    advice.add(TrainAdvisor.advise(RunFiles.read(f)));
                } catch (RuntimeException e) {
                    // a run the test files keep to be refused
                }
            }
        }
        assertTrue(advice.size() >= 10, "advised: " + advice.size());
        // written once before prepare, by a mapper of its own: the bytes prepare must not change
        List<String> unprepared = new java.util.ArrayList<>();
        for (Advice a : advice) unprepared.add(Json.of(a));
        serializers().flushCachedSerializers();
        Json.prepare();
        int prepared = serializers().cachedSerializersCount();
        assertTrue(prepared > 100, "serializers prepared: " + prepared);
        for (int i = 0; i < advice.size(); i++) assertEquals(unprepared.get(i), Json.of(advice.get(i)));
        assertEquals(prepared, serializers().cachedSerializersCount(),
                "serializers the write built that prepare did not");
    }

    /** The mapper's provider, whose cache of serializers every writer of the mapper shares. */
    private static com.fasterxml.jackson.databind.ser.DefaultSerializerProvider serializers() {
        return (com.fasterxml.jackson.databind.ser.DefaultSerializerProvider) Json.MAPPER.getSerializerProviderInstance();
    }
}
