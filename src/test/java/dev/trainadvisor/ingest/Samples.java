package dev.trainadvisor.ingest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The real log lines of shared/samples/logs (line 1 of each names its source); tests skip when they are absent. */
final class Samples {
    static final Path DIR = Path.of("../shared/samples/logs");

    private Samples() {}

    /** Logs built for the tests (src/test/resources/logs); each file's first line says how. */
    static final Path RESOURCES = Path.of("src/test/resources/logs");

    /** A log of src/test/resources/logs. */
    static Path resource(String name) {
        return RESOURCES.resolve(name);
    }

    /** The text of a sample; the test is skipped when the file is not there. */
    static String text(String name) {
        Path p = DIR.resolve(name);
        assumeTrue(Files.exists(p), name + " not present in " + DIR);
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses a sample with {@code parser} after checking that detection picks the same format. */
    static ParsedLog parse(LogParser parser, String name) {
        String text = text(name);
        ParsedLog direct = parser.parse(text);
        assertNotNull(direct);
        assertEquals(parser.format(), direct.format());
        assertEquals(parser.format(), LogFormats.detectAndParse(text, name).format(), "detected format of " + name);
        return direct;
    }

    /** Every sample file name, sorted; empty when the folder is absent. */
    static List<String> all() {
        if (!Files.isDirectory(DIR)) return List.of();
        try (Stream<Path> s = Files.list(DIR)) {
            List<String> names = new ArrayList<>();
            s.filter(Files::isRegularFile).forEach(p -> names.add(p.getFileName().toString()));
            names.sort(null);
            return names;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sample names starting with {@code prefix} followed by a dash and a number (megatron-1 but not megatron-deepspeed-1). */
    static List<String> named(String prefix) {
        List<String> out = new ArrayList<>();
        for (String n : all()) {
            if (!n.startsWith(prefix + "-")) continue;
            String rest = n.substring(prefix.length() + 1);
            if (!rest.isEmpty() && Character.isDigit(rest.charAt(0))) out.add(n);
        }
        return out;
    }

    static double metric(ParsedLog p, String key) {
        Double v = p.metrics().get(key);
        assertNotNull(v, "metric " + key + " missing from " + p.metrics());
        return v;
    }
}
