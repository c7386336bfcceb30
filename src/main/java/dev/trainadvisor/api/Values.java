package dev.trainadvisor.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.spec.JsonTrees;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The run-file fields one builder of {@link Run} has set, by dotted field ("training.seq_len"), in the order set. A
 * value set again replaces the old one, and so does one that contains or lies inside it ({@code cluster.gpu} as a
 * catalogue key replaces {@code cluster.gpu.hbm_gb}). Values are checked here only for what Java's types let through
 * (a NaN, an infinity, a null); everything else is checked where a run file's values are, when the run is built.
 */
final class Values {
    static final ObjectMapper JSON = new ObjectMapper();

    /** The source that messages name for a run built in code. */
    static final String BUILDER = "Run.builder()";

    private final Map<String, Object> values = new LinkedHashMap<>();

    void put(String field, Object value) {
        if (value == null) throw InvalidInputException.field(BUILDER, field, "a value; leave the field unset to leave it out");
        if (value instanceof Double d && !Double.isFinite(d))
            throw InvalidInputException.field(BUILDER, field, "a finite number, got " + d
                    + "; leave the field unset for a value not measured or not known");
        if (!(value instanceof String || value instanceof Integer || value instanceof Long || value instanceof Double
                || value instanceof Boolean))
            throw InvalidInputException.field(BUILDER, field, "a string, a number or a boolean, got "
                    + value.getClass().getSimpleName());
        values.keySet().removeIf(k -> k.equals(field) || k.startsWith(field + ".") || field.startsWith(k + "."));
        values.put(field, value);
    }

    Object get(String field) { return values.get(field); }

    /** Whether a field at or under {@code field} is set. */
    boolean any(String field) {
        for (String k : values.keySet()) if (k.equals(field) || k.startsWith(field + ".")) return true;
        return false;
    }

    /** Every value of {@code other} set here, replacing those at or under {@code section} first. */
    void replaceSection(String section, Values other) {
        values.keySet().removeIf(k -> k.equals(section) || k.startsWith(section + "."));
        other.values.forEach(this::put);
    }

    void putAll(Values other) { other.values.forEach(this::put); }

    Iterable<String> fields() { return values.keySet(); }

    /** The fields as a run file's tree. */
    ObjectNode tree() {
        ObjectNode root = JSON.createObjectNode();
        values.forEach((field, value) -> JsonTrees.put(root, field, JSON.valueToTree(value)));
        return root;
    }
}
