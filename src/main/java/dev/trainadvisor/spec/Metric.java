package dev.trainadvisor.spec;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/** What a run can measure, by its run-file name under {@code metrics:} ({@link #key()}). */
public enum Metric {
    TFLOPS_PER_GPU, TFLOPS_CONVENTION, TOKENS_PER_GPU_PER_S, STEP_TIME_S, FWD_BWD_TIME_S, FORWARD_TIME_S,
    BACKWARD_TIME_S, OPTIMIZER_TIME_S, MFU, PEAK_MEMORY_GB, STEPS, SKIPPED_STEPS, LOSS_SCALE;

    /** The run-file name: "fwd_bwd_time_s". */
    private final String key = name().toLowerCase(Locale.ROOT);
    public String key() { return key; }

    /** Every run-file name, in declaration order. */
    public static Set<String> keys() {
        Set<String> out = new LinkedHashSet<>();
        for (Metric m : values()) out.add(m.key());
        return Set.copyOf(out);
    }

    /** The metric of a run-file name, or null. */
    public static Metric of(String key) {
        for (Metric m : values()) if (m.key().equals(key)) return m;
        return null;
    }
}
