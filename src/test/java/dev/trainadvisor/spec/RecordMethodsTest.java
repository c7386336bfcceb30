package dev.trainadvisor.spec;

import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.advice.TrainAdvisor;
import dev.trainadvisor.assemble.RunFiles;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The records that write out their equals and hashCode (why: {@link dev.trainadvisor.spec}) behave as the ones Java
 * generates. Every such record of the main code is found by reflection, so one written out later is held too; the
 * oracle is the generated methods' definition (java.lang.Record's contract, with JDK 17's hash, 31 times the hashes in
 * component order from 0), itself checked against a record whose methods Java generates. Instances come from every
 * run file of the examples and the tests and from their advice; each component is then changed alone, to values of
 * the other instances and to edge values (NaN, -0.0 and 0.0, null, another constant), so that a component left out of
 * a written-out equals, or compared by == rather than equals, or a double by == rather than Double.compare, fails.
 */
class RecordMethodsTest {

    /** Records with generated methods, to check the oracle against. */
    record Generated(int i, long l, double d, float f, boolean b, char c, String s, List<Integer> list) {}

    record GeneratedNested(Generated inner, double d) {}

    @Test
    void theOracleIsJavasGeneratedEqualsAndHashCode() {
        List<Object> values = new ArrayList<>();
        for (double d : new double[]{0.0, -0.0, Double.NaN, 1.5})
            for (String s : new String[]{null, "a", new String("a")})
                values.add(new Generated(3, -7L, d, -0.0f, true, 'x', s, s == null ? null : List.of(1, 2)));
        values.add(new Generated(4, -7L, 1.5, 0.0f, false, 'y', "b", List.of()));
        for (Object a : values) {
            assertEquals(a.hashCode(), hash(a), a.toString());
            for (Object b : values) assertEquals(a.equals(b), equal(a, b), a + " and " + b);
            GeneratedNested n = new GeneratedNested((Generated) a, 2.0);
            assertEquals(n.hashCode(), hash(n));
        }
    }

    @Test
    void writtenOutEqualsAndHashCodeAreTheGeneratedOnes() throws Exception {
        List<Class<?>> writtenOut = writtenOutRecords();
        // the records the cold start measured (spec, the facts, the layout keys) at least
        for (String name : List.of("dev.trainadvisor.spec.Model", "dev.trainadvisor.spec.Training",
                "dev.trainadvisor.spec.Cluster", "dev.trainadvisor.facts.Diagnosis", "dev.trainadvisor.perf.StepModel$PiecesKey"))
            assertTrue(writtenOut.stream().anyMatch(c -> c.getName().equals(name)), name + " writes out its methods");
        Map<Class<?>, List<Object>> pool = instances();
        List<String> untested = new ArrayList<>();
        int pairs = 0;
        for (Class<?> type : writtenOut) {
            List<Object> seeds = pool.getOrDefault(type, List.of());
            if (seeds.isEmpty()) {
                Object made = make(type, pool, 0);
                if (made != null) seeds = List.of(made);
            }
            if (seeds.isEmpty()) {
                untested.add(type.getName() + " (no instance)");
                continue;
            }
            RecordComponent[] rc = type.getRecordComponents();
            boolean[] separated = new boolean[rc.length];
            for (Object a : seeds.subList(0, Math.min(seeds.size(), 6))) {
                assertEquals(hash(a), a.hashCode(), type.getName() + ": hashCode of " + a);
                Object copy = rebuild(type, a, -1, null);
                assertTrue(copy != a && a.equals(copy) && copy.equals(a), type.getName() + ": equals an equal copy");
                assertEquals(a.hashCode(), copy.hashCode(), type.getName() + ": an equal copy's hash");
                for (int k = 0; k < rc.length; k++) {
                    List<Object> vs = variants(rc[k].getType(), value(rc[k], a), pool);
                    vs.addAll(lists(rc[k], pool));
                    List<Object> made = new ArrayList<>();
                    for (Object v : vs) {
                        Object b = rebuild(type, a, k, v);
                        if (b == null) continue;   // refused by the record's constructor
                        for (Object c : made) {
                            // the changed ones between them: NaN and NaN are equal, 0.0 and -0.0 are not
                            assertEquals(equal(b, c), b.equals(c), type.getName() + "." + rc[k].getName() + ": " + b + " and " + c);
                            pairs++;
                        }
                        made.add(b);
                        boolean expected = equal(a, b);
                        assertEquals(expected, a.equals(b), type.getName() + "." + rc[k].getName() + ": equals, changed to " + v);
                        assertEquals(expected, b.equals(a), type.getName() + "." + rc[k].getName() + ": equals, reversed");
                        assertEquals(hash(b), b.hashCode(), type.getName() + "." + rc[k].getName() + ": hashCode, changed to " + v);
                        separated[k] |= !expected;
                        pairs++;
                    }
                }
                for (Object b : seeds) {
                    assertEquals(equal(a, b), a.equals(b), type.getName() + ": " + a + " and " + b);
                    pairs++;
                }
                assertEquals(false, a.equals(null), type.getName() + ": equals null");
                assertEquals(false, a.equals("x"), type.getName() + ": equals another type");
            }
            for (int k = 0; k < rc.length; k++)
                if (!separated[k]) untested.add(type.getName() + "." + rc[k].getName() + " (never changed alone)");
        }
        assertTrue(untested.isEmpty(), "not held: " + untested);
        assertTrue(pairs > 1000, "pairs compared: " + pairs);
    }

