package dev.trainadvisor.perf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.spec.ReferenceRun;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Writes knowledge-base/prediction-intervals.json from the current model's out-of-source errors on the tune rows (each
 * row predicted with the constants refitted without its source group, LeaveOneSourceOut; not a test; run after a
 * change of the model or of the reference runs, PredictionIntervalTest says when):
 * java -cp target/test-classes:target/classes:... dev.trainadvisor.perf.PredictionIntervalTable
 */
public final class PredictionIntervalTable {
    public static void main(String[] args) throws IOException {
        Files.writeString(Path.of("knowledge-base/prediction-intervals.json"), json(PredictionInterval.fit(
                LeaveOneSourceOut.of(ReferenceRun.builtIn()).rows())));
    }

    static String json(Map<String, PredictionInterval> table) throws IOException {
        ObjectMapper m = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = m.createObjectNode();
        root.put("description", "Observed over predicted tokens/GPU/s on the tune rows of knowledge-base/reference-runs, "
                + "each predicted out of source (every fitted constant refitted without the row's source group, "
                + "validate --leave-out source) and each source group weighing the same, by the class of run (perf.RunClass: what bounds the step, the family, 256 GPUs or more), at the 10th, "
                + "50th and 90th percentiles; a class with fewer than " + PredictionInterval.MIN_ROWS + " rows is left out "
                + "and borrows the broader class's. Written by src/test/java/dev/trainadvisor/perf/PredictionIntervalTable.java, "
                + "checked current by PredictionIntervalTest.");
        ArrayNode classes = root.putArray("classes");
        for (PredictionInterval i : table.values()) {
            ObjectNode c = classes.addObject();
            c.put("key", i.basis());
            c.put("rows", i.rows());
            c.put("low", round(i.low()));
            c.put("median", round(i.median()));
            c.put("high", round(i.high()));
        }
        return m.writeValueAsString(root) + "\n";
    }

    /** Six decimals: what the file keeps, and what the test compares. */
    static double round(double v) { return Math.round(v * 1e6) / 1e6; }
}
