package dev.trainadvisor;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * No cycle between the packages of src/main/java: each package's classes use (import, or name fully qualified in code)
 * only packages below it. The graph is package -> package; its strongly connected components (Tarjan) of more than
 * one package are the cycles, each named with the files that close it.
 */
class PackageCycleTest {
    static final Path MAIN = Path.of("src/main/java");
    static final String ROOT = "dev.trainadvisor.";
    /** A reference to a class of the project: dotted lower-case package segments, then a type (or * of an import). */
    static final Pattern REFERENCE = Pattern.compile("\\bdev\\.trainadvisor((?:\\.[a-z_][a-z0-9_]*)+)\\.(?:[A-Z*])");
    static final Pattern PACKAGE = Pattern.compile("(?m)^\\s*package\\s+([\\w.]+)\\s*;");

    /** package -> package it uses -> the first file (in path order) that uses it. */
    static Map<String, Map<String, String>> graph() throws IOException {
        Map<String, Map<String, String>> g = new TreeMap<>();
        List<Path> files;
        try (Stream<Path> s = Files.walk(MAIN)) {
            files = s.filter(p -> p.toString().endsWith(".java") && !p.endsWith("module-info.java")).sorted().toList();
        }
        for (Path f : files) {
            String src = Files.readString(f);
            Matcher pm = PACKAGE.matcher(src);
            assertTrue(pm.find(), f + " has no package line");
            String from = pm.group(1);
            Map<String, String> edges = g.computeIfAbsent(from, k -> new TreeMap<>());
            Matcher m = REFERENCE.matcher(code(src));
            while (m.find()) {
                String to = "dev.trainadvisor" + m.group(1);
                if (!to.equals(from)) edges.putIfAbsent(to, MAIN.relativize(f).toString());
            }
        }
        return g;
    }