    // ---------------------------------------------------------------- the oracle

    /** The generated equals: the same record class, and each component equal as its wrapper's compare or equals says. */
    static boolean equal(Object a, Object b) {
        if (b == null || a.getClass() != b.getClass()) return false;
        for (RecordComponent c : a.getClass().getRecordComponents()) {
            Object x = value(c, a), y = value(c, b);
            Class<?> t = c.getType();
            boolean same = t == double.class ? Double.compare((Double) x, (Double) y) == 0
                    : t == float.class ? Float.compare((Float) x, (Float) y) == 0
                    : Objects.equals(x, y);   // other primitives: their boxes are equal exactly when == is
            if (!same) return false;
        }
        return true;
    }

    /**
     * JDK 17's generated hashCode: from 0, 31 times the hash so far plus each component's, in order; for a record of
     * {@link #HASHED_ON}, of the components it names alone.
     */
    static int hash(Object a) {
        int h = 0;
        List<String> only = HASHED_ON.get(a.getClass().getName());
        for (RecordComponent c : a.getClass().getRecordComponents())
            if (only == null || only.contains(c.getName()))
                h = 31 * h + Objects.hashCode(value(c, a));   // a box's hashCode is its primitive's (Double.hashCode(d), ...)
        return h;
    }

    /**
     * Records whose written-out hashCode reads some of their components, by design (equal records still hash alike,
     * which the test checks of every record): a framework's profile, on its key, name and version (its two dozen facts
     * were hashed at every look-up of a layout's pieces).
     */
    static final Map<String, List<String>> HASHED_ON = Map.of("dev.trainadvisor.spec.Framework", List.of("key", "name", "version"));

