package dev.trainadvisor.spec;

import dev.trainadvisor.input.SpecException;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Model presets (model/*.json) and cluster presets (knowledge-base/clusters/*.json) shipped on the classpath. */
public final class Presets {
    private static volatile Map<String, JsonNode> models;
    private static volatile Map<String, JsonNode> clusters;

    private Presets() {}

    public static Map<String, JsonNode> models() {
        Map<String, JsonNode> m = models;
        if (m == null) {
            synchronized (Presets.class) {   // read once, whichever thread comes first (Catalog.readAll)
                if (models == null) models = load("model");
                m = models;
            }
        }
        return m;
    }

    public static Map<String, JsonNode> clusters() {
        Map<String, JsonNode> c = clusters;
        if (c == null) {
            synchronized (Presets.class) {
                if (clusters == null) clusters = load("knowledge-base/clusters");
                c = clusters;
            }
        }
        return c;
    }

    private static Map<String, JsonNode> load(String dir) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        List<String> files = Resources.list(dir, ".json");
        for (String f : files) {
            String name = f.substring(f.lastIndexOf('/') + 1, f.length() - ".json".length());
            out.put(name, Catalog.read(f));
        }
        return java.util.Collections.unmodifiableMap(out);
    }

    /** The preset {@code name} (matched as written, then normalized), or an error naming the file, field and nearest presets. */
    /** A name no preset has and a path has: a folder in it, or a JSON or YAML file's extension. */
    public static boolean looksLikeAFile(String name) {
        String n = name.toLowerCase(java.util.Locale.ROOT);
        return n.contains("/") || n.contains("\\") || n.endsWith(".yaml") || n.endsWith(".yml") || n.endsWith(".json");
    }

    public static JsonNode find(Map<String, JsonNode> presets, String name, String what, String file, String field) {
        JsonNode exact = presets.get(name);   // as written back by SpecWriter: no need to normalize every key
        if (exact != null) return exact;
        String k = Names.normalize(name);
        for (Map.Entry<String, JsonNode> e : presets.entrySet()) {
            if (Names.normalize(e.getKey()).equals(k)) return e.getValue();
        }
        if (looksLikeAFile(name))
            throw new SpecException(file, field, "a known " + what + " preset, or the " + what + "'s fields written here; got '"
                    + name + "', a file's name: a run file holds the fields themselves (copy them here), and --" + what
                    + " reads a file only where one is at that path");
        throw new SpecException(file, field, "a known " + what + " preset, got '" + name + "'; nearest known: "
                + Names.nearest(name, presets.keySet(), 3));
    }
}
