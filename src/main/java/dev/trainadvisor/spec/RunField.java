package dev.trainadvisor.spec;

import dev.trainadvisor.input.SpecException;

import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * A run-file field that a change can set: its dotted path (how reports print it), the type of its value, the range a
 * value must lie in, and how it reads and sets a {@link RunFile}. Rules and the layout search name fields through these
 * constants, so a renamed field fails to compile instead of silently setting nothing.
 *
 * @param <T> the value's type: Integer, Double, Boolean, String (catalogue keys) or a spec enum
 */
public final class RunField<T> {

    /** The run file's section a field sits in. */
    public enum Section { CLUSTER, PARALLEL, TRAINING }

    private final String path;
    private final Section section;
    private final Class<T> type;
    private final Function<RunFile.Draft, T> get;
    private final BiConsumer<RunFile.Draft, T> set;
    private final long min, max;

    private RunField(String path, Section section, Class<T> type, long min, long max, Function<RunFile.Draft, T> get,
                     BiConsumer<RunFile.Draft, T> set) {
        this.path = path;
        this.section = section;
        this.type = type;
        this.min = min;
        this.max = max;
        this.get = get;
        this.set = set;
    }

    private static RunField<Integer> count(String path, Section s, long min, long max, Function<RunFile.Draft, Integer> get,
                                           BiConsumer<RunFile.Draft, Integer> set) {
        return new RunField<>(path, s, Integer.class, min, max, get, set);
    }

    private static <T> RunField<T> of(String path, Section s, Class<T> type, Function<RunFile.Draft, T> get,
                                      BiConsumer<RunFile.Draft, T> set) {
        return new RunField<>(path, s, type, 0, 0, get, set);
    }

    // ------------------------------------------------------------------ cluster

    /** A catalogue GPU, by key. */
    public static final RunField<String> GPU = of("cluster.gpu", Section.CLUSTER, String.class,
            d -> d.gpu == null ? null : d.gpu.key(),
            (d, v) -> d.gpu = Catalog.builtIn().gpu(v, "what-if", "cluster.gpu"));
    public static final RunField<Integer> NODES = count("cluster.nodes", Section.CLUSTER, 1, Bounds.GPUS,
            d -> d.nodes, (d, v) -> d.nodes = v);
    public static final RunField<Integer> GPUS_PER_NODE = count("cluster.gpus_per_node", Section.CLUSTER, 1,
            Bounds.GPUS_PER_NODE, d -> d.gpusPerNode, (d, v) -> d.gpusPerNode = v);
    public static final RunField<String> INTRA_LINK = of("cluster.intra_node.link", Section.CLUSTER, String.class,
            d -> d.intraLink, (d, v) -> d.intraLink = v);
    public static final RunField<Double> INTRA_BUSBW = of("cluster.intra_node.busbw_gbps", Section.CLUSTER, Double.class,
            d -> d.intraBusbw, (d, v) -> d.intraBusbw = v);
    public static final RunField<Transport> INTRA_TRANSPORT = of("cluster.intra_node.transport", Section.CLUSTER,
            Transport.class, d -> d.transport, (d, v) -> d.transport = v);
    public static final RunField<Integer> INTRA_SOCKETS = count("cluster.intra_node.sockets", Section.CLUSTER, 1, 2,
            d -> d.sockets, (d, v) -> d.sockets = v);
    public static final RunField<String> INTER_LINK = of("cluster.inter_node.link", Section.CLUSTER, String.class,
            d -> d.interLink, (d, v) -> d.interLink = v);
    public static final RunField<Integer> NICS_PER_NODE = count("cluster.inter_node.nics_per_node", Section.CLUSTER, 1,
            Bounds.SMALL_COUNT, d -> d.nics, (d, v) -> d.nics = v);
    public static final RunField<Double> INTER_BUSBW = of("cluster.inter_node.busbw_gbps", Section.CLUSTER, Double.class,
            d -> d.interBusbw, (d, v) -> d.interBusbw = v);

    // ------------------------------------------------------------------ parallel

