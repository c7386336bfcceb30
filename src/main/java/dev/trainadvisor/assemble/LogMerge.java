package dev.trainadvisor.assemble;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.ingest.ParsedLog;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.Fields;
import dev.trainadvisor.spec.JsonTrees;
import dev.trainadvisor.spec.Metric;
import dev.trainadvisor.spec.Names;
import dev.trainadvisor.spec.Presets;
import dev.trainadvisor.spec.SpecReader;

import java.util.Map;
import java.util.Set;

/**
 * Joins what a training log says to a run file: the log's steady-state metrics fill {@code metrics},
 * the configuration it prints (Megatron's argument dump, InternEvo's micro_num, ...) fills the fields the
 * run file leaves out. Where both give a value and they differ, that is an error naming both: nothing
 * the user wrote is silently replaced.
 */
final class LogMerge {
    /** Metric names a run file accepts (SpecReader's metrics block). */
    static final Set<String> METRICS = metrics();

    /** Every metric a log can give: all of them but the convention, which belongs to the log's format. */
    private static Set<String> metrics() {
        java.util.Set<String> out = new java.util.HashSet<>(Metric.keys());
        out.remove(Metric.TFLOPS_CONVENTION.key());
        return Set.copyOf(out);
    }

    private LogMerge() {}

    /** What a log prints as its sequences per optimizer step (ingest's configuration key); not a run-file field. */
    static final String GLOBAL_BATCH = "training.global_batch_size";

    /** The run tree with the log's metrics and configuration added, a difference an error; {@code tree} is not modified. */
    static ObjectNode merge(JsonNode tree, ParsedLog log, String file) {
        return merge(tree, log, file, Described.FILE, note -> {});
    }

    /**
     * The run tree with the log's metrics and configuration added; {@code tree} is not modified. A value the user gave
     * and the log prints otherwise is an error naming both, or, given on the command line, kept with a note. The global
     * batch the log prints is no run-file field: LogInference derives the micro-batches from it.
     */
    static ObjectNode merge(JsonNode tree, ParsedLog log, String file, Described by, java.util.function.Consumer<String> notes) {
        ObjectNode out = (ObjectNode) tree.deepCopy();
        out.remove("log");
        // "cluster: dgx-h100" becomes {preset: dgx-h100} so that the log's cluster fields can join it
        if (out.get("cluster") != null && out.get("cluster").isTextual())
            out.putObject("cluster").put("preset", tree.get("cluster").asText());
        JsonNode model = out.get("model");
        JsonNode preset = model != null && model.isTextual()
                ? Presets.find(Presets.models(), model.asText(), "model", file, "model") : null;
        for (Map.Entry<String, Object> e : log.config().entrySet()) {
            String key = e.getKey();
            if (key.equals(GLOBAL_BATCH)) continue;     // no run-file field: checked against the layout below
            JsonNode value = SpecReader.JSON_MAPPER.valueToTree(e.getValue());
            if (key.startsWith("model.") && preset != null) {
                // the user names a preset: check the log against it rather than replace it
                JsonNode have = JsonTrees.at(preset, key.substring("model.".length()));
                if (have != null && !have.isNull() && !same(have, value)) {
                    if (by.commandLine()) notes.accept("note: " + by.gave(key, have.asText()) + " replaces the " + log.format()
                            + " log's " + key + " " + value.asText());
                    else throw new SpecException(file, key, "the same value in the run file and the log: model preset '"
                            + model.asText() + "' has " + have + ", the " + log.format() + " log says " + value);
                }
                continue;
            }
            JsonNode have = JsonTrees.at(out, key);
            if (have != null && !have.isNull()) {
                if (!same(have, value)) {
                    if (by.commandLine()) notes.accept("note: " + by.gave(key, have.asText()) + " replaces the " + log.format()
                            + " log's " + key + " " + value.asText());
                    else throw new SpecException(file, key, "the same value in the run file and the log: the run file says "
                            + have + ", the " + log.format() + " log says " + value);
                }
                continue;
            }
            objectsAlong(out, key, file);
            JsonTrees.put(out, key, value);
        }
        objectsAlong(out, "metrics.x", file);
        ObjectNode metrics = out.get("metrics") instanceof ObjectNode m ? m : out.putObject("metrics");
        for (Map.Entry<String, Double> e : log.metrics().entrySet()) {
            if (!METRICS.contains(e.getKey()) || e.getValue() == null || e.getValue().isNaN()) continue;
            JsonNode have = metrics.get(e.getKey());
            if (have != null && !have.isNull()) {
                if (Math.abs(have.asDouble() - e.getValue()) > 1e-9 * Math.max(1, Math.abs(e.getValue())))
                    throw new SpecException(file, "metrics." + e.getKey(), "the same value in the run file and the log: "
                            + "the run file says " + have + ", the " + log.format() + " log's steady-state median is " + e.getValue());
                continue;
            }
            metrics.put(e.getKey(), e.getValue());
        }
        if (metrics.has("tflops_per_gpu") && !metrics.has("tflops_convention")) {
            if (log.tflopsConvention() != null) metrics.put("tflops_convention", log.tflopsConvention());
            else metrics.remove("tflops_per_gpu");   // a TFLOPS figure whose count is unknown cannot be compared
        }
        return out;
    }

    /** Moves a top-level key to a dotted place in the cluster; an existing value there is a conflict. */
    static ObjectNode moveInto(JsonNode tree, String key, String dotted, String file) {
        ObjectNode out = (ObjectNode) tree.deepCopy();
        JsonNode value = out.remove(key);
        JsonNode cluster = out.get("cluster");
        if (cluster == null || !cluster.isObject()) {
            if (cluster != null && cluster.isTextual()) {
                out.putObject("cluster").put("preset", cluster.asText());
            } else {
                throw new SpecException(file, "cluster", "a cluster (a preset name or its fields) is required");
            }
        }
        JsonNode have = JsonTrees.at(out, dotted);
        if (have != null && !have.isNull())
            throw new SpecException(file, key, "one nccl-tests output: " + dotted + " names one too");
        JsonNode busbw = JsonTrees.at(out, dotted.substring(0, dotted.lastIndexOf('.')) + ".busbw_gbps");
        if (busbw != null && !busbw.isNull())
            throw new SpecException(file, key, "either a measured busbw_gbps or an nccl-tests output, not both");
        JsonTrees.put(out, dotted, value);
        return out;
    }

    /** Where the run file gives the objects a dotted key passes through, they are objects: nothing it wrote is replaced. */
    private static void objectsAlong(ObjectNode out, String dotted, String file) {
        String[] parts = dotted.split("\\.");
        JsonNode n = out;
        for (int i = 0; i < parts.length - 1; i++) {
            n = n.get(parts[i]);
            if (n == null || n.isNull()) return;
            if (!n.isObject())
                throw new SpecException(file, String.join(".", java.util.Arrays.copyOf(parts, i + 1)),
                        "an object (a mapping of keys to values), got " + Fields.describe(n));
        }
    }

    static boolean same(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) return Math.abs(a.asDouble() - b.asDouble()) <= 1e-9 * Math.max(1, Math.abs(a.asDouble()));
        if (a.isTextual() && b.isTextual()) return Names.normalize(a.asText()).equals(Names.normalize(b.asText()));
        return a.equals(b);
    }
}
