package dev.trainadvisor.api;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The library's boundary: its users get the dependencies it needs and not the command line's (picocli), nothing the API
 * can reach names picocli or the command line, only package cli imports picocli, and every package but api says in its
 * package-info that it is internal.
 */
class ApiBoundaryTest {
    static final Path MAIN = Path.of("src/main/java/dev/trainadvisor");
    static final Path CLASSES = Path.of("target/classes");

    @Test
    void aLibraryUserGetsNoPicocli() throws Exception {
        List<String> jars = new ArrayList<>();
        for (Path j : LibraryClasspath.jars()) jars.add(j.getFileName().toString());
        assertTrue(jars.stream().noneMatch(j -> j.startsWith("picocli")), jars.toString());
        // and what the library does need is there: the rules engine, run files, the fit
        for (String needed : List.of("drools-core-", "drools-mvel-", "drools-model-compiler-", "jackson-databind-",
                "jackson-dataformat-yaml-", "commons-math3-"))
            assertTrue(jars.stream().anyMatch(j -> j.startsWith(needed)), needed + " missing from " + jars);
        // while the command line's own build has picocli
        assertNotNull(Class.forName("picocli.CommandLine"));
    }

    @Test
    void onlyTheCommandLineImportsPicocli() throws IOException {
        Pattern use = Pattern.compile("(?m)^(?!\\s*(//|\\*|/\\*)).*\\bpicocli\\.");
        List<String> outside = new ArrayList<>();
        int inCli = 0;
        try (Stream<Path> s = Files.walk(MAIN)) {
            for (Path f : s.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                if (!use.matcher(Files.readString(f)).find()) continue;
                if (f.startsWith(MAIN.resolve("cli"))) inCli++;
                else outside.add(f.toString());
            }
        }
        assertEquals(List.of(), outside);
        assertTrue(inCli > 0, "the scan finds picocli where it is");
    }

    /**
     * From the API's classes, every class of train-advisor they name (in their constant pools: references, descriptors,
     * signatures), and every class those name, and so on: none is in package cli, and none names picocli, so no call a
     * library user can make loads it. An over-approximation of what can load, which is what makes it safe.
     */
    @Test
    void nothingTheApiReachesNamesPicocliOrTheCommandLine() throws IOException {
        Map<String, String> reached = reachableFromApi();
        assertTrue(reached.containsKey("dev/trainadvisor/engine/RuleEngine"), "the scan follows the API into the engine");
        List<String> bad = new ArrayList<>();
        for (String c : reached.keySet())
            if (c.startsWith("picocli/") || c.startsWith("dev/trainadvisor/cli/")) bad.add(chain(reached, c));
        assertEquals(List.of(), bad);
    }

    @Test
    void everyPackageButTheApiSaysItIsInternal() throws IOException {
        List<String> missing = new ArrayList<>();
        try (Stream<Path> s = Files.list(MAIN)) {
            for (Path dir : s.filter(Files::isDirectory).sorted().toList()) {
                Path info = dir.resolve("package-info.java");
                String name = dir.getFileName().toString();
                if (!Files.exists(info)) {
                    missing.add(name + ": no package-info.java");
                    continue;
                }
                boolean internal = Files.readString(info).contains("<b>Internal.</b>");
                if (name.equals("api") == internal) missing.add(name + (internal ? ": the API marked internal" : ": not marked internal"));
            }
        }
        assertEquals(List.of(), missing);
    }

    /** Class name (internal form) to the class that first named it; the API's own classes to null. */
    static Map<String, String> reachableFromApi() throws IOException {
        Map<String, String> via = new LinkedHashMap<>();
        Deque<String> todo = new ArrayDeque<>();
        try (Stream<Path> s = Files.list(CLASSES.resolve("dev/trainadvisor/api"))) {
            for (Path p : s.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
                String c = CLASSES.relativize(p).toString().replace('\\', '/').replace(".class", "");
                via.put(c, null);
                todo.add(c);
            }
        }
        Pattern named = Pattern.compile("(dev/trainadvisor/[\\w/$]+|picocli/[\\w/$]+)");
        while (!todo.isEmpty()) {
            String c = todo.poll();
            Path f = CLASSES.resolve(c + ".class");
            if (!Files.exists(f)) continue;
            for (String u : utf8Constants(f)) {
                Matcher m = named.matcher(u);
                while (m.find())
                    // a name that ends in '/' is a package's, as a string (RuleFileCheck's refused packages), not a class
                    if (!m.group(1).endsWith("/") && !via.containsKey(m.group(1))) {
                        via.put(m.group(1), c);
                        todo.add(m.group(1));
                    }
            }
        }
        return via;
    }

    static String chain(Map<String, String> via, String c) {
        StringBuilder s = new StringBuilder(c);
        for (String x = via.get(c); x != null; x = via.get(x)) s.append(" <- ").append(x);
        return s.toString();
    }

    /** The UTF-8 constants of a class file's constant pool (JVMS 4.4): class names, descriptors, signatures, strings. */
    static List<String> utf8Constants(Path classFile) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(Files.readAllBytes(classFile)));
        if (in.readInt() != 0xCAFEBABE) throw new IOException(classFile + " is not a class file");
        in.readUnsignedShort();
        in.readUnsignedShort();
        int n = in.readUnsignedShort();
        List<String> out = new ArrayList<>();
        for (int i = 1; i < n; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> out.add(in.readUTF());
                case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt();
                case 5, 6 -> {
                    in.readLong();
                    i++;   // a long or a double takes two entries
                }
                case 7, 8, 16, 19, 20 -> in.readUnsignedShort();
                case 15 -> {
                    in.readUnsignedByte();
                    in.readUnsignedShort();
                }
                default -> throw new IOException(classFile + ": constant pool tag " + tag);
            }
        }
        return out;
    }
}