    public static final RunField<Integer> TP = count("parallel.tp", Section.PARALLEL, 1, Bounds.GPUS,
            d -> d.parallel.tp, (d, v) -> d.parallel.tp = v);
    public static final RunField<Integer> PP = count("parallel.pp", Section.PARALLEL, 1, Bounds.GPUS,
            d -> d.parallel.pp, (d, v) -> d.parallel.pp = v);
    public static final RunField<Integer> VIRTUAL_STAGES = count("parallel.virtual_stages", Section.PARALLEL, 1,
            Bounds.VIRTUAL_STAGES, d -> d.parallel.virtualStages, (d, v) -> d.parallel.virtualStages = v);
    public static final RunField<Integer> CP = count("parallel.cp", Section.PARALLEL, 1, Bounds.GPUS,
            d -> d.parallel.cp, (d, v) -> d.parallel.cp = v);
    public static final RunField<Integer> DP = count("parallel.dp", Section.PARALLEL, 1, Bounds.GPUS,
            d -> d.parallel.dp, (d, v) -> d.parallel.dp = v);
    public static final RunField<Integer> EP = count("parallel.ep", Section.PARALLEL, 1, Bounds.GPUS,
            d -> d.parallel.ep, (d, v) -> d.parallel.ep = v);
    public static final RunField<Integer> ETP = count("parallel.etp", Section.PARALLEL, 1, Bounds.GPUS,
            d -> d.parallel.etp, (d, v) -> d.parallel.etp = v);
    public static final RunField<Boolean> SEQUENCE_PARALLEL = of("parallel.sequence_parallel", Section.PARALLEL,
            Boolean.class, d -> d.parallel.sequenceParallel, (d, v) -> d.parallel.sequenceParallel = v);
    public static final RunField<Integer> ZERO_STAGE = count("parallel.zero_stage", Section.PARALLEL, 0, 3,
            d -> d.parallel.zeroStage, (d, v) -> d.parallel.zeroStage = v);
    public static final RunField<Integer> ZERO_GROUP_SIZE = count("parallel.zero_group_size", Section.PARALLEL, 1,
            Bounds.GPUS, d -> d.parallel.zeroGroupSize, (d, v) -> d.parallel.zeroGroupSize = v);
    public static final RunField<Boolean> OVERLAP_GRAD_REDUCE = of("parallel.overlap_grad_reduce", Section.PARALLEL,
            Boolean.class, d -> d.parallel.overlapGradReduce, (d, v) -> d.parallel.overlapGradReduce = v);
    public static final RunField<Boolean> OVERLAP_PARAM_GATHER = of("parallel.overlap_param_gather", Section.PARALLEL,
            Boolean.class, d -> d.parallel.overlapParamGather, (d, v) -> d.parallel.overlapParamGather = v);

    public static final RunField<Boolean> GRAD_REDUCE_EVERY_MICRO_BATCH = of("parallel.grad_reduce_every_micro_batch",
            Section.PARALLEL, Boolean.class, d -> d.parallel.gradReduceEveryMicroBatch,
            (d, v) -> d.parallel.gradReduceEveryMicroBatch = v);
    public static final RunField<MoeDispatcher> MOE_DISPATCHER = of("parallel.moe_dispatcher", Section.PARALLEL,
            MoeDispatcher.class, d -> d.parallel.moeDispatcher, (d, v) -> d.parallel.moeDispatcher = v);
    public static final RunField<Boolean> MOE_A2A_OVERLAP = of("parallel.moe_a2a_overlap", Section.PARALLEL, Boolean.class,
            d -> d.parallel.moeA2aOverlap, (d, v) -> d.parallel.moeA2aOverlap = v);
    public static final RunField<RankOrder> RANK_ORDER = of("parallel.rank_order", Section.PARALLEL, RankOrder.class,
            d -> d.parallel.rankOrder, (d, v) -> d.parallel.rankOrder = v);

    // ------------------------------------------------------------------ training

    public static final RunField<Integer> MICRO_BATCH_SIZE = count("training.micro_batch_size", Section.TRAINING, 1,
            Bounds.MICRO_BATCH_SIZE, d -> d.training.microBatchSize, (d, v) -> d.training.microBatchSize = v);
    public static final RunField<Integer> MICRO_BATCHES = count("training.micro_batches", Section.TRAINING, 1,
            Bounds.MICRO_BATCHES, d -> d.training.microBatches, (d, v) -> d.training.microBatches = v);
    public static final RunField<Recompute> RECOMPUTE = of("training.recompute", Section.TRAINING, Recompute.class,
            d -> d.training.recompute, (d, v) -> d.training.recompute = v);
    public static final RunField<Double> RECOMPUTE_FRACTION = of("training.recompute_fraction", Section.TRAINING,
            Double.class, d -> d.training.recomputeFraction, (d, v) -> d.training.recomputeFraction = v);
    public static final RunField<Precision> PRECISION = of("training.precision", Section.TRAINING, Precision.class,
            d -> d.training.precision, (d, v) -> d.training.precision = v);
    public static final RunField<Precision> GRAD_REDUCE_PRECISION = of("training.grad_reduce_precision",
            Section.TRAINING, Precision.class, d -> d.training.gradReducePrecision,
            (d, v) -> d.training.gradReducePrecision = v);
    public static final RunField<Boolean> FLASH_ATTENTION = of("training.flash_attention", Section.TRAINING,
            Boolean.class, d -> d.training.flashAttention, (d, v) -> d.training.flashAttention = v);
    public static final RunField<AttentionKernel> ATTENTION_KERNEL = of("training.attention_kernel", Section.TRAINING,
            AttentionKernel.class, d -> d.training.attentionKernel, (d, v) -> d.training.attentionKernel = v);
    public static final RunField<ElementwiseKernels> ELEMENTWISE_KERNELS = of("training.elementwise_kernels",
            Section.TRAINING, ElementwiseKernels.class, d -> d.training.elementwiseKernels,
            (d, v) -> d.training.elementwiseKernels = v);
    /** What the run keeps off the GPU; cleared, nothing. */
    public static final RunField<Offload> OFFLOAD = of("training.offload", Section.TRAINING, Offload.class,
            d -> d.training.offload != null && d.training.offload.any() ? d.training.offload : null,
            (d, v) -> d.training.offload = v);
    public static final RunField<Boolean> CUDA_GRAPHS = of("training.cuda_graphs", Section.TRAINING, Boolean.class,
            d -> d.training.cudaGraphs, (d, v) -> d.training.cudaGraphs = v);
    public static final RunField<OptimizerKernel> OPTIMIZER_KERNEL = of("training.optimizer_kernel", Section.TRAINING,
            OptimizerKernel.class, d -> d.training.optimizerKernel, (d, v) -> d.training.optimizerKernel = v);

