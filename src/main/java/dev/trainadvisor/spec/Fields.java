package dev.trainadvisor.spec;

import dev.trainadvisor.input.SpecException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads typed fields from one object of a parsed run file, naming the file and the dotted field
 * path in every error. Unknown keys are errors: nothing the user wrote is silently dropped. Public for the layer that
 * assembles run files from the files they name; the typed readers stay inside spec.
 */
public final class Fields {
    private final String file;
    private final String path;
    private final JsonNode node;
    /** Keys that may be given as null ("moe: null" in a preset: a dense model). */
    private Set<String> nullable = Set.of();

    public Fields(String file, String path, JsonNode node) {
        this.file = file;
        this.path = path;
        this.node = node;
        if (node != null && !node.isObject()) throw error("", "an object (a mapping of keys to values)");
    }

    public String file() { return file; }

    String path(String name) { return path.isEmpty() ? name : path + "." + name; }

    public SpecException error(String name, String expected) {
        return new SpecException(file, name.isEmpty() ? path : path(name), expected);
    }

    public boolean has(String name) {
        return node != null && node.has(name) && !node.get(name).isNull();
    }

    /** Whether the key is written, with a value or without one (which the typed readers refuse). */
    boolean given(String name) { return node != null && node.has(name); }

    /** A key written without a value ("micro_batches:") is an error, not the default. */
    private void noNull(String name, String expected) {
        if (givenWithoutValue(name)) throw withoutValue(name, expected);
    }

    private SpecException withoutValue(String name, String expected) {
        return error(name, expected + "; the key is given without a value (remove it to take the default)");
    }

    private boolean givenWithoutValue(String name) {
        return node != null && node.has(name) && node.get(name).isNull() && !nullable.contains(name);
    }

    JsonNode raw(String name) { return node == null ? null : node.get(name); }

    /** Fails on any key outside {@code known}, listing the keys that are. */
    void allowOnly(Set<String> known) { allowOnly(known, Set.of()); }

    /** As {@link #allowOnly(Set)}, but the keys in {@code nullable} may be given as null ("none"). */
    void allowOnly(Set<String> known, Set<String> nullable) {
        this.nullable = nullable;
        if (node == null) return;
        Iterator<String> it = node.fieldNames();
        while (it.hasNext()) {
            String k = it.next();
            if (!known.contains(k)) {
                String near = Names.nearest(k, known, 3);
                throw error(k, "unknown key; known keys here are " + new TreeSet<>(known)
                        + (near.isEmpty() ? "" : " (nearest: " + near + ")"));
            }
        }
    }

    Fields object(String name) {
        noNull(name, "an object (a mapping of keys to values)");
        if (!has(name)) return new Fields(file, path(name), null);
        JsonNode n = node.get(name);
        if (!n.isObject()) throw error(name, "an object (a mapping of keys to values), got " + describe(n));
        return new Fields(file, path(name), n);
    }

    boolean present() { return node != null; }

    public String requireString(String name) {
        noNull(name, "a string");
        if (!has(name)) throw error(name, "a value is required");
        return string(name, null);
    }

    String string(String name, String dflt) {
        noNull(name, "a string");
        if (!has(name)) return dflt;
        JsonNode n = node.get(name);
        if (!n.isValueNode() || n.isBoolean()) throw error(name, "a string, got " + describe(n));
        return n.asText();
    }

    int requirePositiveInt(String name) { return requirePositiveInt(name, Integer.MAX_VALUE); }

    /** A required integer from 1 to {@code max}; every error names the allowed range. */
    int requirePositiveInt(String name, int max) {
        String range = max == Integer.MAX_VALUE ? "a positive integer" : Bounds.range(max);
        noNull(name, range);
        if (!has(name)) throw error(name, range + " is required");
        return positiveInt(name, 0, max);
    }

    int positiveInt(String name, int dflt) { return positiveInt(name, dflt, Integer.MAX_VALUE); }

    /** An integer from 1 to {@code max}, or {@code dflt} when absent; every error names the allowed range. */
    int positiveInt(String name, int dflt, int max) {
        String range = max == Integer.MAX_VALUE ? "a positive integer" : Bounds.range(max);
        noNull(name, range);
        if (!has(name)) return dflt;
        JsonNode n = node.get(name);
        long v = integer(name, n, range);
        if (v <= 0 || v > max) throw error(name, range + ", got " + n.asText());
        return (int) v;
    }

    int nonNegativeInt(String name, int dflt, int max) {
        String range = "an integer from 0 to " + max;
        noNull(name, range);
        if (!has(name)) return dflt;
        JsonNode n = node.get(name);
        if (!n.isIntegralNumber()) throw error(name, range + ", got " + describe(n));
        long v = integer(name, n, range);
        if (v < 0 || v > max) throw error(name, range + ", got " + n.asText());
        return (int) v;
    }