    /** The source without comments, string and character literals and text blocks (which may name packages freely). */
    static String code(String src) {
        StringBuilder out = new StringBuilder(src.length());
        int i = 0, n = src.length();
        while (i < n) {
            char c = src.charAt(i);
            if (src.startsWith("//", i)) {
                while (i < n && src.charAt(i) != '\n') i++;
            } else if (src.startsWith("/*", i)) {
                int end = src.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
                out.append(' ');
            } else if (src.startsWith("\"\"\"", i)) {
                int end = i + 3;
                while (end < n && !(src.startsWith("\"\"\"", end) && src.charAt(end - 1) != '\\')) end++;
                i = Math.min(n, end + 3);
                out.append("\"\"");
            } else if (c == '"' || c == '\'') {
                int end = i + 1;
                while (end < n && src.charAt(end) != c && src.charAt(end) != '\n') end += src.charAt(end) == '\\' ? 2 : 1;
                i = Math.min(n, end + 1);
                out.append(c).append(c);
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    /** The strongly connected components of more than one node, each sorted, in sorted order (Tarjan). */
    static List<List<String>> cycles(Map<String, Map<String, String>> g) {
        Tarjan t = new Tarjan(g);
        for (String v : g.keySet()) if (!t.index.containsKey(v)) t.visit(v);
        List<List<String>> out = new ArrayList<>();
        for (List<String> c : t.components) if (c.size() > 1) out.add(new ArrayList<>(new TreeSet<>(c)));
        out.sort((a, b) -> a.get(0).compareTo(b.get(0)));
        return out;
    }

    static final class Tarjan {
        final Map<String, Map<String, String>> g;
        final Map<String, Integer> index = new HashMap<>(), low = new HashMap<>();
        final Deque<String> stack = new ArrayDeque<>();
        final Set<String> onStack = new java.util.HashSet<>();
        final List<List<String>> components = new ArrayList<>();
        int next;

        Tarjan(Map<String, Map<String, String>> g) { this.g = g; }

        void visit(String v) {
            index.put(v, next);
            low.put(v, next);
            next++;
            stack.push(v);
            onStack.add(v);
            for (String w : g.getOrDefault(v, Map.of()).keySet()) {
                if (!index.containsKey(w)) {
                    visit(w);
                    low.put(v, Math.min(low.get(v), low.get(w)));
                } else if (onStack.contains(w)) {
                    low.put(v, Math.min(low.get(v), index.get(w)));
                }
            }
            if (low.get(v).equals(index.get(v))) {
                List<String> c = new ArrayList<>();
                String w;
                do {
                    w = stack.pop();
                    onStack.remove(w);
                    c.add(w);
                } while (!w.equals(v));
                components.add(c);
            }
        }
    }

    /** One cycle through the component's first package, as "a -> b (file) -> a (file)": a shortest one, by BFS. */
    static String name(List<String> component, Map<String, Map<String, String>> g) {
        String start = component.get(0);
        Set<String> in = new TreeSet<>(component);
        Map<String, String> parent = new HashMap<>();
        Deque<String> queue = new ArrayDeque<>(List.of(start));
        String last = null;
        while (!queue.isEmpty() && last == null) {
            String v = queue.poll();
            for (String w : g.getOrDefault(v, Map.of()).keySet()) {
                if (!in.contains(w)) continue;
                if (w.equals(start)) {
                    last = v;
                    break;
                }
                if (!parent.containsKey(w)) {
                    parent.put(w, v);
                    queue.add(w);
                }
            }
        }
        List<String> path = new ArrayList<>();
        for (String v = last; v != null; v = parent.get(v)) path.add(0, v);
        StringBuilder s = new StringBuilder(brief(start));
        for (int k = 0; k < path.size(); k++) {
            String from = path.get(k), to = k + 1 < path.size() ? path.get(k + 1) : start;
            s.append(" -> ").append(brief(to)).append(" (").append(g.get(from).get(to)).append(')');
        }
        return s.toString();
    }

    private static String brief(String pkg) { return pkg.startsWith(ROOT) ? pkg.substring(ROOT.length()) : pkg; }

    @Test
    void noCycleBetweenPackages() throws IOException {
        Map<String, Map<String, String>> g = graph();
        List<String> named = new ArrayList<>();
        for (List<String> c : cycles(g)) named.add(name(c, g));
        assertEquals(List.of(), named, "package cycles (each package -> package with the file that imports it)");
    }

    @Test
    void theScanSeesTheLayering() throws IOException {
        Map<String, Map<String, String>> g = graph();
        // the edges the layering is made of, so that an empty or blind scan cannot pass the test above
        assertTrue(g.get("dev.trainadvisor.assemble").containsKey("dev.trainadvisor.spec"), g.toString());
        assertTrue(g.get("dev.trainadvisor.assemble").containsKey("dev.trainadvisor.ingest"), g.toString());
        assertTrue(g.get("dev.trainadvisor.cli").containsKey("dev.trainadvisor.assemble"), g.toString());
        assertTrue(g.get("dev.trainadvisor.spec").containsKey("dev.trainadvisor.input"), g.toString());
        assertFalse(g.get("dev.trainadvisor.spec").containsKey("dev.trainadvisor.ingest"), "spec reads no log");
        assertFalse(g.get("dev.trainadvisor.ingest").containsKey("dev.trainadvisor.spec"), "ingest builds no run spec");
        assertFalse(g.get("dev.trainadvisor.ingest").containsKey("dev.trainadvisor.assemble"));
    }

    @Test
    void aCycleIsFoundAndNamed() {
        // a -> b -> c -> a with a tail d -> a, and a separate two-cycle x <-> y; e alone
        Map<String, Map<String, String>> g = new TreeMap<>();
        g.put("p.a", Map.of("p.b", "A.java"));
        g.put("p.b", Map.of("p.c", "B.java"));
        g.put("p.c", Map.of("p.a", "C.java", "p.e", "C.java"));
        g.put("p.d", Map.of("p.a", "D.java"));
        g.put("p.e", Map.of());
        g.put("p.x", Map.of("p.y", "X.java"));
        g.put("p.y", Map.of("p.x", "Y.java"));
        List<List<String>> c = cycles(g);
        assertEquals(List.of(List.of("p.a", "p.b", "p.c"), List.of("p.x", "p.y")), c);
        assertEquals("p.a -> p.b (A.java) -> p.c (B.java) -> p.a (C.java)", name(c.get(0), g));
        assertEquals("p.x -> p.y (X.java) -> p.x (Y.java)", name(c.get(1), g));
        assertEquals(List.of(), cycles(Map.of("p.a", Map.of("p.b", "A.java"), "p.b", Map.<String, String>of())));
    }

    @Test
    void commentsAndStringsAreNotReferences() {
        String src = """
                package dev.trainadvisor.x;
                /** {@link dev.trainadvisor.y.Y} */
                class X { String s = "dev.trainadvisor.z.Z"; // dev.trainadvisor.w.W
                  dev.trainadvisor.v.V v; char c = '"'; String t = "dev.trainadvisor.u.U"; }
                """;
        Matcher m = REFERENCE.matcher(code(src));
        List<String> found = new ArrayList<>();
        while (m.find()) found.add(m.group(1));
        assertEquals(List.of(".v"), found);
    }
}