    /** Every field, by its dotted path. */
    private static final java.util.Map<String, RunField<?>> BY_PATH = byPath();

    private static java.util.Map<String, RunField<?>> byPath() {
        java.util.Map<String, RunField<?>> m = new java.util.TreeMap<>();
        for (java.lang.reflect.Field f : RunField.class.getDeclaredFields()) {
            if (f.getType() != RunField.class || !java.lang.reflect.Modifier.isStatic(f.getModifiers())) continue;
            try {
                RunField<?> v = (RunField<?>) f.get(null);
                m.put(v.path, v);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        return java.util.Collections.unmodifiableMap(m);
    }

    /** The dotted paths a change can set. */
    public static java.util.Set<String> paths() { return BY_PATH.keySet(); }

    /**
     * The field of a dotted run-file path, for rule files that write changes in run-file terms (facts.Change); an
     * unknown path is refused, naming the nearest known ones.
     */
    public static RunField<?> byPath(String path) {
        RunField<?> f = BY_PATH.get(path);
        if (f == null) {
            String near = Names.nearest(path, BY_PATH.keySet(), 3);
            throw new IllegalArgumentException("no run-file field a change can set is named '" + path + "'"
                    + (near.isEmpty() ? "" : " (nearest: " + near + ")") + "; they are " + BY_PATH.keySet());
        }
        return f;
    }

    /**
     * A value as a run file writes it ("bf16", 2, true) taken as this field's type: an enum by its key, a number as
     * an Integer or a Double; anything that is not one is refused.
     */
    @SuppressWarnings("unchecked")
    public T parse(Object written) {
        if (written == null || type.isInstance(written)) return (T) written;
        if (type.isEnum() && written instanceof String s) {
            for (Object c : type.getEnumConstants())
                if (((Enum<?>) c).name().equalsIgnoreCase(s.trim())) return (T) c;
        }
        if (type == Integer.class && written instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())
                && Math.abs(n.doubleValue()) < Integer.MAX_VALUE) return (T) Integer.valueOf(n.intValue());
        if (type == Double.class && written instanceof Number n) return (T) Double.valueOf(n.doubleValue());
        throw new IllegalArgumentException(path + " takes " + (type.isEnum() ? "one of "
                + java.util.Arrays.stream(type.getEnumConstants()).map(c -> SpecWriter.key((Enum<?>) c)).toList()
                : type.getSimpleName()) + ", got " + written);
    }

    /** The dotted run-file path: "parallel.zero_group_size". */
    public String path() { return path; }

    public Section section() { return section; }

    public Class<T> type() { return type; }

    /** The field's value in {@code f}; null where the file leaves it to its default. */
    public T get(RunFile f) { return get.apply(new RunFile.Draft(f)); }

    /** The value as a run file writes it: an enum by its key, anything else as it is. */
    public Object written(T value) {
        if (value instanceof Enum<?> e) return SpecWriter.key(e);
        if (value instanceof Offload o) return SpecWriter.offload(o);
        return value;
    }

    /** Sets the field of a draft, null leaving it to its default; a value outside the field's range is refused. */
    void set(RunFile.Draft d, T value) {
        if (value != null && !type.isInstance(value))
            throw new IllegalArgumentException(path + " takes " + type.getSimpleName() + ", got " + value.getClass().getSimpleName());
        if (value instanceof Integer i && max > 0 && (i < min || i > max))
            throw new SpecException("what-if", path, (min == 1 ? Bounds.range((int) max) : "an integer from " + min + " to " + max)
                    + ", got " + i);
        if (value instanceof Double x && !(x > 0 && Double.isFinite(x)))
            throw new SpecException("what-if", path, "a positive number, got " + x);
        set.accept(d, value);
    }

    @Override
    public String toString() { return path; }
}
