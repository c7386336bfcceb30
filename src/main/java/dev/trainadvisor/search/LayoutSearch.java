package dev.trainadvisor.search;

import dev.trainadvisor.perf.Collective;
import dev.trainadvisor.perf.MemoryEstimate;
import dev.trainadvisor.perf.MemoryModel;
import dev.trainadvisor.perf.Phase;
import dev.trainadvisor.perf.StepModel;
import dev.trainadvisor.perf.StepPrediction;
import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Offload;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.RankOrder;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.RunSpec;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The layouts of a run on its GPUs at the same global batch, each predicted by the step model, the fastest first.
 * Enumerates tensor, pipeline (with interleaving), context, data and expert parallelism (expert-TP folded as
 * Megatron-Core folds it), sequence parallelism, the ZeRO stage, the micro-batch size and count, and recomputation;
 * keeps what divides and fits in memory with {@code headroom} of it free. Pruned before any layout is timed: a layout
 * whose memory (computed apart, perf.MemoryModel) does not fit is not predicted, and for each layout the recomputation
 * is tried from none to full, stopping at the first that fits (more recomputation at the same layout is only slower).
 * Multithreaded; the result does not depend on the threads (ties break on the layout's description).
 */
public final class LayoutSearch {
    private LayoutSearch() {}

    /**
     * The share of a GPU's memory a layout is to leave free, and below which a recommendation says its memory is tight:
     * the 5% issue 10 names ("a recommendation that leaves less than 5% memory headroom says so"), room for allocator
     * fragmentation and the buffers the memory model counts only as a flat 2 GB (perf.MemoryModel.BUFFERS_GB).
     */
    public static final double HEADROOM = 0.05;

    /** Every knob the search may vary (--vary names them as the run file does). */
    public static final List<String> KNOBS = List.of("tp", "pp", "virtual_stages", "cp", "ep", "etp",
            "sequence_parallel", "zero_stage", "micro_batch_size", "recompute", "offload", "fp8", "rank_order");

    /**
     * The knobs varied unless asked otherwise: all but fp8, which changes the numerics of every GEMM (a run that is
     * not fp8 is not made fp8 unless --vary names it), and rank_order, which only a framework with a switch for it can
     * change (Megatron's --use-tp-pp-dp-mapping) and which doubles every pipelined layout. Both data-parallel overlaps
     * are always on: the model never predicts an overlap slower than none, and they cost no memory, so a layout
     * without them is never the best.
     */
    public static final List<String> DEFAULT_KNOBS = KNOBS.stream()
            .filter(k -> !k.equals("fp8") && !k.equals("rank_order")).toList();

    /**
     * @param top      how many layouts to return in full
     * @param headroom the share of the GPU's memory a layout must leave free
     * @param vary     the knobs to vary; the others stay as the run has them
     * @param threads  worker threads
     */
    public record Options(int top, double headroom, Set<String> vary, int threads, long maxLayouts) {
        /** Every layout the knobs make, however many: what {@code search} asks for. */
        public Options(int top, double headroom, Set<String> vary, int threads) {
            this(top, headroom, vary, threads, Long.MAX_VALUE);
        }

        public static Options defaults() {
            return new Options(5, HEADROOM, Set.copyOf(DEFAULT_KNOBS), Runtime.getRuntime().availableProcessors());
        }

        /**
         * One layout, the default knobs, one thread, at most {@link #ADVICE_MAX_LAYOUTS} layouts: what the advice asks of
         * the search, which must not hold the advice up.
         */
        public static Options forAdvice() {
            return new Options(1, HEADROOM, Set.copyOf(DEFAULT_KNOBS), 1, ADVICE_MAX_LAYOUTS);
        }
    }

    /**
     * The most layouts the advice's own search enumerates; a larger space is left to {@code search}. The dense run at
     * the run-file bounds (spec.Bounds) makes 380,064 and is advised in about 3 s on one thread here; an MoE run at
     * the bounds makes 34 times that and would take minutes.
     */
    public static final long ADVICE_MAX_LAYOUTS = 1_000_000;

    /** One layout that fits, as the model predicts it. */
    public record Candidate(Layout layout, double tokensPerGpuPerS, double tflopsPerGpu, double stepTimeS,
                            double memoryGb, double capacityGb, String bottleneck, double bottleneckSeconds) {
        public double headroomGb() { return capacityGb - memoryGb; }
    }

    /**
     * @param own       the run's own layout as predicted (null when it does not fit)
     * @param best      the top layouts, fastest first
     * @param pareto    the layouts no other beats on both throughput and memory headroom, fastest first
     * @param visited   layouts enumerated, each recomputation counted; {@code predicted} of them timed,
 *                  {@code prunedByMemory} left untimed because their memory alone did not fit, the rest skipped
 *                  because less recomputation of the same layout already fit
     */
    public record Result(Candidate own, List<Candidate> best, List<Candidate> pareto, long visited, long predicted,
                         long prunedByMemory, long fitting, double seconds) {}

    public static Result search(RunSpec spec, Options o) {
        long start = System.nanoTime();
        Cluster cluster = spec.cluster();
        RunMetrics run = spec.run();
        List<Layout> shapes = Space.enumerate(cluster, run, o.vary(), o.maxLayouts());
        if (shapes == null)     // more layouts than the caller allows: none searched, the run's own as it is
            return new Result(candidate(cluster, run, Layout.of(run), 0), List.of(), List.of(), 0, 0, 0, 0,
                    (System.nanoTime() - start) / 1e9);
        AtomicLong predicted = new AtomicLong(), pruned = new AtomicLong();
        ForkJoinPool pool = new ForkJoinPool(Math.max(1, o.threads()));
        List<Candidate> fitting;
        try {
            fitting = pool.submit(() -> shapes.parallelStream()
                    .map(l -> best(cluster, run, l, o, predicted, pruned))
                    .filter(java.util.Objects::nonNull).toList()).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("search interrupted", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("search failed: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdown();
        }
        List<Candidate> sorted = new ArrayList<>(fitting);
        // the run's own layout is always ranked, even where the space leaves it out (an uneven pipeline split)
        Layout mine = Layout.of(run);
        if (sorted.stream().noneMatch(c -> c.layout().equals(mine))) {
            Candidate c = candidate(cluster, mine.apply(run), mine, o.headroom());
            if (c != null) sorted.add(c);
        }
        sorted.sort(ORDER);
        Candidate own = candidate(cluster, run, Layout.of(run), 0);
        return new Result(own, List.copyOf(sorted.subList(0, Math.min(o.top(), sorted.size()))), pareto(sorted),
                shapes.size() * (long) (o.vary().contains("recompute") ? 3 : 1), predicted.get(), pruned.get(),
                sorted.size(), (System.nanoTime() - start) / 1e9);
    }

    /** The layout a run file gives, described. */
    public static String start(RunSpec spec) { return Layout.of(spec.run()).describe(); }

    /** Fastest first; equal throughputs in the order of their descriptions, so the result is the same every time. */
    static final Comparator<Candidate> ORDER = Comparator.comparingDouble(Candidate::tokensPerGpuPerS).reversed()
            .thenComparing(c -> c.layout().describe());

    /**
     * The first recomputation, from none to full, at which the layout fits, with nothing offloaded; where none does, the
     * same with the optimizer offloaded (ZeRO-Offload), then at ZeRO 3 with the parameters too: offload is the last
     * resort, tried only where the GPUs cannot hold the layout at any recomputation. Null when nothing fits.
     */
    private static Candidate best(Cluster cluster, RunMetrics run, Layout l, Options o, AtomicLong predicted,
                                  AtomicLong pruned) {
        Layout x = firstFitting(cluster, run, l, o, pruned);
        if (x == null) return null;
        predicted.incrementAndGet();
        return candidate(cluster, x.apply(run), x, o.headroom());
    }

    /**
     * {@link #best}'s layout before it is timed: the first recomputation and offload at which {@code l} leaves the
     * headroom free, by its memory alone (the estimate {@link #candidate} checks again is the same one: the step model's
     * memory is MemoryModel's of the same layout); null when none does. {@code pruned} counts the estimates that did
     * not fit.
     */
    private static Layout firstFitting(Cluster cluster, RunMetrics run, Layout l, Options o, AtomicLong pruned) {
        List<Recompute> order = o.vary().contains("recompute")
                ? List.of(Recompute.NONE, Recompute.SELECTIVE, Recompute.FULL) : List.of(l.recompute());
        for (Offload off : offloads(run, l, o.vary())) {
            MemoryEstimate full = order.size() > 1 ? recomputingAll(cluster, run, l.withOffload(off)) : null;
            if (full != null && !fits(full, o)) {
                // a layout that does not fit recomputing every layer fits at no other recomputation: not estimated
                pruned.addAndGet(order.size());
                continue;
            }
            for (Recompute r : order) {
                Layout x = l.withOffload(off).withRecompute(r);
                // full recomputation's estimate is the one just made: not made again
                MemoryEstimate m = full != null && r == Recompute.FULL ? full : memory(cluster, x.apply(run));
                if (!fits(m, o)) {
                    pruned.incrementAndGet();
                    continue;
                }
                return x;
            }
        }
        return null;
    }

    private static MemoryEstimate memory(Cluster cluster, RunMetrics laid) {
        return MemoryModel.of(cluster, laid.model(), laid.parallel(), laid.training());
    }

    /**
     * Whether some layout of the run's GPUs fits, and how many the search would visit
     * ({@link Result#visited}): what {@link #search} says of it as {@code !best().isEmpty()}, by memory alone, stopping
     * at the first layout that fits. What a run that does not fit needs to know of its own GPUs (advice.WhatFits): the
     * search timed every layout that fits to rank them, 3.1 of the 3.5 s that the 109 such searches of
     * bench/fleet.py's 10,000 runs took.
     */
    public record Feasibility(boolean anyFits, long visited) {}

    public static Feasibility feasibility(RunSpec spec, Options o) {
        Cluster cluster = spec.cluster();
        RunMetrics run = spec.run();
        List<Layout> shapes = Space.enumerate(cluster, run, o.vary(), o.maxLayouts());
        if (shapes == null) return new Feasibility(false, 0);
        long visited = shapes.size() * (long) (o.vary().contains("recompute") ? 3 : 1);
        AtomicLong pruned = new AtomicLong();
        for (Layout l : shapes) if (firstFitting(cluster, run, l, o, pruned) != null) return new Feasibility(true, visited);
        // the run's own layout, which the search ranks even where the space leaves it out
        Layout mine = Layout.of(run);
        return new Feasibility(fits(memory(cluster, mine.apply(run)), o), visited);
    }

    /**
     * The memory of {@code l} recomputing every layer in full; null where its full recomputation covers a share of the
     * layers only (then nothing is known of the others). Memory falls with recomputation (perf.ActivationMemory): a
     * layer recomputed in full keeps its input alone, 2sbh bytes over the ranks that share it, where any other
     * recomputation keeps at least the 8sbh of its norm, QKV and MLP inputs over the same ranks, and more; nothing else
     * in the memory estimate depends on the recomputation. So a layout that does not fit in full fits at no other, and
     * the search need not estimate them: a search for a run that fits nowhere (advice.WhatFits) estimated each layout
     * three times.
     * LayoutSearchTest holds the ordering to the memory model over every layout of the examples.
     */
    static MemoryEstimate recomputingAll(Cluster cluster, RunMetrics run, Layout l) {
        Layout full = l.withRecompute(Recompute.FULL);
        if (full.recomputeFraction() != 1.0) return null;
        return memory(cluster, full.apply(run));
    }

    /** Whether an estimate leaves the search's headroom of the memory free. */
    private static boolean fits(MemoryEstimate m, Options o) {
        return !(m.totalGb() > m.capacityGb() * (1 - o.headroom()));
    }

    /** ZeRO-Offload's states (optimizer, master weights, gradients) on the host. */
    static final Offload OPTIMIZER_OFFLOAD = new Offload(Offload.Tier.CPU, Offload.Tier.CPU, Offload.Tier.CPU,
            Offload.Tier.NONE, Offload.Tier.NONE, 1.0, null);

    /**
     * What the layout may keep on the host, in the order tried: with the offload knob, nothing, then the optimizer's
     * states, then at ZeRO 3 the parameters too, where the run's framework offloads at all (the run's own host
     * optimizer, threads and binding kept); without it, the run's own offload (its parameters left on the GPU at a stage
     * that does not shard them).
     */
    static List<Offload> offloads(RunMetrics run, Layout l, Set<String> vary) {
        Offload own = run.training().offload();
        if (!vary.contains("offload") || run.training().framework().offloads() == null) {
            if (own.parameters() != Offload.Tier.NONE && l.zeroStage() != 3)
                own = new Offload(own.optimizer(), own.masterWeights(), own.gradients(), Offload.Tier.NONE,
                        own.activations(), own.ratio(), own.optimizer() == Offload.Tier.NVME ? own.nvmePath() : null,
                        own.hostOptimizer(), own.hostThreads(), own.bindCores());
            return List.of(own);
        }
        Offload opt = OPTIMIZER_OFFLOAD.withHost(own.hostOptimizer(), own.hostThreads(), own.bindCores());
        if (l.zeroStage() != 3) return List.of(Offload.NONE, opt);
        return List.of(Offload.NONE, opt, new Offload(Offload.Tier.CPU, Offload.Tier.CPU, Offload.Tier.CPU, Offload.Tier.CPU,
                Offload.Tier.NONE, 1.0, null, own.hostOptimizer(), own.hostThreads(), own.bindCores()));
    }

    /** The layout as the model predicts it; null when it does not leave {@code headroom} of the memory free. */
    static Candidate candidate(Cluster cluster, RunMetrics laid, Layout x, double headroom) {
        StepPrediction p = StepModel.predictOnce(cluster, laid);
        if (p.memory().totalGb() > p.memory().capacityGb() * (1 - headroom)) return null;
        // what the step is made of: compute, the exposed communication (named by its longest collective and link),
        // the pipeline bubble, the optimizer; each that takes a tenth of the step or more, the largest first
        Collective longest = null;
        for (Collective c : p.collectives()) if (longest == null || c.exposedSeconds() > longest.exposedSeconds()) longest = c;
        List<Object[]> parts = new ArrayList<>();
        parts.add(new Object[]{"compute", p.computeSeconds()});
        if (longest != null) parts.add(new Object[]{"communication (" + longest.name() + " on " + longest.link().linkKey() + ")",
                p.exposedCommSeconds()});
        parts.add(new Object[]{Phase.PIPELINE_BUBBLE, p.bubbleSeconds()});
        parts.add(new Object[]{Phase.OPTIMIZER, p.optimizerSeconds()});
        // what offload adds: the host's optimizer step and the copies over the host link (exposed)
        double host = 0;
        for (Phase ph : p.phases())
            if (ph.name().equals(Phase.HOST_OPTIMIZER) || ph.name().equals(Phase.OFFLOAD_COPIES)
                    || ph.name().equals(Phase.OFFLOAD_UPDATE)) host += ph.exposedSeconds();
        if (host > 0) parts.add(new Object[]{"host (offload)", host});
        parts.sort((a, b) -> Double.compare((double) b[1], (double) a[1]));
        StringBuilder worst = new StringBuilder();
        for (Object[] part : parts) {
            double share = (double) part[1] / p.stepTimeS();
            if (worst.length() > 0 && share < 0.10) continue;
            if (worst.length() > 0) worst.append(", ");
            worst.append(part[0]).append(' ').append(Math.round(share * 100)).append('%');
        }
        double worstS = (double) parts.get(0)[1];
        return new Candidate(x, p.tokensPerGpuPerS(), p.tflopsPerGpu(), p.stepTimeS(), p.memory().totalGb(),
                p.memory().capacityGb(), worst.toString(), worstS);
    }

    /** Of layouts sorted fastest first, those with more headroom than every faster one. */
    static List<Candidate> pareto(List<Candidate> sorted) {
        List<Candidate> out = new ArrayList<>();
        double most = Double.NEGATIVE_INFINITY;
        for (Candidate c : sorted) {
            if (c.headroomGb() > most) {
                out.add(c);
                most = c.headroomGb();
            }
        }
        return List.copyOf(out);
    }

    /** The enumeration: what divides, before any memory or time is computed. */
    static final class Space {
        private Space() {}

        static List<Layout> enumerate(Cluster cluster, RunMetrics run, Set<String> vary) {
            return enumerate(cluster, run, vary, Long.MAX_VALUE);
        }

        /** The layouts, or null as soon as there are more than {@code limit}. */
        static List<Layout> enumerate(Cluster cluster, RunMetrics run, Set<String> vary, long limit) {
            Model m = run.model();
            Layout base = Layout.of(run);
            int gpus = cluster.gpus();
            long globalSeqs = (long) base.microBatchSize() * base.microBatches() * base.dp();
            int seq = run.training().seqLen();
            // fp8 where the GPU has it and the search varies it; else the run's precision
            List<Precision> precisions = vary.contains("fp8") && cluster.gpu().peakTflops().containsKey(Precision.FP8)
                    && base.precision() != Precision.FP8 ? List.of(base.precision(), Precision.FP8) : List.of(base.precision());
            // the ZeRO stages the run's framework runs (its profile's); on one replica, the first of them
            List<Integer> zeroStages = List.copyOf(run.training().framework().zero().keySet());
            // the rank order: the run's; where the search varies it and the framework can number its ranks either way
            // (its profile's rank_order names the switch: Megatron's --use-tp-pp-dp-mapping), the other order too
            dev.trainadvisor.spec.Framework fw = run.training().framework();
            RankOrder own = run.parallel().ranks(fw);
            RankOrder other = own == RankOrder.PIPELINE_OUTERMOST ? RankOrder.DATA_OUTERMOST
                    : RankOrder.PIPELINE_OUTERMOST;
            boolean switchable = vary.contains("rank_order") && fw.switchesRankOrder();
            List<Layout> out = new ArrayList<>();
            for (int tp : values(vary, "tp", base.tp(), divisors(gpus, Math.max(1, cluster.nvlinkDomain())))) {
                if (m.heads() % tp != 0 || (m.kvHeads() % tp != 0 && tp % m.kvHeads() != 0)) continue;
                for (int cp : values(vary, "cp", base.cp(), divisors(gpus / tp, seq / 2048))) {
                    if (seq % cp != 0) continue;
                    for (int pp : values(vary, "pp", base.pp(), divisors(gpus / (tp * cp), m.layers()))) {
                        if (gpus % (tp * cp * pp) != 0) continue;
                        int dp = gpus / (tp * cp * pp);
                        if (globalSeqs % dp != 0) continue;
                        long perReplica = globalSeqs / dp;
                        List<Integer> stages = pp == 1 ? List.of(1)
                                : values(vary, "virtual_stages", base.virtualStages(), List.of(1, 2, 3, 4, 6, 8));
                        for (int vs : stages) {
                            if (pp * vs > m.layers() || (vs > 1 && pp == 1)) continue;
                            // a pipeline may split the layers unevenly (Megatron-Core's decoder_first/last_pipeline_
                            // num_layers, torchtitan's stages: 126 layers over 16 stages), but interleaving needs even
                            // virtual stages: Megatron-LM arguments.py at d98e8a64dd asserts "number of layers of the
                            // model must be divisible pipeline model parallel size" and "number of layers per pipeline
                            // stage must be divisible number of layers per virtual pipeline stage"
                            if (vary.contains("virtual_stages") && vs > 1 && m.layers() % (pp * vs) != 0) continue;
                            if (!addLayouts(out, limit, new Split(tp, cp, pp, vs, dp), perReplica, m, vary, base, own,
                                    switchable ? other : null, zeroStages, precisions)) return null;
                        }
                    }
                }
            }
            return out;
        }

        /** How the GPUs are split: tensor, context, pipeline (with its virtual stages) and data parallelism. */
        private record Split(int tp, int cp, int pp, int vs, int dp) {}

        /**
         * The layouts of one split, in the search's order: each rank order ({@code other}:
         * the one the framework can switch to, or null), expert split, sequence parallelism, ZeRO stage, micro-batch size
         * and precision; false as soon as {@code out} holds more than {@code limit}. Apart from enumerate so that its
         * loops compile on their own (enumerate was compiled four times in a cold batch, three of them on-stack).
         */
        private static boolean addLayouts(List<Layout> out, long limit, Split split, long perReplica, Model m,
                                          Set<String> vary, Layout base, RankOrder own, RankOrder other,
                                          List<Integer> zeroStages, List<Precision> precisions) {
            int tp = split.tp(), cp = split.cp(), pp = split.pp(), vs = split.vs(), dp = split.dp();
            // the order matters only with both stages and replicas (with cp, each replica's ranks)
            List<RankOrder> orders = new ArrayList<>();
            orders.add(base.rankOrder());
            if (other != null && pp > 1 && dp * cp > 1) orders.add(other);
            for (RankOrder order : orders) {
                // numbered replicas outermost, Megatron folds the experts inside a replica's tp x cp
                for (int[] e : experts(m, tp, cp, dp, vary, base,
                        pp > 1 && (order != null ? order : own) == RankOrder.DATA_OUTERMOST))
                    for (boolean sp : tp == 1 ? List.of(false)
                            : values(vary, "sequence_parallel", base.sequenceParallel(), List.of(true, false)))
                        for (int zero : dp == 1 ? List.of(zeroStages.get(0))
                                : values(vary, "zero_stage", base.zeroStage(), zeroStages))
                            for (int mbs : values(vary, "micro_batch_size", base.microBatchSize(),
                                    microBatchSizes(perReplica, base.microBatchSize()))) {
                                if (perReplica % mbs != 0) continue;
                                for (Precision pr : precisions)
                                    out.add(new Layout(tp, pp, vs, cp, dp, e[0], e[1], sp, zero, mbs,
                                            (int) (perReplica / mbs), base.recompute(), base.recomputeFraction(), pr,
                                            Offload.NONE, order));
                                if (out.size() > limit) return false;
                            }
            }
            return true;
        }

        /** (ep, etp) pairs: 1 and tp for a dense model; for MoE the expert counts' divisors that fold into the stage. */
        private static List<int[]> experts(Model m, int tp, int cp, int dp, Set<String> vary, Layout base,
                                           boolean insideReplica) {
            if (!m.isMoe()) return List.<int[]>of(new int[]{1, tp});
            List<int[]> out = new ArrayList<>();
            List<Integer> etps = values(vary, "etp", base.etp() == base.tp() ? tp : base.etp(),
                    tp == 1 ? List.of(1) : List.of(1, tp));
            for (int etp : etps) {
                if (m.moe().ffnHidden() % etp != 0) continue;
                for (int ep : values(vary, "ep", base.ep(), divisors(m.moe().experts(), m.moe().experts()))) {
                    // in long: ep and etp each reach 2^20 (spec.Bounds), and their product wraps an int to 0
                    if (m.moe().experts() % ep != 0 || ((long) tp * cp * dp) % ((long) ep * etp) != 0) continue;
                    if (insideReplica && (long) ep * etp != (long) tp * cp) continue;
                    out.add(new int[]{ep, etp});
                }
            }
            return out;
        }

        private static <T> List<T> values(Set<String> vary, String knob, T base, List<T> all) {
            return vary.contains(knob) ? all : List.of(base);
        }

        /** Divisors of {@code n} up to {@code max}, ascending; O(sqrt n), as n reaches 2^20 GPUs or experts (spec.Bounds). */
        static List<Integer> divisors(int n, int max) {
            int limit = Math.min(n, Math.max(1, max));
            List<Integer> small = new ArrayList<>(), large = new ArrayList<>();
            for (int d = 1; (long) d * d <= n; d++) {
                if (n % d != 0) continue;
                if (d <= limit) small.add(d);
                int e = n / d;
                if (e != d && e <= limit) large.add(e);
            }
            java.util.Collections.reverse(large);
            small.addAll(large);
            return small;
        }

        /** Micro-batch sizes: the divisors of a replica's sequences up to 64, and the run's own. */
        private static List<Integer> microBatchSizes(long perReplica, int own) {
            List<Integer> out = new ArrayList<>();
            for (int d = 1; d <= Math.min(perReplica, 64); d++) if (perReplica % d == 0) out.add(d);
            if (own > 64 && perReplica % own == 0) out.add(own);
            return out;
        }
    }
}
