package dev.trainadvisor.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Iterator;
import java.util.Map;

/**
 * The one deep merge of run-file trees (a preset under the fields a run file overrides, a folder's runs.yaml
 * defaults under one log's entry), and dotted access into them ("cluster.intra_node.link").
 */
public final class JsonTrees {
    private JsonTrees() {}

    /**
     * Merges {@code over} into {@code base} and returns {@code base}: where both hold an object the two merge, key by
     * key; anywhere else the value of {@code over} (a copy) replaces that of {@code base}. {@code over} is not modified.
     */
    public static ObjectNode deepMerge(ObjectNode base, JsonNode over) {
        for (Iterator<Map.Entry<String, JsonNode>> it = over.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode b = base.get(e.getKey());
            if (b instanceof ObjectNode bo && e.getValue().isObject()) deepMerge(bo, e.getValue());
            else base.set(e.getKey(), e.getValue().deepCopy());
        }
        return base;
    }

    /** The node at a dotted path ("parallel.tp"), or null where a step is missing or not an object. */
    public static JsonNode at(JsonNode root, String dotted) {
        JsonNode n = root;
        for (String part : dotted.split("\\.")) {
            if (n == null || !n.isObject()) return null;
            n = n.get(part);
        }
        return n;
    }

    /** Sets the value at a dotted path, making (or replacing with) objects along the way. */
    public static void put(ObjectNode root, String dotted, JsonNode value) {
        String[] parts = dotted.split("\\.");
        ObjectNode n = root;
        for (int i = 0; i < parts.length - 1; i++) {
            JsonNode next = n.get(parts[i]);
            if (!(next instanceof ObjectNode)) next = n.putObject(parts[i]);
            n = (ObjectNode) next;
        }
        n.set(parts[parts.length - 1], value);
    }
}