    static Object value(RecordComponent c, Object o) {
        try {
            java.lang.reflect.Method m = c.getAccessor();
            m.setAccessible(true);
            return m.invoke(o);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    // ---------------------------------------------------------------- the records and their instances

    /**
     * Records whose equals and hashCode are not the generated ones, by design: a memo's key that matches the layout's
     * pieces by identity (one instance per layout, held by the layout cache) and hashes the links' bandwidths alone.
     */
    static final Set<String> OWN_EQUALITY = Set.of("dev.trainadvisor.perf.StepModel$PredictionKey");

    /** Every record class of the main code that declares its own equals(Object) to mean the generated one. */
    static List<Class<?>> writtenOutRecords() throws Exception {
        Path classes = Path.of("target/classes");
        List<Class<?>> out = new ArrayList<>();
        Set<String> names = new TreeSet<>();
        try (Stream<Path> s = Files.walk(classes)) {
            s.filter(p -> p.toString().endsWith(".class") && !p.getFileName().toString().equals("module-info.class"))
                    .forEach(p -> names.add(classes.relativize(p).toString().replace('/', '.').replaceAll("\\.class$", "")));
        }
        for (String n : names) {
            if (!n.startsWith("dev.trainadvisor.") || n.startsWith("dev.trainadvisor.rules.")) continue;
            Class<?> c = Class.forName(n, false, RecordMethodsTest.class.getClassLoader());
            if (!c.isRecord() || OWN_EQUALITY.contains(n)) continue;
            // javac declares the generated ones final (a record's class file always has them): those are Java's
            java.lang.reflect.Method equals = c.getDeclaredMethod("equals", Object.class);
            java.lang.reflect.Method hashCode = c.getDeclaredMethod("hashCode");
            boolean eq = !java.lang.reflect.Modifier.isFinal(equals.getModifiers());
            boolean hc = !java.lang.reflect.Modifier.isFinal(hashCode.getModifiers());
            assertEquals(eq, hc, n + " writes out both equals and hashCode or neither");
            if (eq) out.add(c);
        }
        return out;
    }

    /** Record instances reachable from every run file of the examples and the tests and from their advice, by class. */
    static Map<Class<?>, List<Object>> instances() throws Exception {
        Map<Class<?>, List<Object>> pool = new LinkedHashMap<>();
        Map<Object, Boolean> seen = new IdentityHashMap<>();
        List<Path> files = new ArrayList<>();
        for (String dir : List.of("examples", "src/test/resources/runs"))
            try (Stream<Path> s = Files.walk(Path.of(dir), 1)) {
                s.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".json")).sorted().forEach(files::add);
            }
        int advised = 0;
        for (Path f : files) {
            RunSpec spec;
            try {
                spec = RunFiles.read(f);
            } catch (RuntimeException e) {
                continue;   // a cluster, a model or a rules file, not a run
            }
            walk(spec, pool, seen, 0);
            if (advised++ < 8) {
                Advice a = TrainAdvisor.advise(spec.cluster(), spec.run());
                walk(a, pool, seen, 0);
            }
        }
        return pool;
    }

