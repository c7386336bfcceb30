package dev.trainadvisor.facts;

import dev.trainadvisor.spec.RunChange;
import dev.trainadvisor.spec.RunField;

/**
 * A change written in run-file terms, for rule files that a team adds at run time: dotted field, value, dotted field,
 * value, ... (a null value clears the field), as a run file would write it ("training.grad_reduce_precision", "bf16").
 * Each path must be a field a change can set ({@link RunField#paths()}) and each value of its type: an unknown path
 * or a wrong value fails the rule's firing with a message, rather than setting nothing. The shipped rules name fields
 * by their typed constants ({@code RunChange.of(RunField.TP, 2)}).
 */
public final class Change {
    private Change() {}

    public static RunChange of(Object... fieldValuePairs) {
        if (fieldValuePairs.length % 2 != 0) throw new IllegalArgumentException("field and value pairs, got an odd count");
        RunChange out = RunChange.NONE;
        for (int i = 0; i < fieldValuePairs.length; i += 2) {
            if (!(fieldValuePairs[i] instanceof String path))
                throw new IllegalArgumentException("a dotted run-file field, got " + fieldValuePairs[i]);
            out = set(out, RunField.byPath(path), fieldValuePairs[i + 1]);
        }
        return out;
    }

    private static <T> RunChange set(RunChange c, RunField<T> f, Object written) {
        return written == null ? c.clear(f) : c.and(f, f.parse(written));
    }
}
