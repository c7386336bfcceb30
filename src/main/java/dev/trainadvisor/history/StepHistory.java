package dev.trainadvisor.history;

import java.util.Arrays;
import java.util.List;

/**
 * A run's history as its log printed it: one entry per step kept, in step order, warm-up included. Every column has
 * one value per step, NaN where the log printed none. A leaf of the package graph: the log parsers (ingest) fill it,
 * the run's measurements (spec) carry it, the facts (facts) read it.
 *
 * <p>Very long logs are kept at a bounded resolution: past {@link #MAX_ROWS} steps, neighbouring steps are merged into
 * one entry ({@code stride} steps each: times and rates averaged, the worst of each timer's max kept), so that memory
 * stays bounded whatever the log's size.
 *
 * @param steps            the step (iteration) number of each entry: the first of the steps it covers
 * @param stride           how many steps each entry covers (1 unless the log was longer than {@link #MAX_ROWS})
 * @param stepTimeS        seconds of the step as printed (elapsed time per iteration)
 * @param tokensPerGpuPerS throughput as printed or derived
 * @param timestampS       seconds since the log's first timestamp at which the step was printed; NaN without one
 * @param loss             the training loss
 * @param lossScale        the fp16 loss scale
 * @param gradNorm         the gradient norm
 * @param memoryGb         the memory the step reports (allocated or reserved peak), in GB
 * @param learningRate     the learning rate
 * @param skipped          1 where the step was skipped (overflow, NaN or inf), else 0
 * @param timers           per-rank timers where the log prints them (Megatron's {@code name ...: (min, max)}), one entry
 *                         per step
 * @param warmupSteps      the entries the steady-state medians leave out as warm-up, from the start
 * @param warmupReason     why: "iteration number", "learning-rate warm-up", "pace settling" or "first steps"
 */
public record StepHistory(long[] steps, int stride, double[] stepTimeS, double[] tokensPerGpuPerS, double[] timestampS,
                          double[] loss, double[] lossScale, double[] gradNorm, double[] memoryGb, double[] learningRate,
                          double[] skipped, List<RankTimer> timers, int warmupSteps, String warmupReason,
                          List<Event> events, List<MeanTimer> meanTimers) {

    /**
     * A timer the log reports only as its mean over the run (Lightning's SimpleProfiler report: mean duration and number
     * of calls of each action), not step by step.
     *
     * @param name   the history's name for it ({@link #BATCH_GENERATOR} for fetching the next batch)
     * @param meanS  seconds a call, on average over the run
     * @param calls  how many calls the mean is over
     * @param source what the log printed it as
     */
    public record MeanTimer(String name, double meanS, long calls, String source) {}

    /** The mean timer named {@code name}, or null. */
    public MeanTimer meanTimer(String name) {
        for (MeanTimer t : meanTimers) if (t.name().equals(name)) return t;
        return null;
    }

    /** A history with the log's events and no mean timers. */
    public StepHistory(long[] steps, int stride, double[] stepTimeS, double[] tokensPerGpuPerS, double[] timestampS,
                       double[] loss, double[] lossScale, double[] gradNorm, double[] memoryGb, double[] learningRate,
                       double[] skipped, List<RankTimer> timers, int warmupSteps, String warmupReason, List<Event> events) {
        this(steps, stride, stepTimeS, tokensPerGpuPerS, timestampS, loss, lossScale, gradNorm, memoryGb, learningRate,
                skipped, timers, warmupSteps, warmupReason, events, List.of());
    }

    /** A history without the log's events. */
    public StepHistory(long[] steps, int stride, double[] stepTimeS, double[] tokensPerGpuPerS, double[] timestampS,
                       double[] loss, double[] lossScale, double[] gradNorm, double[] memoryGb, double[] learningRate,
                       double[] skipped, List<RankTimer> timers, int warmupSteps, String warmupReason) {
        this(steps, stride, stepTimeS, tokensPerGpuPerS, timestampS, loss, lossScale, gradNorm, memoryGb, learningRate,
                skipped, timers, warmupSteps, warmupReason, List.of());
    }

    /**
     * Something the log says the run did after a step, besides training: a checkpoint saved (the Trainer's "Saving model
     * checkpoint to .../checkpoint-N", Megatron's "saving checkpoint at iteration N"), an evaluation (the Trainer's
     * eval_loss dict).
     */
    public record Event(long step, Kind kind) {}

    /** What an {@link Event} was. */
    public enum Kind {
        CHECKPOINT("a checkpoint save"), EVALUATION("an evaluation");

        public final String phrase;

        Kind(String phrase) { this.phrase = phrase; }
    }

    /** The steps after which the log says the run did {@code kind}. */
    public java.util.Set<Long> stepsOf(Kind kind) {
        java.util.Set<Long> out = new java.util.TreeSet<>();
        for (Event e : events) if (e.kind() == kind) out.add(e.step());
        return out;
    }

    /** Timer names as Megatron prints them (megatron/training/training.py, timers_to_log). */
    public static final String FORWARD_BACKWARD = "forward-backward", BATCH_GENERATOR = "batch-generator",
            OPTIMIZER = "optimizer";
    /** Each rank's own step time, from a folder of per-rank logs (assemble.RankLogs): the fastest and slowest rank. */
    public static final String RANK_STEP = "step (per-rank logs)";

    /** At most this many entries are kept; a longer log is kept at a coarser stride. */
    public static final int MAX_ROWS = 1 << 18;

    /**
     * A timer each rank reports, summarised over ranks per step: the fastest and the slowest rank's seconds.
     *
     * @param name the timer's name as printed ("forward-backward", "batch-generator", "optimizer", ...)
     */
    public record RankTimer(String name, double[] minS, double[] maxS) {}

    public static final StepHistory EMPTY = new StepHistory(new long[0], 1, new double[0], new double[0], new double[0],
            new double[0], new double[0], new double[0], new double[0], new double[0], new double[0], List.of(), 0, "");

    public StepHistory {
        int n = steps.length;
        for (double[] c : new double[][]{stepTimeS, tokensPerGpuPerS, timestampS, loss, lossScale, gradNorm, memoryGb,
                learningRate, skipped})
            if (c.length != n) throw new IllegalArgumentException("every column has one value per step: " + c.length + " != " + n);
        for (RankTimer t : timers)
            if (t.minS().length != n || t.maxS().length != n)
                throw new IllegalArgumentException("timer " + t.name() + " has one value per step");
        if (stride < 1) throw new IllegalArgumentException("stride " + stride);
        if (warmupSteps < 0 || warmupSteps > n) throw new IllegalArgumentException("warm-up " + warmupSteps + " of " + n);
        timers = List.copyOf(timers);
    }

    public int size() { return steps.length; }

    public boolean isEmpty() { return steps.length == 0; }

    /** A timer by name, or null. */
    public RankTimer timer(String name) {
        for (RankTimer t : timers) if (t.name().equals(name)) return t;
        return null;
    }

    /** A column of NaN, {@code n} long: a history without that quantity. */
    public static double[] absent(int n) {
        double[] c = new double[n];
        Arrays.fill(c, Double.NaN);
        return c;
    }
}