    /**
     * An integral number's value: an integer, or a float with no fraction (2.0). One beyond a long (2^64 + 5 would
     * wrap to 5) is an error, as is anything else.
     */
    private long integer(String name, JsonNode n, String range) {
        if (n.isIntegralNumber()) {
            if (!n.canConvertToLong()) throw error(name, range + ", got " + n.asText());
            return n.asLong();
        }
        if (n.isNumber() && n.asDouble() == Math.rint(n.asDouble())) {
            double d = n.asDouble();
            if (Math.abs(d) >= 0x1p62) throw error(name, range + ", got " + n.asText());
            return (long) d;
        }
        throw error(name, range + ", got " + describe(n));
    }

    /**
     * A positive number of a physical size: from {@link Bounds#ANY_MIN} to {@link Bounds#ANY_MAX} (1e-300 and 1e300
     * are no quantity a run file describes, and would overflow or vanish in the products the model forms).
     */
    double positiveDouble(String name, double dflt) {
        return positiveDouble(name, dflt, Bounds.ANY_MIN, Bounds.ANY_MAX, null);
    }

    /**
     * A positive number from {@code min} to {@code max}, or {@code dflt} when absent; {@code why} (the bound's reason,
     * "no link in the catalogue carries more") is said when the value is outside them, with the field named.
     */
    double positiveDouble(String name, double dflt, double min, double max, String why) {
        noNull(name, "a positive number");
        if (!has(name)) return dflt;
        JsonNode n = node.get(name);
        if (!n.isNumber()) throw error(name, "a positive number, got " + describe(n));
        double v = n.asDouble();
        if (!(v > 0) || Double.isInfinite(v)) throw error(name, "a positive number, got " + n.asText());
        if (v < min || v > max)
            throw error(name, "a number from " + Bounds.show(min) + " to " + Bounds.show(max) + (why == null ? "" : " (" + why + ")")
                    + ", got " + n.asText());
        return v;
    }

    double nonNegativeDouble(String name, double dflt) {
        noNull(name, "a number >= 0");
        if (!has(name)) return dflt;
        JsonNode n = node.get(name);
        if (!n.isNumber()) throw error(name, "a number >= 0, got " + describe(n));
        double v = n.asDouble();
        if (!(v >= 0) || Double.isInfinite(v)) throw error(name, "a number >= 0, got " + n.asText());
        if (v > Bounds.ANY_MAX) throw error(name, "a number from 0 to " + Bounds.show(Bounds.ANY_MAX) + ", got " + n.asText());
        return v;
    }

    boolean bool(String name, boolean dflt) {
        noNull(name, "true or false");
        if (!has(name)) return dflt;
        JsonNode n = node.get(name);
        if (!n.isBoolean()) throw error(name, "true or false, got " + describe(n));
        return n.asBoolean();
    }

    /** One of an enum's constants by its lower-case name. */
    <E extends Enum<E>> E choice(String name, E dflt, Class<E> type) {
        return choice(name, dflt, type, s -> {
            for (E e : type.getEnumConstants()) if (e.name().equalsIgnoreCase(s.trim())) return e;
            return null;
        });
    }

    <E extends Enum<E>> E choice(String name, E dflt, Class<E> type, java.util.function.Function<String, E> parse) {
        // the constants' names only for a message (spelled out at every read, they were 1% of a batch's samples)
        if (givenWithoutValue(name)) throw withoutValue(name, "one of " + names(type));
        if (!has(name)) return dflt;
        String s = string(name, null);
        E v = parse.apply(s);
        if (v == null) throw error(name, "one of " + names(type) + ", got '" + s + "'");
        return v;
    }

    /** An enum's constants by their lower-case names, as the run file writes them. */
    private static <E extends Enum<E>> List<String> names(Class<E> type) {
        List<String> keys = new ArrayList<>();
        for (E e : type.getEnumConstants()) keys.add(e.name().toLowerCase(java.util.Locale.ROOT));
        return keys;
    }

    /** How a value reads in a message: "an object", "the string 'x'", "the number 3", ... */
    public static String describe(JsonNode n) {
        if (n.isObject()) return "an object";
        if (n.isArray()) return "a list";
        if (n.isTextual()) return "the string '" + dev.trainadvisor.input.Excerpt.of(n.asText()) + "'";
        if (n.isBoolean()) return "the boolean " + n.asText();
        if (n.isNumber()) return "the number " + n.asText();
        return n.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
    }

    static ObjectNode asObject(JsonNode n) { return (ObjectNode) n; }
}
