package dev.trainadvisor.ingest;

/**
 * mosaicml Composer / llm-foundry console logs (docs/logs.md (Composer)): a progress header
 * {@code [epoch=1][batch=5/5]:} (or {@code [batch=N/M]:}, {@code [token=..]}, {@code [sample=..]}) followed by one
 * {@code Train name: value} per metric (tab or spaces before it; several on one line when a paste lost the
 * newlines). Values print as {@code .4f} floats or ints.
 *
 * <p>Metrics (SpeedMonitor's sliding-window averages): {@code throughput/device/tokens_per_sec} →
 * tokens_per_gpu_per_s; {@code throughput/device/mfu} → mfu (already a fraction); {@code throughput/device/flops_per_sec}
 * / 1e12 → tflops_per_gpu (convention {@code composer}); 1 / {@code throughput/batches_per_sec} → step_time_s (a batch
 * is one optimizer step); the largest {@code memory/peak_reserved_mem} (else {@code memory/peak_allocated_mem}; GB of
 * 1e9 bytes as the MemoryMonitor logs them) → peak_memory_gb; steps = the last batch. Extra: samples_per_s, device_samples_per_s, tokens_per_s.
 * A header that counts tokens or samples instead of batches numbers the blocks in order.
 *
 * <p>History: step time, tokens/GPU/s, {@code loss/train/total}, the first learning-rate group ({@code lr-.../group0}),
 * {@code l2-norm/grad/global}, memory ({@code memory/peak_reserved_mem}) and {@code time/train} (hours) as the
 * timestamp. A header counting tokens or samples numbers the blocks by position: warm-up is then judged by position.
 */
public final class ComposerLog extends GuardedLogParser {
    public static final String FORMAT = "composer";

    public ComposerLog() { super(FORMAT); }

    @Override
    double score(String text) {
        int[] c = new int[2];
        Lines.scan(text, line -> {
            if (header(line) != null) c[0]++;
            else if (line.strip().startsWith("Train ") && line.indexOf(": ") > 0 && line.contains("/")) c[1]++;
            return c[0] == 0 || c[1] == 0;          // a header and a metric line decide
        });
        if (c[0] > 0 && c[1] > 0) return 0.9;
        if (c[0] > 0) return 0.5;
        return c[1] >= 3 ? 0.5 : 0;
    }

    /** {kind, number} of a progress header ({@code [batch=5/5]:}), or null. */
    static long[] header(String line) {
        String s = line.strip();
        if (!s.startsWith("[")) return null;
        int close = s.indexOf("]:");
        if (close < 0) return null;
        String[] kinds = {"[batch=", "[token=", "[sample="};
        for (int k = 0; k < kinds.length; k++) {
            int i = s.indexOf(kinds[k]);
            if (i < 0 || i > close) continue;
            int j = i + kinds[k].length();
            long n = Num.digitsAt(s, j);
            int e = Num.skipDigits(s, j);
            if (n >= 0 && e < s.length() && s.charAt(e) == '/') return new long[] {k, n};
        }
        return null;
    }


    @Override
    ParsedLog read(LogSource log) {
        LogResult r = new LogResult(FORMAT);
        StepSeries s = r.series;
        long step = -1;
        long blocks = 0;
        double[] peaks = {Double.NaN, Double.NaN};
        try (LogSource.Pass lines = log.lines()) {
            for (String line : lines) {
                long[] h = header(line);
                String rest = line;
                if (h != null) {
                    blocks++;
                    // a header that counts tokens or samples numbers the blocks: positions, not iterations
                    if (h[0] != 0) s.numbered = false;
                    step = h[0] == 0 ? h[1] : blocks;
                    s.touch(step);
                    rest = line.substring(line.indexOf("]:") + 2);
                }
                if (step < 0) continue;
                int i = Lines.indexOfWord(rest, "Train ");
                while (i >= 0) {
                    int nameStart = i + 6;
                    int colon = rest.indexOf(": ", nameStart);
                    if (colon < 0) break;
                    String name = rest.substring(nameStart, colon).strip();
                    int v = colon + 2;
                    while (v < rest.length() && rest.charAt(v) == ' ') v++;
                    int e = v;
                    while (e < rest.length() && !Character.isWhitespace(rest.charAt(e))) e++;
                    metric(r, peaks, step, name, Num.parse(rest.substring(v, e)));
                    i = Lines.indexOfWord(rest, "Train ", e);
                }
            }
        }
        r.peakMemory(peaks[0]);
        if (Double.isNaN(peaks[0])) r.peakMemory(peaks[1]);
        r.convention = "composer";
        if (s.lastStep() >= 0 && blocks > 0) r.totalSteps = s.lastStep();
        if (s.size() == 0) r.warn("no Composer progress blocks found");
        return r.build();
    }

    /**
     * One {@code Train name: value}. {@code peaks} holds the largest memory/peak_reserved_mem and
     * memory/peak_allocated_mem seen (GB of 1e9 bytes, as Composer's MemoryMonitor logs them).
     */
    private static void metric(LogResult r, double[] peaks, long step, String name, double v) {
        StepSeries s = r.series;
        if (!Double.isFinite(v) || v < 0) return;
        if (name.startsWith("memory/peak_reserved_mem")) {
            peaks[0] = Double.isNaN(peaks[0]) ? v : Math.max(peaks[0], v);
            s.putMax(step, StepSeries.MEMORY, v);
            return;
        }
        if (name.startsWith("memory/peak_allocated_mem")) {
            peaks[1] = Double.isNaN(peaks[1]) ? v : Math.max(peaks[1], v);
            return;
        }
        if (name.startsWith("loss/train/total")) {
            s.put(step, StepSeries.LOSS, v);
            return;
        }
        if (name.startsWith("lr-") && name.endsWith("/group0")) {
            s.put(step, StepSeries.LR, v);
            return;
        }
        if (name.equals("l2-norm/grad/global")) {
            s.put(step, StepSeries.GRAD_NORM, v);
            return;
        }
        if (name.equals("time/train")) {
            s.timestamp(step, v * 3600);                 // hours of training so far (the history counts seconds)
            return;
        }
        switch (name) {
            case "throughput/device/tokens_per_sec" -> s.put(step, "tokens_per_gpu_per_s", v);
            case "throughput/device/mfu" -> { if (v <= 1) s.put(step, "mfu", v); }
            case "throughput/device/flops_per_sec" -> s.put(step, "tflops_per_gpu", v / 1e12);
            case "throughput/batches_per_sec" -> { if (v > 0) s.put(step, "step_time_s", 1 / v); }
            case "throughput/samples_per_sec" -> s.put(step, "samples_per_s", v);
            case "throughput/device/samples_per_sec" -> s.put(step, "device_samples_per_s", v);
            case "throughput/tokens_per_sec" -> s.put(step, "tokens_per_s", v);
            default -> { }
        }
    }
}
