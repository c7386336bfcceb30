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
import java.util.Set;
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

    static final Path ARCHIVE = Path.of("target/train-advisor.jsa");

    /**
     * The class-data archive the package phase records (pom: exec-maven-plugin, cli.ArchiveTraining) belongs to the jar
     * beside it: with -Xshare:on the JVM refuses to start where it cannot map the archive (another jar, another JVM).
     */
    @Test
    void theArchiveMapsForTheJarBesideIt() throws Exception {
        assumeFresh();
        assertTrue(Files.exists(ARCHIVE), ARCHIVE + ": mvn package records it");
        assertTrue(Files.getLastModifiedTime(ARCHIVE).compareTo(Files.getLastModifiedTime(JAR)) > 0, "archive older than the jar");
        Result r = exec(Map.of(), java(), "-XX:SharedArchiveFile=" + ARCHIVE, "-Xshare:on", "-jar", JAR.toString(), "--version");
        assertEquals(0, r.code(), r.err());
        assertEquals("train-advisor " + Version.of() + "\n", r.out());
    }

    /**
     * bin/train-advisor prints what the build's classes print, with the archive and without it: where the archive is
     * older than the jar, or belongs to another jar, the launcher runs the jar alone and says nothing of it.
     */
    @Test
    void theLauncherPrintsWhatTheBuildsClassesPrint() throws Exception {
        assumeFresh();
        // a copy of the distribution, whose archive was made for another jar (the one in target/) and is newer
        Path copy = distribution(tmp.resolve("copy"), true);
        // the same with its archive older than the jar
        Path stale = distribution(tmp.resolve("stale"), false);
        Map<String, String> env = Map.of("JAVA_HOME", System.getProperty("java.home"));
        for (Path launcher : List.of(Path.of("bin/train-advisor"), copy.resolve("bin/train-advisor"), stale.resolve("bin/train-advisor")))
            for (List<String> args : List.of(List.of("advise", "examples/internlm-7b-pcie-1node.yaml", "--format", "md"),
                    List.of("batch", "examples", "--format", "csv"), List.of("advise", "--fromat", "json"))) {
                CliTest.Result in = CliTest.run(args.toArray(String[]::new));
                List<String> cmd = new ArrayList<>(List.of(launcher.toAbsolutePath().toString()));
                cmd.addAll(args);
                Result r = exec(env, cmd.toArray(String[]::new));
                assertEquals(in.code(), r.code(), launcher + " " + args + ": " + r.err());
                assertEquals(in.out(), r.out(), launcher + " " + args + ": standard output");
                assertEquals(in.err(), r.err(), launcher + " " + args + ": standard error");
            }
    }

    /**
     * bin/train-advisor runs a command that reads a log on the client compiler alone while the log is small, and with
     * both compilers past 32 MiB of it (the launcher's comment has the timings), however the log is named: --log
     * (a file or a folder of one log per rank, as --log X or --log=X), parse's files, a run file's log: (YAML, relative
     * to the run file, quoted and commented; JSON); search and validate on the client compiler, validate --leave-out
     * with both; batch of a folder of at most 3,000 entries and 32 MiB on the client compiler, a larger one with both;
     * no command's heap asked onto transparent huge pages (the launcher's comment has the timings); a batch with both
     * compilers without C2's loop predicates from the profile.
     * The choice is read off the JVM's own account of its options (-XX:+PrintCommandLineFlags, its first line of
     * output); the large logs are files of zeros, which the commands then refuse.
     */
    @Test
    void theLauncherKeepsBothCompilersForLargeInputsAndTheRefits() throws Exception {
        assumeFresh();
        long limit = 32L << 20;
        Path big = tmp.resolve("big.log"), justUnder = tmp.resolve("under.log"), ranks = tmp.resolve("ranks");
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(limit + 1);   // sparse: its size, not its blocks
        }
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(justUnder.toFile(), "rw")) {
            f.setLength(limit);
        }
        Files.createDirectories(ranks);   // a folder's size is its files' blocks (du): written, not sparse
        byte[] mb = new byte[1 << 20];
        try (java.io.OutputStream o = Files.newOutputStream(ranks.resolve("rank0.log"))) {
            for (int i = 0; i <= 32; i++) o.write(mb);
        }
        Files.createDirectories(tmp.resolve("runs"));
        Path yaml = Files.writeString(tmp.resolve("runs/run.yaml"), "name: x\ncluster: dgx-h100\nlog: \"../big.log\"   # the log\n");
        Path json = Files.writeString(tmp.resolve("runs/run.json"), "{\"name\": \"x\", \"cluster\": \"dgx-h100\", \"log\": \"../big.log\"}");
        Path small = Files.writeString(tmp.resolve("runs/small.yaml"), "name: x\ncluster: dgx-h100\nlog: ../under.log\n");
        String readme = "examples/logs/tinyllama-h200-trainer.log";
        Map<List<String>, Boolean> clientAlone = new java.util.LinkedHashMap<>();
        clientAlone.put(List.of("advise", "examples/internlm-7b-pcie-1node.yaml"), true);
        clientAlone.put(List.of("advise", "--log", readme), true);
        clientAlone.put(List.of("parse", readme), true);
        clientAlone.put(List.of("advise", "--log", justUnder.toString()), true);
        clientAlone.put(List.of("advise", small.toString()), true);
        clientAlone.put(List.of("advise", "--log", big.toString()), false);
        clientAlone.put(List.of("advise", "--log=" + big), false);
        clientAlone.put(List.of("advise", "--log", ranks.toString()), false);
        clientAlone.put(List.of("parse", big.toString()), false);
        clientAlone.put(List.of("advise", yaml.toString()), false);
        clientAlone.put(List.of("advise", json.toString()), false);
        clientAlone.put(List.of("search", "examples/internlm-7b-pcie-1node.yaml"), true);
        // batch: a folder of at most 3,000 entries and 32 MiB on the client compiler; not counting a --rules folder
        Path many = Files.createDirectories(tmp.resolve("many"));
        for (int i = 0; i <= 3000; i++) Files.createFile(many.resolve("run-" + i + ".yaml"));   // empty: skipped
        clientAlone.put(List.of("batch", "examples/runs", "--format", "csv"), true);
        clientAlone.put(List.of("batch", "--format", "csv", many.toString()), false);
        clientAlone.put(List.of("batch", ranks.toString(), "--format", "csv"), false);
        clientAlone.put(List.of("batch", "examples/runs", "--rules", ranks.toString(), "--format", "csv"), true);
        // of a folder that is not there: the launcher chooses before the command refuses it, and no refit runs
        String none = tmp.resolve("no-such-runs").toString();
        clientAlone.put(List.of("validate", none), true);
        clientAlone.put(List.of("validate", "--leave-out", "source", none), false);
        clientAlone.put(List.of("validate", "--leave-out=source", none), false);
        // batch of 3,001 to 40,000 entries: both compilers, what a run calls once left to C1 (the directives file)
        Path most = Files.createDirectories(tmp.resolve("most"));
        for (int i = 0; i <= 40_000; i++) Files.createFile(most.resolve("run-" + i + ".yaml"));
        clientAlone.put(List.of("batch", "--format", "csv", most.toString()), false);
        Set<List<String>> directives = Set.of(List.of("batch", "--format", "csv", many.toString()),
                List.of("batch", ranks.toString(), "--format", "csv"));
        Map<String, String> env = Map.of("JAVA_HOME", System.getProperty("java.home"),
                "TRAIN_ADVISOR_JAVA_OPTS", "-XX:+UnlockDiagnosticVMOptions -XX:+PrintCommandLineFlags -XX:+DisplayVMOutput");
        clientAlone.forEach((args, alone) -> {
            List<String> cmd = new ArrayList<>(List.of(Path.of("bin/train-advisor").toAbsolutePath().toString()));
            cmd.addAll(args);
            try {
                Result r = exec(env, cmd.toArray(String[]::new));
                String flags = r.out().lines().findFirst().orElse("");
                assertEquals(alone, flags.contains("-XX:TieredStopAtLevel=1"), args + ": " + flags);
                // no heap asked onto transparent huge pages: their faults cost a batch after a pause seconds of system time
                assertFalse(flags.contains("-XX:+UseTransparentHugePages"), args + ": " + flags);
                // a batch with both compilers predicates no loop from its profile; a command on C1 alone has no C2
                assertEquals(!alone && args.get(0).equals("batch"), flags.contains("-XX:-UseProfiledLoopPredicate"),
                        args + ": " + flags);
                boolean directed = directives.contains(args);
                assertEquals(directed, flags.contains("-XX:CompilerDirectivesFile=" + DIRECTIVES.toAbsolutePath()), args + ": " + flags);
                // the JVM's own line, which the launcher keeps off standard output (here the user's option brings it back)
                assertEquals(directed, r.out().contains("1 compiler directives added"), args + ": " + r.out());
            } catch (Exception e) {
                throw new AssertionError(args.toString(), e);
            }
        });
    }

    static final Path DIRECTIVES = Path.of("bin/batch-compiler-directives.json");

    /**
     * The compiler directives the launcher gives a large batch: every name matches a class of the jar (a relocated
     * library's under its relocated name) or of the JDK that runs the test (its java.base) and, where it names a method
     * rather than all of them ("*"), a method of that class; a class named "*" stands for a package's classes, and the
     * package must hold some. And the JVM takes the file (it refuses to start on one it cannot parse) without a word on
     * standard output where the launcher's options keep the VM's own output off, as a report may be written there.
     */
    @Test
    void theBatchDirectivesNameTheJarsClassesAndKeepStandardOutputClean() throws Exception {
        assumeFresh();
        String text = Files.readString(DIRECTIVES);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"([^\"]+)\"").matcher(
                text.replaceAll("(?m)//.*$", ""));
        List<String> names = new ArrayList<>();
        while (m.find()) names.add(m.group(1));
        assertTrue(names.size() >= 10, "the directives name the classes they leave to C1: " + names);
        java.nio.file.FileSystem jrt = java.nio.file.FileSystems.getFileSystem(java.net.URI.create("jrt:/"));
        try (java.util.jar.JarFile jar = new java.util.jar.JarFile(JAR.toFile())) {
            for (String name : names) {
                int dot = name.lastIndexOf('.');
                String cls = name.substring(0, dot), method = name.substring(dot + 1);
                if (cls.endsWith("/*")) {
                    String pkg = cls.substring(0, cls.length() - 1);
                    boolean held = Files.isDirectory(jrt.getPath("modules", "java.base", pkg))
                            || jar.stream().anyMatch(e -> e.getName().startsWith(pkg)
                                    && e.getName().endsWith(".class"));
                    assertTrue(held, name + ": no package " + pkg + " in " + JAR + " or the JDK's java.base");
                    assertEquals("*", method, name + ": a package's classes are named with every method");
                    continue;
                }
                boolean jdk = jar.getEntry(cls + ".class") == null;
                assertTrue(!jdk || Files.exists(jrt.getPath("modules", "java.base", cls + ".class")),
                        name + ": no class " + cls + " in " + JAR + " or the JDK's java.base");
                if (method.equals("*")) continue;
                assertFalse(cls.startsWith("dev/trainadvisor/shaded/"), name + ": a library's method is named by its class alone");
                Class<?> c = Class.forName(cls.replace('/', '.'), false, jdk ? null : getClass().getClassLoader());
                assertTrue(java.util.Arrays.stream(c.getDeclaredMethods()).anyMatch(x -> x.getName().equals(method)),
                        name + ": " + cls + " has no method " + method);
            }
        }
        Result r = exec(Map.of(), java(), "-XX:+UnlockDiagnosticVMOptions", "-XX:-DisplayVMOutput",
                "-XX:CompilerDirectivesFile=" + DIRECTIVES, "-jar", JAR.toString(), "--version");
        assertEquals(0, r.code(), r.err());
        assertEquals("train-advisor " + Version.of() + "\n", r.out());
    }

    /** bin/ and target/ of this build copied to {@code dir}, the archive a minute newer than the copied jar, or older. */
    static Path distribution(Path dir, boolean archiveNewer) throws IOException {
        Files.createDirectories(dir.resolve("bin"));
        Files.createDirectories(dir.resolve("target"));
        Files.copy(Path.of("bin/train-advisor"), dir.resolve("bin/train-advisor"));
        Files.copy(DIRECTIVES, dir.resolve(DIRECTIVES));
        assertTrue(dir.resolve("bin/train-advisor").toFile().setExecutable(true));
        Files.copy(JAR, dir.resolve("target/train-advisor.jar"));
        Files.copy(ARCHIVE, dir.resolve("target/train-advisor.jsa"));
        long jar = Files.getLastModifiedTime(dir.resolve("target/train-advisor.jar")).toMillis();
        Files.setLastModifiedTime(dir.resolve("target/train-advisor.jsa"), FileTime.fromMillis(archiveNewer ? jar + 60_000 : 0));
        return dir;
    }

    record Result(int code, String out, String err) {}

    static String java() { return Path.of(System.getProperty("java.home"), "bin", "java").toString(); }

    Result exec(Map<String, String> env, String... cmd) throws Exception {
        Path out = tmp.resolve("exec.out"), err = tmp.resolve("exec.err");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), List.of(cmd) + " did not end");
        return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
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
