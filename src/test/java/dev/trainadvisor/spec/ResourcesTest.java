package dev.trainadvisor.spec;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Resources reads the data files from the folder or jar its class came from rather than through the class loader (why:
 * {@link Resources#open}); what it reads is what the class loader gives, file for file. The jar's side is held by
 * RunnableJarTest, whose commands read every data file from the runnable jar.
 */
class ResourcesTest {
    @Test
    void everyDataFileReadsAsTheClassLoaderGivesIt() throws IOException {
        List<String> names = new ArrayList<>();
        for (String dir : List.of("knowledge-base", "knowledge-base/frameworks", "knowledge-base/reference-runs", "model"))
            names.addAll(Resources.list(dir, ".json"));
        names.addAll(Resources.list("rules", ".drl"));
        assertTrue(names.size() > 40, "data files listed: " + names.size());
        for (String name : names) {
            assertTrue(Resources.exists(name), name);
            byte[] ours, loaders;
            try (InputStream in = Resources.open(name)) { ours = in.readAllBytes(); }
            try (InputStream in = ResourcesTest.class.getClassLoader().getResourceAsStream(name)) { loaders = in.readAllBytes(); }
            assertTrue(loaders.length > 0, name);
            assertArrayEquals(loaders, ours, name);
        }
    }

    /**
     * The build's index of the data files (src/build/DataIndex.java, from which the runnable jar's folders are listed)
     * names every file under knowledge-base/, model/ and rules/ of the classes folder, and nothing else.
     */
    @Test
    void theBuildsIndexListsEveryDataFile() throws IOException {
        java.nio.file.Path classes = java.nio.file.Path.of("target/classes");
        List<String> index = java.nio.file.Files.readAllLines(classes.resolve(Resources.DATA_INDEX));
        List<String> walked = new ArrayList<>();
        for (String top : List.of("knowledge-base", "model", "rules"))
            try (java.util.stream.Stream<java.nio.file.Path> s = java.nio.file.Files.walk(classes.resolve(top))) {
                s.filter(java.nio.file.Files::isRegularFile).forEach(p -> walked.add(classes.relativize(p).toString().replace('\\', '/')));
            }
        walked.sort(null);
        assertTrue(walked.size() > 40, "data files: " + walked.size());
        assertEquals(walked, index);
        assertTrue(index.contains("rules/faults.drl") && index.contains("knowledge-base/frameworks/megatron-lm.json"), "" + index);
    }

    @Test
    void aMissingFileIsNamed() {
        assertFalse(Resources.exists("knowledge-base/no-such-file.json"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Resources.open("knowledge-base/no-such-file.json"));
        assertEquals("missing resource on the classpath: knowledge-base/no-such-file.json", e.getMessage());
    }
}
