package dev.trainadvisor.api;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Every {@code java} block of docs/library.md compiles against the library alone (its imports name only
 * dev.trainadvisor.api and java.*; no warning with -Xlint:all) and runs in a JVM of its own on the class path a library
 * user gets (bench/library-classpath.sh: no picocli, no SLF4J provider), writing nothing on standard error; what the
 * guide's example prints is checked against numbers worked out here by hand.
 */
class LibraryDocTest {
    static final Path GUIDE = Path.of("docs/library.md");
    static final Pattern BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
    static final Pattern IMPORT = Pattern.compile("(?m)^\\s*import\\s+(static\\s+)?([\\w.]+(?:\\.\\*)?)\\s*;");
    static final Pattern CLASS = Pattern.compile("(?m)^public\\s+(?:final\\s+)?class\\s+(\\w+)");

    @TempDir
    Path tmp;

    static final Path README = Path.of("README.md");
    /** A statement printing one value, with the value it prints as its comment: {@code println(...);   // 1.99}. */
    static final Pattern PRINTS = Pattern.compile("(?m)System\\.out\\.println\\(.*\\);\\s*// (.+)$");

    static List<String> blocks() throws Exception {
        List<String> out = new ArrayList<>();
        Matcher m = BLOCK.matcher(Files.readString(GUIDE));
        while (m.find()) out.add(m.group(1));
        return out;
    }

    /** The java block of the README's section "As a library". */
    static String readmeBlock() throws Exception {
        String text = Files.readString(README);
        int at = text.indexOf("\n## As a library\n");
        assertTrue(at >= 0, "README.md has no section \"As a library\"");
        int next = text.indexOf("\n## ", at + 1);
        Matcher m = BLOCK.matcher(next < 0 ? text.substring(at) : text.substring(at, next));
        assertTrue(m.find(), "README.md's section \"As a library\" has no java block");
        return m.group(1);
    }

    /**
     * The README's snippet compiles against the api package alone, runs quietly, and prints what its comments say, line
     * for line: the comments are the library's current answers for the README's first example, whose top diagnosis
     * the maintainers of InternLM issue 22 found (PCIe between the GPUs).
     */
    @Test
    void theReadmeSnippetCompilesAgainstTheApiAloneAndPrintsWhatItsCommentsSay() throws Exception {
        String block = readmeBlock();
        String out = compileAndRun(block, "README.md");
        List<String> said = new ArrayList<>();
        Matcher c = PRINTS.matcher(block);
        while (c.find()) said.add(c.group(1).strip());
        assertFalse(said.isEmpty(), "the README's snippet prints nothing it states");
        assertEquals(said, out.lines().map(String::strip).toList(), "what the README's snippet prints");
        assertEquals("intra-node-bandwidth", said.get(0));
    }

    /** Compiles a block (imports of api and java.* only, no warning) and runs it in a JVM of its own; its stdout. */
    private String compileAndRun(String block, String where) throws Exception {
        String cp = LibraryClasspath.classPath();
        Matcher im = IMPORT.matcher(block);
        while (im.find()) {
            String imported = im.group(2);
            assertTrue(imported.startsWith("java.") || imported.startsWith("dev.trainadvisor.api."),
                    where + " imports " + imported + ": a library user's code needs only dev.trainadvisor.api and java.*");
        }
        Matcher cm = CLASS.matcher(block);
        assertTrue(cm.find(), "a java block of " + where + " declares no public class:\n" + block);
        String name = cm.group(1);
        Path src = tmp.resolve(name + ".java");
        Files.writeString(src, block);
        compile(src, cp);
        LibraryClasspath.Ran r = LibraryClasspath.java(LibraryClasspath.classPath(tmp), List.of(), name);
        assertEquals(0, r.code(), name + " failed:\n" + r.out() + r.err());
        assertEquals("", r.err(), name + " wrote on standard error");
        return r.out();
    }

    @Test
    void everyJavaBlockCompilesAgainstTheApiAloneAndRunsQuietly() throws Exception {
        List<String> blocks = blocks();
        assertFalse(blocks.isEmpty(), "docs/library.md has no java block");
        for (String block : blocks) {
            String out = compileAndRun(block, "docs/library.md");
            if (block.contains("class AdviseInternLm")) checkInternLm(out);
        }
    }

