package dev.trainadvisor.api;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The library as a user's build sees it: the runtime class path Maven gives a project that depends on train-advisor
 * (bench/library-classpath.sh resolves it, offline), and a JVM forked on it with this build's classes.
 */
final class LibraryClasspath {
    private LibraryClasspath() {}

    static final Path FILE = Path.of("target/library-classpath.txt");
    private static List<Path> jars;

    /** The jars, resolved once a test run (again when the pom is newer than the last resolution). */
    static synchronized List<Path> jars() throws IOException, InterruptedException {
        if (jars != null) return jars;
        if (!Files.exists(FILE) || Files.getLastModifiedTime(FILE).compareTo(Files.getLastModifiedTime(Path.of("pom.xml"))) < 0) {
            Process p = new ProcessBuilder("bash", "bench/library-classpath.sh", FILE.toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0)
                throw new IllegalStateException("bench/library-classpath.sh failed:\n" + out);
        }
        List<Path> out = new ArrayList<>();
        for (String s : Files.readString(FILE).strip().split(":")) if (!s.isEmpty()) out.add(Path.of(s));
        jars = List.copyOf(out);
        return jars;
    }

    /** This build's classes, then the library's dependencies. */
    static String classPath(Path... first) throws IOException, InterruptedException {
        List<String> cp = new ArrayList<>();
        for (Path p : first) cp.add(p.toString());
        cp.add(Path.of("target/classes").toString());
        for (Path j : jars()) cp.add(j.toString());
        return String.join(java.io.File.pathSeparator, cp);
    }

    record Ran(int code, String out, String err) {}

    /** Runs {@code mainClass} in a JVM of its own on {@code classPath}, from the repository's root. */
    static Ran java(String classPath, List<String> jvmOptions, String mainClass) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add(mainClass);
        Path out = Files.createTempFile("lib-out", ".txt"), err = Files.createTempFile("lib-err", ".txt");
        try {
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(mainClass + " did not end in 300 s");
            }
            return new Ran(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
