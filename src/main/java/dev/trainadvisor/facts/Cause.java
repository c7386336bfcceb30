package dev.trainadvisor.facts;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every diagnosis the shipped rules conclude, by the id its rule declares ({@code @id}), and the one table of which
 * cause yields to which: the rules and the Java code name a diagnosis by these constants, never by its id string, so
 * that a renamed id fails to compile instead of silently changing the reasoning.
 *
 * <p><b>Precedence.</b> Where two causes explain the same seconds of a step, the one closer to the root claims them
 * first and the other keeps what is left (facts.Claims#grant): a link that delivers a tenth of its rating makes the
 * collectives on it slow, so {@code link-underperforms} claims what repairing the link saves and
 * {@code intra-node-bandwidth} only what the link costs at its rating. A cause lists, in its constant below, the causes
 * it yields to; a diagnosis rule collects exactly those diagnoses ({@code Diagnosis( Cause.X.yieldsTo(cause) )}) and
 * grants its seconds after theirs. The constants are declared root causes first, and a cause can name only causes
 * declared before it, so the table cannot hold a cycle. {@code CausesTest} checks that every diagnosis rule names its
 * own constant there and nothing else.
 *
 * <p>A user's rule file may conclude diagnoses of its own ids: they have no constant ({@link Diagnosis#cause()} is
 * null) and no shipped cause yields to them.
 */
public enum Cause {
    // ------------------------------------------------------------ the measurements and what they decide
    /** Measurements the hardware cannot produce: the run is not fitted, nothing of its times is attributed. */
    IMPLAUSIBLE_MEASUREMENT("implausible-measurement"),
    /** The run's times are those of a lower precision than it says; the advice prices it as it ran. */
    PRECISION_MISMATCH("precision-mismatch"),
    /** The framework's printed TFLOPS count differently from the house convention. */
    FLOPS_ACCOUNTING("flops-accounting"),

    // ------------------------------------------------------------ faults: a quantity far below what it should be
    /** A link delivers far less than its rating: the root of the time its collectives take beyond the rating. */
    LINK_UNDERPERFORMS("link-underperforms"),
    /** GEMMs and attention below the GPU's benchmarks: the root of every compute cost beyond the benchmark pace. */
    COMPUTE_UNDERPERFORMS("compute-underperforms"),

    // ------------------------------------------------------------ communication
    /**
     * A tensor-parallel group across nodes: it yields what a faulty network takes of its all-reduces, and claims the
     * inter-node time it causes before the network's bandwidth diagnosis does.
     */
    TP_ACROSS_NODES("tp-across-nodes", LINK_UNDERPERFORMS),
    /**
     * Communication left unhidden (an overlap off, or hiding less than it should): after a faulty link and TP across
     * nodes, which make the same collectives long whether hidden or not.
     */
    UNOVERLAPPED_COMMUNICATION("unoverlapped-communication", LINK_UNDERPERFORMS, TP_ACROSS_NODES),
    /** The intra-node link bounds the collectives: what is left of their exposed time once its causes claimed theirs. */
    INTRA_NODE_BANDWIDTH("intra-node-bandwidth", LINK_UNDERPERFORMS, TP_ACROSS_NODES, UNOVERLAPPED_COMMUNICATION),
    /** The network bounds the collectives that cross nodes: likewise, after the causes of that time. */
    INTER_NODE_BANDWIDTH("inter-node-bandwidth", LINK_UNDERPERFORMS, TP_ACROSS_NODES, UNOVERLAPPED_COMMUNICATION),

    // ------------------------------------------------------------ compute
    /** A slower attention kernel than FlashAttention-2: after a compute fault, which slows every kernel. */
    SLOW_ATTENTION_KERNEL("slow-attention-kernel", COMPUTE_UNDERPERFORMS),
    /** The optimizer's update unfused: the root of the optimizer step's time beyond the fused kernel's. */
    UNFUSED_OPTIMIZER("unfused-optimizer"),
    /** Eager element-wise kernels: after a compute fault and a slow attention kernel, whose seconds they share. */
    EAGER_ELEMENTWISE("eager-elementwise", COMPUTE_UNDERPERFORMS, SLOW_ATTENTION_KERNEL),
    /** Recomputation: the forward it repeats is as slow as the kernels that make it up. */
    RECOMPUTE_OVERHEAD("recompute-overhead", COMPUTE_UNDERPERFORMS, SLOW_ATTENTION_KERNEL, EAGER_ELEMENTWISE),
    /** The host launching kernels slower than they run: after the causes that make the kernels themselves slow. */
    LAUNCH_BOUND("launch-bound", COMPUTE_UNDERPERFORMS, SLOW_ATTENTION_KERNEL, EAGER_ELEMENTWISE),
    /** GEMMs too small for the GPU: the idle share of what is left of the compute once every cause above took its own. */
    SMALL_MICRO_BATCH("small-micro-batch", COMPUTE_UNDERPERFORMS, SLOW_ATTENTION_KERNEL, EAGER_ELEMENTWISE,
            RECOMPUTE_OVERHEAD, LAUNCH_BOUND),
    /** The optimizer step's share: what is left of it beyond what an unfused update costs. */
    OPTIMIZER_STEP_BOUND("optimizer-step-bound", UNFUSED_OPTIMIZER),

