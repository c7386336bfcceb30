package dev.trainadvisor.spec;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A typed edit of a run: run-file fields ({@link RunField}) to new values, in order, a cleared field taking its
 * default again. Remedies and the layout search propose changes as these; {@link #apply} edits the run's
 * {@link RunFile} and the result is validated as a user's file is.
 *
 * <pre>{@code
 * RunChange.of(RunField.TP, 2).and(RunField.DP, 4).clear(RunField.ZERO_GROUP_SIZE)
 * }</pre>
 *
 * Two changes are equal when they set the same fields to the same values, whatever their order.
 */
public final class RunChange {
    /** The change that changes nothing (a remedy of the run's history, priced by the wall time it wins back). */
    public static final RunChange NONE = new RunChange(new LinkedHashMap<>());

    private final Map<RunField<?>, Object> values;

    private RunChange(LinkedHashMap<RunField<?>, Object> values) {
        this.values = Collections.unmodifiableMap(values);
    }

    /** A change setting {@code field} to {@code value} (null: to its default). */
    public static <T> RunChange of(RunField<T> field, T value) { return NONE.and(field, value); }

    /** A change clearing {@code field}: it takes its default again. */
    public static RunChange clearing(RunField<?> field) { return NONE.clear(field); }

    /** This change, and {@code field} set to {@code value}; a field set twice takes the later value. */
    public <T> RunChange and(RunField<T> field, T value) {
        if (value != null && !field.type().isInstance(value))
            throw new IllegalArgumentException(field.path() + " takes " + field.type().getSimpleName() + ", got "
                    + value.getClass().getSimpleName());
        LinkedHashMap<RunField<?>, Object> m = new LinkedHashMap<>(values);
        m.put(field, value);
        return new RunChange(m);
    }

    /** This change, and {@code field} cleared. */
    public RunChange clear(RunField<?> field) {
        LinkedHashMap<RunField<?>, Object> m = new LinkedHashMap<>(values);
        m.put(field, null);
        return new RunChange(m);
    }

    /** This change without any setting of {@code field}. */
    public RunChange without(RunField<?> field) {
        if (!values.containsKey(field)) return this;
        LinkedHashMap<RunField<?>, Object> m = new LinkedHashMap<>(values);
        m.remove(field);
        return new RunChange(m);
    }

    /** This change and then {@code other}'s settings. */
    public RunChange and(RunChange other) {
        LinkedHashMap<RunField<?>, Object> m = new LinkedHashMap<>(values);
        m.putAll(other.values);
        return new RunChange(m);
    }

    public boolean isEmpty() { return values.isEmpty(); }

    public Set<RunField<?>> fields() { return values.keySet(); }

    public boolean sets(RunField<?> field) { return values.containsKey(field); }

    /** The value {@code field} is set to, or null (cleared, or not set). */
    @SuppressWarnings("unchecked")
    public <T> T value(RunField<T> field) { return (T) values.get(field); }

    /** Whether it sets any field of the cluster: other hardware. */
    public boolean changesHardware() {
        return values.keySet().stream().anyMatch(f -> f.section() == RunField.Section.CLUSTER);
    }

    /** Whether it sets none of the fields {@code other} sets, so that both can be made. */
    public boolean disjoint(RunChange other) {
        return values.keySet().stream().noneMatch(other.values::containsKey);
    }

    /**
     * The run file with this change made. A change to the GPU count keeps the layout derived: dp and zero_group_size
     * are cleared unless the change sets them, so that they follow the new count.
     *
     * @throws dev.trainadvisor.input.SpecException where a value lies outside its field's range
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public RunFile apply(RunFile file) {
        RunFile.Draft d = new RunFile.Draft(file);
        for (Map.Entry<RunField<?>, Object> e : values.entrySet()) ((RunField) e.getKey()).set(d, e.getValue());
        if (sets(RunField.NODES) || sets(RunField.GPUS_PER_NODE)) {
            if (!sets(RunField.DP)) d.parallel.dp = null;
            if (!sets(RunField.ZERO_GROUP_SIZE)) d.parallel.zeroGroupSize = null;
        }
        return d.build();
    }

    /**
     * This change without the clearing of fields {@code file} does not set: what applying it to that run actually
     * changes, in its order. A remedy that clears a transport the run never named shows no such clearing.
     */
    public RunChange effectiveOn(RunFile file) {
        LinkedHashMap<RunField<?>, Object> m = new LinkedHashMap<>();
        for (Map.Entry<RunField<?>, Object> e : values.entrySet()) {
            if (e.getValue() == null && e.getKey().get(file) == null) continue;
            m.put(e.getKey(), e.getValue());
        }
        return new RunChange(m);
    }

    /** Dotted run-file path to the value as a run file writes it (an enum by its key; null: cleared), in order. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public Map<String, Object> asRunFile() {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<RunField<?>, Object> e : values.entrySet())
            out.put(e.getKey().path(), e.getValue() == null ? null : ((RunField) e.getKey()).written(e.getValue()));
        return Collections.unmodifiableMap(out);
    }

    @Override
    public boolean equals(Object o) { return o instanceof RunChange c && c.values.equals(values); }

    @Override
    public int hashCode() { return values.hashCode(); }

    @Override
    public String toString() { return asRunFile().toString(); }
}
