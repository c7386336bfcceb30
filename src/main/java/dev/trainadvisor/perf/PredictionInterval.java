package dev.trainadvisor.perf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainadvisor.spec.Resources;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How far the model has been off on validated runs like one: the 10th, 50th and 90th percentiles of observed over
 * predicted tokens/GPU/s on the tune rows of knowledge-base/reference-runs of the same {@link RunClass} (its most
 * specific key with {@link #MIN_ROWS} rows or more). A prediction of {@code x} then carries {@code x * low} to
 * {@code x * high}; the holdout rows check that about four in five land inside (PredictionIntervalTest).
 * The table ships as knowledge-base/prediction-intervals.json, regenerated from {@code validate} by
 * PredictionIntervalTable and checked current by a test.
 *
 * @param basis  the class key it comes from ("compute/dense")
 * @param rows   the tune rows of that class
 * @param low    observed over predicted at the 10th percentile
 * @param median at the 50th
 * @param high   at the 90th
 */
public record PredictionInterval(String basis, int rows, double low, double median, double high) {

    public static final double LOW_QUANTILE = 0.10, HIGH_QUANTILE = 0.90;

    /** A class with fewer tune rows borrows the interval of the broader class above it. */
    public static final int MIN_ROWS = 10;

    static final String RESOURCE = "knowledge-base/prediction-intervals.json";

    private static volatile Map<String, PredictionInterval> shipped;

    /** The shipped interval of the most specific key of {@code c} that has one. */
    public static PredictionInterval of(RunClass c) {
        Map<String, PredictionInterval> t = table();
        for (String k : c.keys()) {
            PredictionInterval i = t.get(k);
            if (i != null) return i;
        }
        throw new IllegalStateException(RESOURCE + " has no interval for " + c.keys());
    }

    /** {@code value} times the low and the high ratio. */
    public double[] around(double value) { return new double[]{value * low, value * high}; }

    /** The intervals of every class key with at least {@link #MIN_ROWS} tune rows (not excluded), by key. */
    public static Map<String, PredictionInterval> fit(List<Validation.Row> rows) {
        Map<String, List<Double>> ratios = new TreeMap<>();
        for (Validation.Row r : rows) {
            if (r.excluded() != null || !r.split().equals("tune")) continue;
            double ratio = r.tokensObserved() / r.tokensPredicted();
            for (String k : r.runClass().keys()) ratios.computeIfAbsent(k, x -> new ArrayList<>()).add(ratio);
        }
        Map<String, PredictionInterval> out = new LinkedHashMap<>();
        for (Map.Entry<String, List<Double>> e : ratios.entrySet()) {
            List<Double> v = e.getValue();
            if (v.size() < MIN_ROWS) continue;
            Collections.sort(v);
            out.put(e.getKey(), new PredictionInterval(e.getKey(), v.size(), quantile(v, LOW_QUANTILE),
                    quantile(v, 0.5), quantile(v, HIGH_QUANTILE)));
        }
        return out;
    }

    /** Linear interpolation between the order statistics of sorted {@code v} (Hyndman and Fan's type 7). */
    static double quantile(List<Double> v, double q) {
        double h = (v.size() - 1) * q;
        int lo = (int) Math.floor(h);
        int hi = Math.min(lo + 1, v.size() - 1);
        return v.get(lo) + (h - lo) * (v.get(hi) - v.get(lo));
    }

    static Map<String, PredictionInterval> table() {
        Map<String, PredictionInterval> t = shipped;
        if (t == null) {
            synchronized (PredictionInterval.class) {
                if (shipped == null) shipped = load();
                t = shipped;
            }
        }
        return t;
    }

    private static Map<String, PredictionInterval> load() {
        try (InputStream in = Resources.open(RESOURCE)) {
            JsonNode root = new ObjectMapper().readTree(in);
            Map<String, PredictionInterval> out = new LinkedHashMap<>();
            for (JsonNode c : root.get("classes"))
                out.put(c.get("key").asText(), new PredictionInterval(c.get("key").asText(), c.get("rows").asInt(),
                        c.get("low").asDouble(), c.get("median").asDouble(), c.get("high").asDouble()));
            return Collections.unmodifiableMap(out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }
}
