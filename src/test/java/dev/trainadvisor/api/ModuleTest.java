package dev.trainadvisor.api;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The module descriptor (src/main/java/module-info.java) on the module path: code outside the module reaches the API
 * and nothing else, and the library works there as on the class path, a team's rules compiled at run time included.
 */
class ModuleTest {
    @TempDir
    Path tmp;

    static String modulePath() throws Exception {
        List<String> mp = new ArrayList<>(List.of(Path.of("target/classes").toString()));
        for (Path j : LibraryClasspath.jars()) mp.add(j.toString());
        return String.join(File.pathSeparator, mp);
    }

    /**
     * Compiles {@code source} as code of the unnamed module that reads the library's module, with nothing on the class
     * path (not this JVM's, which javac would take by default); the diagnostics, or "".
     */
    String compile(String name, String source) throws Exception {
        Path src = tmp.resolve(name + ".java");
        Files.writeString(src, source);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> d = new DiagnosticCollector<>();
        try (StandardJavaFileManager fm = javac.getStandardFileManager(d, null, null)) {
            javac.getTask(null, fm, d, List.of("-d", tmp.toString(), "-cp", tmp.toString(), "--module-path", modulePath(), "--add-modules",
                    "dev.trainadvisor"), null, fm.getJavaFileObjects(src)).call();
        }
        StringBuilder s = new StringBuilder();
        d.getDiagnostics().forEach(x -> s.append(x.getMessage(null)).append('\n'));
        return s.toString();
    }

    LibraryClasspath.Ran run(String mainClass) throws Exception {
        return LibraryClasspath.java(tmp.toString(), List.of("--module-path", modulePath(), "--add-modules", "ALL-MODULE-PATH"),
                mainClass);
    }

    @Test
    void theGuidesExampleRunsOnTheModulePath() throws Exception {
        String block = LibraryDocTest.blocks().get(0);
        assertEquals("", compile("AdviseInternLm", block));
        LibraryClasspath.Ran r = run("AdviseInternLm");
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.err());
        assertTrue(r.out().contains("top diagnosis: intra-node-bandwidth HIGH"), r.out());
        assertTrue(r.out().contains("same advice as the run file: true"), r.out());
    }

    @Test
    void aTeamsRulesCompileAndRunOnTheModulePath() throws Exception {
        assertEquals("", compile("Team", """
                import dev.trainadvisor.api.*;
                import java.nio.file.Path;
                public class Team {
                    public static void main(String[] args) {
                        Run run = TrainAdvisor.readRunFile(Path.of("examples/rules/llama-13b-tp4-fp16.yaml"));
                        for (Advice.Diagnosis d : TrainAdvisor.withRules(Path.of("examples/rules")).advise(run).diagnoses())
                            System.out.println(d.id());
                    }
                }
                """));
        LibraryClasspath.Ran r = run("Team");
        assertEquals(0, r.code(), r.err());
        // examples/rules/team.drl's own diagnosis, beside the shipped rules'
        assertTrue(r.out().lines().toList().contains("tp-without-sequence-parallel"), r.out());
        assertTrue(r.out().lines().toList().contains("intra-node-bandwidth"), r.out());
    }

    @Test
    void theInternalPackagesAreNotExported() throws Exception {
        String errors = compile("Internal", """
                import dev.trainadvisor.spec.RunSpec;
                public class Internal {
                    RunSpec spec;
                }
                """);
        assertTrue(errors.contains("dev.trainadvisor.spec") && errors.contains("does not export"), errors);
    }
}