    // ------------------------------------------------------------ pipeline
    /** The pipeline bubble lasts as long as a micro-batch's compute, so the compute causes claim their share first. */
    PIPELINE_BUBBLE("pipeline-bubble", COMPUTE_UNDERPERFORMS, SLOW_ATTENTION_KERNEL, EAGER_ELEMENTWISE),

    // ------------------------------------------------------------ offload
    /** The host's memory bandwidth bounds its optimizer: the root of the host optimizer's seconds. */
    HOST_MEMORY_BOUND("host-memory-bound"),
    /** The step waits for what offload moves: what is left of the offload's seconds beyond host-memory-bound. */
    OFFLOAD_BOUND("offload-bound", HOST_MEMORY_BOUND),
    /** The host cannot hold what the run offloads. */
    HOST_MEMORY_OVERFLOW("host-memory-overflow"),

    // ------------------------------------------------------------ memory
    /** The predicted peak exceeds the GPU's memory. */
    MEMORY_OVERFLOW("memory-overflow"),
    /** No layout of these GPUs holds the run. */
    NO_LAYOUT_FITS("no-layout-fits"),
    /** Unused memory could buy speed. */
    MEMORY_HEADROOM("memory-headroom"),

    // ------------------------------------------------------------ numerics
    /** Steps skipped for overflow. */
    LOSS_SCALE_SKIPS("loss-scale-skips"),

    // ------------------------------------------------------------ the run's history
    /** Steps stalling at a fixed period. */
    PERIODIC_STALL("periodic-stall"),
    /** A run that slows part-way through. */
    SLOWDOWN_OVER_TIME("slowdown-over-time"),
    /** One rank slower than the others. */
    STRAGGLER("straggler"),
    /** The GPUs waiting for the data loader. */
    DATA_LOADER_STALL("data-loader-stall"),
    /** Steps scattering widely: a straggler, which holds every rank at each collective, explains the scatter whole. */
    STEP_JITTER("step-jitter", STRAGGLER),
    /** Memory at its limit. */
    MEMORY_PRESSURE("memory-pressure"),
    /** An unstable loss. */
    LOSS_INSTABILITY("loss-instability"),

    // ------------------------------------------------------------ verdicts on the whole step
    /** The run performs as the model predicts. */
    HEALTHY("healthy"),
    /** Slower than the model with no cause singled out; it keeps what no sure cause claims (measurement.drl). */
    UNEXPLAINED_SLOWDOWN("unexplained-slowdown"),
    /** Faster than the model: its inputs are off. */
    FASTER_THAN_MODEL("faster-than-model");

    private final String id;
    private final List<Cause> yieldsTo;

    Cause(String id, Cause... yieldsTo) {
        this.id = id;
        this.yieldsTo = List.of(yieldsTo);
    }

    /** The id its rule declares and the advice reports it under. */
    public String id() { return id; }

    /** The causes that claim the seconds this one would claim first, root causes first. */
    public List<Cause> yieldsTo() { return yieldsTo; }

    /** Whether {@code other} claims its seconds before this cause does (false for null: a user's own diagnosis). */
    public boolean yieldsTo(Cause other) { return other != null && yieldsTo.contains(other); }

    private static final Map<String, Cause> BY_ID =
            Arrays.stream(values()).collect(Collectors.toUnmodifiableMap(Cause::id, Function.identity()));

    /** The cause of a diagnosis id, or null for an id no shipped rule declares (a user's own diagnosis). */
    public static Cause byId(String id) { return id == null ? null : BY_ID.get(id); }
}
