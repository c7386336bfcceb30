package dev.trainadvisor.api;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The API names only its own types and Java's: every public and protected signature of every public type of
 * dev.trainadvisor.api (supertypes, fields, constructors, methods, their parameters, results, exceptions and type
 * arguments, record components) is read by reflection, and a type from anywhere else (Jackson, Drools, another package
 * of train-advisor) fails the test, named with where it appears.
 */
class ApiSignatureTest {
    static final String API = "dev.trainadvisor.api";

    /** The public types of the API: adding one is a decision, so it is listed here. */
    static final Set<String> PUBLIC_TYPES = Set.of("Advice", "Advice$Diagnosis", "Advice$Measured", "Advice$Recommendation",
            "Advice$Severity", "Advice$Step", "InvalidInputException", "Run", "Run$Assumption", "Run$Builder", "Run$Cluster",
            "Run$Layout", "Run$Measurements", "Run$Model", "Run$Training", "TrainAdvisor");

    static List<Class<?>> apiClasses() throws Exception {
        List<Class<?>> out = new ArrayList<>();
        Path dir = Path.of("target/classes/dev/trainadvisor/api");
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.sorted().toList()) {
                String f = p.getFileName().toString();
                if (f.endsWith(".class")) out.add(Class.forName(API + "." + f.substring(0, f.length() - 6), false,
                        ApiSignatureTest.class.getClassLoader()));
            }
        }
        return out;
    }

    /** Public, and every class around it public: a type a caller can name. */
    static boolean exported(Class<?> c) {
        for (Class<?> x = c; x != null; x = x.getEnclosingClass()) if (!Modifier.isPublic(x.getModifiers())) return false;
        return !c.isAnonymousClass() && !c.isSynthetic();
    }

    @Test
    void theApiIsTheFewTypesListed() throws Exception {
        Set<String> found = new TreeSet<>();
        for (Class<?> c : apiClasses()) if (exported(c)) found.add(c.getName().substring(API.length() + 1));
        assertEquals(new TreeSet<>(PUBLIC_TYPES), found);
    }

    @Test
    void publicSignaturesNameOnlyApiAndJavaTypes() throws Exception {
        List<String> bad = new ArrayList<>();
        for (Class<?> c : apiClasses()) if (exported(c)) bad.addAll(violations(c));
        assertEquals(List.of(), bad);
    }

    /** The scan finds what it is there to find: the internal entry point names Drools' and the engine's types. */
    @Test
    void theScanCatchesInternalTypes() {
        List<String> bad = violations(dev.trainadvisor.advice.TrainAdvisor.class);
        assertTrue(bad.stream().anyMatch(v -> v.contains("dev.trainadvisor.engine.RuleEngine")), bad.toString());
        assertTrue(violations(dev.trainadvisor.spec.SpecReader.class).stream()
                .anyMatch(v -> v.contains("com.fasterxml.jackson.databind.JsonNode")));
    }

    static List<String> violations(Class<?> c) {
        List<String> out = new ArrayList<>();
        String where = c.getName();
        check(c.getGenericSuperclass(), where + " extends", out);
        for (Type t : c.getGenericInterfaces()) check(t, where + " implements", out);
        for (Field f : c.getDeclaredFields())
            if (visible(f.getModifiers())) check(f.getGenericType(), where + "." + f.getName(), out);
        for (Constructor<?> k : c.getDeclaredConstructors())
            if (visible(k.getModifiers())) executable(k, where + ".<init>", out);
        for (Method m : c.getDeclaredMethods())
            if (visible(m.getModifiers()) && !m.isSynthetic()) {
                executable(m, where + "." + m.getName(), out);
                check(m.getGenericReturnType(), where + "." + m.getName() + " returns", out);
            }
        return out;
    }

    private static boolean visible(int modifiers) { return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers); }

    private static void executable(Executable e, String where, List<String> out) {
        for (Type t : e.getGenericParameterTypes()) check(t, where + " parameter", out);
        for (Type t : e.getGenericExceptionTypes()) check(t, where + " throws", out);
        for (TypeVariable<?> v : e.getTypeParameters()) for (Type b : v.getBounds()) check(b, where + " bound", out);
    }

    private static void check(Type t, String where, List<String> out) {
        if (t == null) return;
        if (t instanceof Class<?> c) {
            while (c.isArray()) c = c.getComponentType();
            if (c.isPrimitive()) return;
            String n = c.getName();
            if (!(n.startsWith("java.") || n.startsWith(API + ".")) || n.startsWith(API + ".") && !exported(c))
                out.add(where + ": " + n);
        } else if (t instanceof ParameterizedType p) {
            check(p.getRawType(), where, out);
            for (Type a : p.getActualTypeArguments()) check(a, where, out);
        } else if (t instanceof GenericArrayType g) {
            check(g.getGenericComponentType(), where, out);
        } else if (t instanceof WildcardType w) {
            for (Type b : w.getUpperBounds()) check(b, where, out);
            for (Type b : w.getLowerBounds()) check(b, where, out);
        } else if (t instanceof TypeVariable<?> v) {
            // a type's own variable (Enum<E>); its bounds are checked where it is declared
            if (v.getGenericDeclaration() instanceof Executable) return;
        }
    }
}