    private static void walk(Object o, Map<Class<?>, List<Object>> pool, Map<Object, Boolean> seen, int depth) {
        if (o == null || depth > 12 || seen.put(o, Boolean.TRUE) != null) return;
        if (o instanceof Iterable<?> it) {
            int n = 0;
            for (Object x : it) if (n++ < 50) walk(x, pool, seen, depth + 1);
        } else if (o instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                walk(e.getKey(), pool, seen, depth + 1);
                walk(e.getValue(), pool, seen, depth + 1);
            }
        } else if (o.getClass().isRecord() || o.getClass().getName().startsWith("dev.trainadvisor.")) {
            // a record, or another of the project's values a record holds (a run change, a step history)
            List<Object> list = pool.computeIfAbsent(o.getClass(), k -> new ArrayList<>());
            if (list.size() < 40 && list.stream().noneMatch(o::equals)) list.add(o);
            if (o.getClass().isRecord())
                for (RecordComponent c : o.getClass().getRecordComponents()) walk(value(c, o), pool, seen, depth + 1);
        }
    }

    /** A record of {@code type} made of instances of the pool, or of edge values; null where none is accepted. */
    static Object make(Class<?> type, Map<Class<?>, List<Object>> pool, int depth) {
        if (depth > 4) return null;
        RecordComponent[] rc = type.getRecordComponents();
        Object[] args = new Object[rc.length];
        for (int k = 0; k < rc.length; k++) {
            Class<?> t = rc[k].getType();
            List<Object> have = pool.get(t);
            if (have != null && !have.isEmpty()) args[k] = have.get(0);
            else if (t.isRecord()) args[k] = make(t, pool, depth + 1);
            else args[k] = variants(t, null, pool).get(0);   // an ordinary value first: 1, 1.0, "x", a constant, []
        }
        return construct(type, args);
    }

    /** Values to change a component of {@code type} to: the pool's others of the type, and its edge values. */
    static List<Object> variants(Class<?> type, Object current, Map<Class<?>, List<Object>> pool) {
        List<Object> out = new ArrayList<>();
        if (type == int.class || type == Integer.class) {
            int v = current == null ? 0 : (Integer) current;
            out.addAll(List.of(v + 1, v - 1, 2 * v, 1));
        } else if (type == long.class || type == Long.class) {
            long v = current == null ? 0 : (Long) current;
            out.addAll(List.of(v + 1, 1L));
        } else if (type == double.class || type == Double.class) {
            double v = current == null ? 0 : (Double) current;
            out.addAll(List.of(v * 2 + 1, Double.NaN, 0.0, -0.0, 0.5));
        } else if (type == boolean.class || type == Boolean.class) {
            out.addAll(List.of(true, false));
        } else if (type == String.class) {
            out.add(current == null ? "x" : current + "x");
            if (current != null) out.add(new String((String) current));   // equal, another instance
        } else if (type.isEnum()) {
            out.addAll(List.of(type.getEnumConstants()));
        } else if (type == List.class) {
            out.add(List.of());
            if (current instanceof List<?> l && !l.isEmpty()) out.add(List.copyOf(l.subList(0, l.size() - 1)));
        } else if (type == Map.class) {
            out.add(Map.of());
        } else if (type.isArray()) {
            out.add(java.lang.reflect.Array.newInstance(type.getComponentType(), 1));
        }
        if (type.isRecord()) {
            Object made = make(type, pool, 1);
            if (made != null) out.add(made);
        }
        List<Object> others = pool.getOrDefault(type, List.of());
        for (Object o : others.subList(0, Math.min(others.size(), 4))) {
            out.add(o);
            if (o.getClass().isRecord()) out.add(rebuild(o.getClass(), o, -1, null));   // equal, another instance
        }
        if (!type.isPrimitive()) out.add(null);
        out.removeIf(v -> v != null && current != null && v == current);
        return out;
    }

    /** For a list component, a list of one element of its element type (from the pool, or made). */
    static List<Object> lists(RecordComponent c, Map<Class<?>, List<Object>> pool) {
        if (c.getType() != List.class || !(c.getGenericType() instanceof java.lang.reflect.ParameterizedType p)
                || !(p.getActualTypeArguments()[0] instanceof Class<?> element)) return List.of();
        List<Object> have = pool.getOrDefault(element, List.of());
        Object e = !have.isEmpty() ? have.get(0) : element.isRecord() ? make(element, pool, 1) : variants(element, null, pool).get(0);
        return e == null ? List.of() : List.of(List.of(e));
    }

    /** {@code r} made again through the canonical constructor, component {@code k} (if any) set to {@code v}. */
    static Object rebuild(Class<?> type, Object r, int k, Object v) {
        RecordComponent[] rc = type.getRecordComponents();
        Object[] args = new Object[rc.length];
        for (int i = 0; i < rc.length; i++) args[i] = i == k ? v : value(rc[i], r);
        return construct(type, args);
    }

    static Object construct(Class<?> type, Object[] args) {
        RecordComponent[] rc = type.getRecordComponents();
        Class<?>[] types = new Class<?>[rc.length];
        for (int i = 0; i < rc.length; i++) types[i] = rc[i].getType();
        for (int i = 0; i < rc.length; i++) if (types[i].isPrimitive() && args[i] == null) return null;
        try {
            Constructor<?> c = type.getDeclaredConstructor(types);
            c.setAccessible(true);
            return c.newInstance(args);
        } catch (InvocationTargetException | IllegalArgumentException e) {
            return null;   // the record refuses it (its constructor checks), or the value is not of the type
        } catch (ReflectiveOperationException e) {
            fail(type.getName() + ": no canonical constructor: " + e);
            return null;
        }
    }
}
