package dev.trainadvisor.facts;

import java.util.LinkedHashMap;
import java.util.Map;

/** A change to a run file for a remedy: dotted field, value, dotted field, value, ... (null removes the field). */
public final class Change {
    private Change() {}

    public static Map<String, Object> of(Object... fieldValuePairs) {
        if (fieldValuePairs.length % 2 != 0) throw new IllegalArgumentException("field and value pairs, got an odd count");
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < fieldValuePairs.length; i += 2) out.put((String) fieldValuePairs[i], fieldValuePairs[i + 1]);
        return out;
    }
}