    /** Compiles with -Xlint:all against the built classes and the library's class path: no error, no warning. */
    private void compile(Path src, String cp) throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> d = new DiagnosticCollector<>();
        try (StandardJavaFileManager fm = javac.getStandardFileManager(d, null, null)) {
            boolean ok = javac.getTask(null, fm, d, List.of("-Xlint:all", "-Werror", "-d", tmp.toString(), "-cp", cp), null,
                    fm.getJavaFileObjects(src)).call();
            StringBuilder s = new StringBuilder();
            for (Diagnostic<? extends JavaFileObject> x : d.getDiagnostics()) s.append(x).append('\n');
            assertTrue(ok && d.getDiagnostics().isEmpty(), src.getFileName() + " does not compile cleanly:\n" + s);
        }
    }

    /**
     * The guide's example: InternLM-7B on one node of 8 A100 PCIe GPUs, the maintainers' run of InternLM issue 22
     * (2231.46 tokens a GPU a second; PCIe, not the GPUs, held it back).
     */
    private static void checkInternLm(String out) {
        // the cause: the intra-node link (PCIe4), as the README's motivating case and the maintainers found it
        assertTrue(out.contains("top diagnosis: intra-node-bandwidth HIGH"), out);
        // the remedy for it: NVLink between the GPUs, predicted to gain
        Matcher best = Pattern.compile("best change: nvlink-nodes x(\\d+\\.\\d+) ").matcher(out);
        assertTrue(best.find(), out);
        assertTrue(Double.parseDouble(best.group(1)) > 1.0, out);

        // FLOPs a token, by hand (Megatron's count, which train-advisor's house count is): 6 x (the matmul weights of
        // 32 layers of 4 h^2 attention and 3 h ffn gated MLP, and the h x V output layer) + 12 L s h for attention
        long l = 32, h = 4096, ffn = 11008, v = 103168, s = 2048;
        double flopsPerToken = 6.0 * (l * (4 * h * h + 3 * h * ffn) + h * v) + 12.0 * l * s * h;
        assertEquals(44_612_714_496.0, flopsPerToken);
        double tokens = 2231.46;
        double tflops = tokens * flopsPerToken / 1e12;   // 99.55
        double mfu = tflops / 312;                       // A100 dense bf16 peak, NVIDIA's datasheet
        double step = 2 * 4 * 2048 / tokens;             // micro_batch_size x micro_batches x seq_len a GPU a step
        Matcher measured = Pattern.compile("measured: (\\S+) TFLOPS, MFU (\\S+), step (\\S+) s").matcher(out);
        assertTrue(measured.find(), out);
        assertEquals(tflops, Double.parseDouble(measured.group(1)), 0.005, out);
        assertEquals(mfu, Double.parseDouble(measured.group(2)), 0.00005, out);
        assertEquals(step, Double.parseDouble(measured.group(3)), 0.00005, out);

        // the run built in code is the run of examples/internlm-7b-pcie-1node.yaml: the same advice, byte for byte
        assertTrue(out.contains("same advice as the run file: true"), out);
        assertTrue(out.contains("report: # train-advisor: internlm-7b-pcie-1node"), out);
    }

    /**
     * SLF4J is quiet because the library sets slf4j.internal.verbosity (and nothing else is): a user who asks for
     * SLF4J's warnings gets them, so the quiet above is not an accident of the class path.
     */
    @Test
    void slf4jWarnsWhenTheUserAsksForItsWarnings() throws Exception {
        Path src = tmp.resolve("Quiet.java");
        Files.writeString(src, """
                import dev.trainadvisor.api.TrainAdvisor;
                public class Quiet {
                    public static void main(String[] args) {
                        TrainAdvisor.create();
                        System.out.println(System.getProperty("slf4j.internal.verbosity"));
                    }
                }
                """);
        compile(src, LibraryClasspath.classPath());
        LibraryClasspath.Ran quiet = LibraryClasspath.java(LibraryClasspath.classPath(tmp), List.of(), "Quiet");
        assertEquals("", quiet.err());
        assertEquals("ERROR", quiet.out().strip());
        LibraryClasspath.Ran loud = LibraryClasspath.java(LibraryClasspath.classPath(tmp),
                List.of("-Dslf4j.internal.verbosity=WARN"), "Quiet");
        assertTrue(loud.err().contains("No SLF4J providers were found"), loud.err());
        assertEquals("WARN", loud.out().strip());
    }
}
