package dev.trainadvisor.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The runnable jar (target/train-advisor.jar, shaded with its dependencies relocated under dev.trainadvisor.shaded):
 * only Drools' and KIE's classes stay where they were (the pom says why), and the jar's commands, a team's rules
 * compiled at run time among them, print byte for byte what the same commands print from the build's classes. Run by
 * the pom at the package phase, after the jar is built ({@code mvn package}); from {@code mvn test} it is skipped.
 */
class RunnableJarTest {
    static final Path JAR = Path.of("target/train-advisor.jar");

    @TempDir
    Path tmp;

    @Test
    void onlyDroolsAndKieAreLeftUnrelocated() throws IOException {
        assumeFresh();
        Map<String, Integer> unrelocated = new TreeMap<>();
        int relocated = 0;
        try (JarFile jar = new JarFile(JAR.toFile())) {
            for (JarEntry e : Collections.list(jar.entries())) {
                String n = e.getName();
                if (!n.endsWith(".class") || n.startsWith("dev/trainadvisor/") && !n.startsWith("dev/trainadvisor/shaded/")) continue;
                if (n.startsWith("dev/trainadvisor/shaded/")) relocated++;
                else unrelocated.merge(n.substring(0, n.indexOf('/', n.indexOf('/') + 1) + 1), 1, Integer::sum);
            }
        }
        assertEquals(List.of("org/drools/", "org/kie/"), new ArrayList<>(unrelocated.keySet()), unrelocated.toString());
        assertTrue(relocated > 1000, "relocated " + relocated);
        for (String moved : List.of("com/fasterxml/jackson/databind/ObjectMapper", "org/yaml/snakeyaml/Yaml",
                "org/apache/commons/math3/util/FastMath", "picocli/CommandLine", "org/mvel2/MVEL",
                "org/eclipse/jdt/internal/compiler/Compiler", "org/slf4j/LoggerFactory"))
            try (JarFile jar = new JarFile(JAR.toFile())) {
                assertNotNull(jar.getEntry("dev/trainadvisor/shaded/" + moved + ".class"), moved);
                assertNull(jar.getEntry(moved + ".class"), moved);
            }
    }

    @Test
    void theJarPrintsWhatTheBuildsClassesPrint() throws Exception {
        assumeFresh();
        Path mvel = tmp.resolve("mvel");
        Files.createDirectories(mvel);
        // the team's rules again in the mvel dialect: MVEL, relocated, compiles them at run time
        Files.writeString(mvel.resolve("team.drl"), Files.readString(Path.of("examples/rules/team.drl"))
                .replaceFirst("(?m)^package (.*)$", "package $1\ndialect \"mvel\""));
        Path broken = tmp.resolve("broken");
        Files.createDirectories(broken);
        Files.writeString(broken.resolve("broken.drl"), """
                package rules;
                import dev.trainadvisor.facts.*;
                rule "broken"
                when
                  $s : StepFact( nosuchfield > 1 )
                then
                end
                """);
        String rulesRun = "examples/rules/llama-13b-tp4-fp16.yaml";
        List<List<String>> commands = List.of(
                List.of("advise", "examples/internlm-7b-pcie-1node.yaml"),
                List.of("advise", "--rules", "examples/rules", rulesRun),
                List.of("advise", "--rules", mvel.toString(), "--format", "md", rulesRun),
                List.of("advise", "--rules", broken.toString(), rulesRun),
                List.of("batch", "examples", "--format", "csv"),
                List.of("advise", "--fromat", "json"));
        for (List<String> args : commands) {
            CliTest.Result in = CliTest.run(args.toArray(String[]::new));
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-jar", JAR.toString()));
            cmd.addAll(args);
            Path out = tmp.resolve("out"), err = tmp.resolve("err");
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            assertTrue(p.waitFor(300, TimeUnit.SECONDS), args + " did not end");
            assertEquals(in.code(), p.exitValue(), args + ": " + Files.readString(err));
            assertEquals(in.out(), Files.readString(out), args + ": standard output");
            assertEquals(in.err(), Files.readString(err), args + ": standard error");
        }
    }

    /** The jar was built from the classes now in target/classes (mvn package), not left by an older build. */
    static void assumeFresh() throws IOException {
        assumeTrue(Files.exists(JAR), "no " + JAR + ": run mvn package");
        FileTime built = Files.getLastModifiedTime(JAR);
        FileTime newest;
        try (Stream<Path> s = Files.walk(Path.of("target/classes/dev/trainadvisor"))) {
            newest = s.filter(Files::isRegularFile).map(p -> {
                try {
                    return Files.getLastModifiedTime(p);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).max(FileTime::compareTo).orElseThrow();
        }
        assumeTrue(built.compareTo(newest) >= 0, JAR + " is older than target/classes: run mvn package");
    }
}
