package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.Training;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Roofline-style model of one optimizer step on one GPU: compute of every micro-batch on the
 * slowest pipeline stage, the pipeline bubble, the optimizer, and the exposed part of every
 * collective. Plain Java; knows nothing of rules.
 */
public final class StepModel {
    private StepModel() {}

    /**
     * A share of a time (a step, a collective's seconds) under which the difference of two of its sums is rounding, not
     * seconds: sums in doubles err by some 1e-16 of it per term (a few hundred terms at most; the same seconds summed
     * in another order, as FitTimes sums them, differ by that), and a rule reports a share of some percent
     * (facts.Materiality#material: 5% shipped).
     */
    public static final double ROUNDING = 1e-12;

    public static StepPrediction predict(Cluster cluster, RunMetrics run) {
        return predict(cluster, run, Efficiency.defaults(cluster.gpu(), run));
    }

    public static StepPrediction predict(Cluster cluster, RunMetrics run, Efficiency eff) {
        Model m = run.model();
        Parallel p = run.parallel();
        Training t = run.training();
        Pieces pieces = pieces(m, p, t, cluster.gpu());
        java.util.Map<PredictionKey, StepPrediction> memo = MEMO.get();
        if (memo == null) return predict(cluster, m, p, t, eff, pieces);
        PredictionKey key = new PredictionKey(pieces, cluster, eff);
        StepPrediction s = memo.get(key);
        if (s == null) {
            s = predict(cluster, m, p, t, eff, pieces);
            if (memo.size() < MEMO_ENTRIES) memo.put(key, s);
        }
        return s;
    }

    /**
     * As {@link #predict(Cluster, RunMetrics)}, for a layout predicted once (a layout search's candidates, thousands of
     * layouts each predicted once): its pieces are worked out for it alone and not kept, so that the search neither
     * pays for the cache nor evicts the layouts a fleet repeats.
     */
    public static StepPrediction predictOnce(Cluster cluster, RunMetrics run) {
        Model m = run.model();
        Parallel p = run.parallel();
        Training t = run.training();
        return predict(cluster, m, p, t, Efficiency.defaults(cluster.gpu(), run), new Pieces(new PiecesKey(m, p, t, cluster.gpu())));
    }

    /**
     * What a prediction takes from the run's layout alone (model, parallel layout, training and the GPU), not
     * from the efficiencies or the links a fit moves: the FLOPs a token, the operations of a micro-batch (ComputeTime.Operations), the sharding,
     * this GPU's shard and the memory estimate. Worked out once per layout ({@link #LAYOUTS}) and shared by every
     * prediction of it: the fit's evaluations (hundreds a run), the remedies' pricing and every run of the layout in a
     * fleet. An instance stands for its key: equal keys give the same instance while it is cached.
     */
    static final class Pieces {
        final FlopsPerToken flops;
        final ComputeTime.Operations operations;
        final Sharding sharding;
        final Shard shard;
        final MemoryEstimate memory;

        Pieces(PiecesKey k) {
            flops = FlopsPerToken.of(k.m(), k.t());
            operations = ComputeTime.Operations.of(StepOperations.of(k.m(), k.p(), k.t()), k.t(), k.gpu());
            sharding = Sharding.of(k.p());
            shard = Shard.of(k.m(), k.p(), sharding);
            memory = MemoryModel.of(sharding, k.gpu().hbmGb(), k.m(), k.p(), k.t());
        }
    }

    /** A layout as {@link Pieces} depend on it; records of value-equal records. */
    record PiecesKey(Model m, Parallel p, Training t, dev.trainadvisor.spec.Gpu gpu) {
        /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
        @Override
        public boolean equals(Object o) {
            return this == o || o instanceof PiecesKey k && java.util.Objects.equals(m, k.m)
                    && java.util.Objects.equals(p, k.p) && java.util.Objects.equals(t, k.t)
                    && java.util.Objects.equals(gpu, k.gpu);
        }

        @Override
        public int hashCode() {
            int h = java.util.Objects.hashCode(m);
            h = 31 * h + java.util.Objects.hashCode(p);
            h = 31 * h + java.util.Objects.hashCode(t);
            return 31 * h + java.util.Objects.hashCode(gpu);
        }
    }

    /** Layouts whose pieces are kept: more than a fleet of a few hundred layouts has, a few MB in all. */
    static final int LAYOUT_ENTRIES = 2048;

    static final LayoutCache<PiecesKey, Pieces> LAYOUTS = new LayoutCache<>(LAYOUT_ENTRIES);

    /**
     * The pieces of the layout last predicted on this thread: a fit predicts one layout hundreds of times (the same
     * instances), and a remedy is priced under each explanation of the run's times, each time on a changed run of its
     * own (equal values, other instances).
     */
    private static final ThreadLocal<Object[]> LAST = new ThreadLocal<>();

    static Pieces pieces(Model m, Parallel p, Training t, dev.trainadvisor.spec.Gpu gpu) {
        Object[] last = LAST.get();
        if (last != null && last[0] == m && last[1] == p && last[2] == t && last[3] == gpu) return (Pieces) last[4];
        // a run changed again as before (a remedy priced under the next explanation): its parts compared field by field,
        // most of them the same instances, costs a tenth of hashing the whole layout for the shared cache (the records'
        // deep hash and a synchronized look-up: a twentieth of a batch's samples, most of them from the pricing)
        if (last != null && last[0].equals(m) && last[1].equals(p) && last[2].equals(t) && last[3].equals(gpu)) {
            last[0] = m;
            last[1] = p;
            last[2] = t;
            last[3] = gpu;
            return (Pieces) last[4];
        }
        Pieces pieces = LAYOUTS.get(new PiecesKey(m, p, t, gpu), Pieces::new);
        LAST.set(new Object[]{m, p, t, gpu, pieces});
        return pieces;
    }

    /**
     * A prediction's inputs: the layout (its pieces' instance), the cluster with its links, the efficiencies. Hashed
     * on the pieces' identity, the efficiencies and the links' bandwidths (what a fit moves), not on the whole cluster:
     * its deep hash cost more than many a prediction; equal as the cluster is.
     */
    private record PredictionKey(Pieces pieces, Cluster cluster, Efficiency eff) {
        @Override
        public boolean equals(Object o) {
            return o instanceof PredictionKey k && k.pieces == pieces && k.eff.equals(eff)
                    && (k.cluster == cluster || k.cluster.equals(cluster));
        }

        @Override
        public int hashCode() {
            int h = System.identityHashCode(pieces) * 31 + eff.hashCode();
            if (cluster.intraNode() != null) h = h * 31 + Double.hashCode(cluster.intraNode().busbwGbps());
            if (cluster.interNode() != null) h = h * 31 + Double.hashCode(cluster.interNode().nodeGbps());
            return h;
        }
    }

    /** Predictions remembered within one {@link #memoized} call on this thread; null outside one. */
    private static final ThreadLocal<java.util.Map<PredictionKey, StepPrediction>> MEMO = new ThreadLocal<>();

    /**
     * Predictions one memoized call keeps at most (a few KB each). Since a fit prices its points through
     * {@link FitTimes}, an advice keeps few: over bench/fleet.py's 10,000 runs (58th stop's code, a probe counting the
     * memo at each advice's end) 16-63 in 85% of the advices, 64-255 in 14%, 256-1,023 in 13 of them, none more.
     */
    static final int MEMO_ENTRIES = 4096;

    /**
     * The memo's table as it starts: room for 96 predictions before it grows (HashMap's load factor 0.75), most
     * advices' all. It was sized for MEMO_ENTRIES when a fit filled it with thousands, a table of 8,192 slots (32 KB)
     * allocated and zeroed at every advice to hold a few dozen.
     */
    static final int MEMO_INITIAL_CAPACITY = 128;

    /**
     * Runs {@code work} with the predictions it makes on this thread remembered: one advice predicts the same scenario
     * again and again (each hypothesis of the fit starts from the catalogue's values; each remedy is priced against every
     * alternative explanation's own step). The same inputs give the same prediction, so the advice does not change;
     * the memory is dropped when {@code work} returns. Nested calls share the outer one's.
     */
    public static <T> T memoized(java.util.function.Supplier<T> work) {
        if (MEMO.get() != null) return work.get();
        MEMO.set(new java.util.HashMap<>(MEMO_INITIAL_CAPACITY));
        try {
            return work.get();
        } finally {
            MEMO.remove();
        }
    }

    /**
     * What the last predictions on this thread worked out that depends on part of their inputs only: a micro-batch's
     * compute time depends on the layout and the efficiencies, not on the links; the step's collectives before overlap
     * (StepContext, CommModel.Planned) on the layout and the cluster's links, not on the efficiencies. A fit's Jacobian
     * moves one quantity at a time (the compute scale, a link's bandwidth, the overlap), so of its 1 + n predictions a
     * point most share one or the other with the point itself; so do the remedies priced under one explanation. Each
     * value is the one the same inputs compute (pure functions of immutable inputs), so no prediction changes; a few
     * slots, replaced in turn, matched on the layout's pieces by identity and the rest by value.
     */
    static final class Recent {
        final Slots<Timed> computes = new Slots<>();
        final Slots<CommModel.Planned> planneds = new Slots<>();
        final Slots<CommModel.Template> templates = new Slots<>();

        /**
         * A micro-batch's compute at {@code eff} with its overlap windows (they depend on the compute and the layout's
         * micro-batches alone). A micro-batch is timed alike by efficiencies that differ in the overlap alone: a fit's
         * step along the overlap keeps the compute.
         */
        Timed compute(Pieces pieces, Parallel p, Training t, dev.trainadvisor.spec.Gpu gpu, Efficiency eff) {
            Timed c = computes.find(pieces, eff, Efficiency::equalsBesidesOverlap);
            if (c != null) return c;
            ComputeTime compute = ComputeTime.of(pieces.operations, p, t, gpu, eff);
            return computes.put(pieces, eff, new Timed(compute, CommModel.windows(t.microBatches(), compute)));
        }

        /**
         * The step's collectives before overlap: as the thread last planned them for this layout on this cluster, else
         * placed again from its template of this layout on a cluster that differs in its links' bandwidths alone, else
         * planned by every dimension (and that template kept).
         */
        CommModel.Planned planned(Pieces pieces, Cluster cluster, Model m, Parallel p, Training t) {
            CommModel.Planned c = planneds.find(pieces, cluster, Recent::sameCluster);
            if (c != null) return c;
            CommModel.Template template = templates.find(pieces, cluster, Recent::sameBesidesBandwidths);
            if (template != null) {
                StepContext placed = StepContext.of(cluster, m, p, t, pieces.sharding, pieces.shard);
                return planneds.put(pieces, cluster, template.on(placed));
            }
            StepContext context = StepContext.of(cluster, m, p, t, pieces.sharding, pieces.shard, true);
            CollectivePlan[] plans = CommModel.Planned.plans(ParallelDimension.SHIPPED, context);
            template = CommModel.Template.of(plans, context);
            if (template != null) templates.put(pieces, cluster, template);
            return planneds.put(pieces, cluster, CommModel.Planned.priced(context, plans));
        }

        /**
         * Clusters that differ at most in their links' bandwidths (the intra-node link's bus bandwidth and whether it was
         * measured, the network's): what a fit moves. A dimension plans its collectives on either alike; only the links
         * its groups are placed on differ.
         */
        static boolean sameBesidesBandwidths(Cluster a, Cluster b) {
            if (a == b) return true;
            if (a.nodes() != b.nodes() || a.gpusPerNode() != b.gpusPerNode() || a.nvlinkDomain() != b.nvlinkDomain()
                    || !a.gpu().equals(b.gpu()) || !java.util.Objects.equals(a.name(), b.name())
                    || !java.util.Objects.equals(a.host(), b.host()))
                return false;
            dev.trainadvisor.spec.IntraNodeLink i = a.intraNode(), j = b.intraNode();
            if ((i == null) != (j == null) || i != null && i != j && !(java.util.Objects.equals(i.key(), j.key())
                    && i.kind() == j.kind() && Efficiency.same(i.unidirectionalGbps(), j.unidirectionalGbps())
                    && Efficiency.same(i.alphaUs(), j.alphaUs()) && Efficiency.same(i.nvlsGain(), j.nvlsGain())
                    && java.util.Objects.equals(i.host(), j.host()) && java.util.Objects.equals(i.source(), j.source())))
                return false;
            dev.trainadvisor.spec.Network n = a.interNode(), o = b.interNode();
            return (n == null) == (o == null) && (n == null || n == o || java.util.Objects.equals(n.key(), o.key())
                    && Efficiency.same(n.lineRateGbitS(), o.lineRateGbitS())
                    && Efficiency.same(n.efficiency(), o.efficiency()) && Efficiency.same(n.alphaUs(), o.alphaUs())
                    && n.nicsPerNode() == o.nicsPerNode() && n.sharp() == o.sharp()
                    && java.util.Objects.equals(n.source(), o.source()));
        }

        /** Equal clusters, the links' bandwidths (what a fit moves) compared before the rest. */
        private static boolean sameCluster(Cluster a, Cluster b) {
            if (a == b) return true;
            if ((a.intraNode() == null) != (b.intraNode() == null) || (a.interNode() == null) != (b.interNode() == null))
                return false;
            if (a.intraNode() != null && !Efficiency.same(a.intraNode().busbwGbps(), b.intraNode().busbwGbps()))
                return false;
            if (a.interNode() != null && !Efficiency.same(a.interNode().nodeGbps(), b.interNode().nodeGbps()))
                return false;
            return a.equals(b);
        }
    }

    /** A micro-batch's compute and the step's overlap windows it makes. */
    record Timed(ComputeTime compute, CommModel.Windows windows) {}

    /**
     * A few values by layout (its pieces, by identity) and another input (matched by {@code same}), replaced in turn.
     * Looked up and filled apart, so that a look-up the slots answer allocates nothing (a supplier capturing the
     * prediction's inputs was made at every one: 1.3% of a batch's bytes).
     */
    static final class Slots<V> {
        static final int SLOTS = 4;
        private final Pieces[] layouts = new Pieces[SLOTS];
        private final Object[] keys = new Object[SLOTS], values = new Object[SLOTS];
        private int next;
        /** Look-ups answered from the slots (tests: the slots are used). */
        long hits;

        /**
         * The value kept for {@code pieces} and a key {@code same} as {@code key}; null when none is. The slots are asked
         * from the one filled last (a fit's next prediction most often shares the last one's), and no two hold the same
         * key, so the order changes only how soon the answer comes.
         */
        @SuppressWarnings("unchecked")
        <K> V find(Pieces pieces, K key, java.util.function.BiPredicate<K, K> same) {
            for (int k = 1, i = (next + SLOTS - 1) % SLOTS; k <= SLOTS; k++, i = (i + SLOTS - 1) % SLOTS)
                if (layouts[i] == pieces && same.test((K) keys[i], key)) {
                    hits++;
                    return (V) values[i];
                }
            return null;
        }

        /** Keeps {@code v} in the next slot in turn; returns it. */
        <K> V put(Pieces pieces, K key, V v) {
            layouts[next] = pieces;
            keys[next] = key;
            values[next] = v;
            next = (next + 1) % SLOTS;
            return v;
        }
    }

    private static final ThreadLocal<Recent> RECENT = ThreadLocal.withInitial(Recent::new);

    /** Look-ups this thread's {@link Recent} answered (tests). */
    static long recentHits() { return RECENT.get().computes.hits + RECENT.get().planneds.hits; }

    private static StepPrediction predict(Cluster cluster, Model m, Parallel p, Training t, Efficiency eff, Pieces pieces) {
        FlopsPerToken flops = pieces.flops;
        Core core = Core.of(cluster, m, p, t, eff, pieces);
        ComputeTime compute = core.compute();
        List<Collective> collectives = CommModel.of(core.planned(), core.windows(), eff);
        MemoryEstimate memory = pieces.memory;
        double forward = core.forward(), backward = core.backward(), bubble = core.bubble(), optimizer = core.optimizer();
        double framework = core.framework(), copies = core.planned().copySeconds();
        Offloading.Cost offload = core.offload();

        // sized for what it may hold (nine phases and a phase a collective), not grown and copied as it fills
        List<Phase> phases = new ArrayList<>(9 + collectives.size());
        phases.add(new Phase(Phase.FORWARD, forward, forward, null));
        phases.add(new Phase(Phase.BACKWARD, backward, backward, null));
        if (p.pp() > 1) phases.add(new Phase(Phase.PIPELINE_BUBBLE, bubble, bubble, null));
        phases.add(new Phase(Phase.OPTIMIZER, optimizer, optimizer, null));
        // what the framework spends around the optimizer step beyond Adam's HBM traffic (its profile's, measured)
        phases.add(new Phase(Phase.FRAMEWORK, framework, framework, null));
        // the copies FSDP2 makes around its collectives, on the compute stream
        if (copies > 0) phases.add(new Phase(Phase.ZERO_COPIES, copies, copies, null));
        if (offload.hostOptimizerS() > 0) phases.add(new Phase(Phase.HOST_OPTIMIZER, offload.hostOptimizerS(),
                offload.hostOptimizerS(), "host"));
        if (offload.copiesInS() + offload.copiesHiddenS() > 0) phases.add(new Phase(Phase.OFFLOAD_COPIES,
                offload.copiesInS() + offload.copiesHiddenS(), offload.copiesInS(), "host-link"));
        if (offload.copiesOutS() > 0) phases.add(new Phase(Phase.OFFLOAD_UPDATE, offload.copiesOutS(), offload.copiesOutS(),
                "host-link"));
        double step = core.step();
        for (Collective c : collectives) {
            phases.add(new Phase(c.name(), c.seconds(), c.exposedSeconds(), c.link().linkKey()));
            step += c.exposedSeconds();
        }

        double tokensPerGpuStep = (double) t.tokensPerReplica() / p.modelParallel();
        double tokensPerGpuPerS = tokensPerGpuStep / step;
        double tflops = flops.model() * tokensPerGpuPerS / 1e12;
        double peak = cluster.gpu().peakTflops(Precision.BF16);
        List<String> notes = new ArrayList<>();
        if (m.isMoe()) notes.add("mixture of experts: experts are taken as evenly loaded (no router imbalance), and expert"
                + " gradients are reduced over the whole data-parallel group");
        return new StepPrediction(step, tokensPerGpuPerS, tflops, tflops / peak,
                flops.hardware() * tokensPerGpuPerS / 1e12 / peak, flops, compute, Collections.unmodifiableList(phases),
                collectives, memory, eff, optimizer, bubble, notes.isEmpty() ? List.of() : Collections.unmodifiableList(notes));
    }

    /**
     * What a prediction and the times alone ({@link #times}) both work out first, in the same order: a micro-batch's
     * compute and the collectives before overlap (from the thread's recent values when they match), the forward and
     * backward of every micro-batch, the pipeline bubble, the offload's costs, the optimizer, the framework's own time,
     * and the step without its exposed collectives. FitTimes takes the same parts for a fit's points ({@link #bubble},
     * {@link #beforeCollectives}, {@link #afterBackward}, {@link #withCollectives}); a term added to them reaches it,
     * one added here beside them must be added there too, or FitTimesTest fails.
     */
    private record Core(ComputeTime compute, CommModel.Windows windows, CommModel.Planned planned, double forward,
                        double backward, double bubble, Offloading.Cost offload, double optimizer, double framework,
                        double step) {
        static Core of(Cluster cluster, Model m, Parallel p, Training t, Efficiency eff, Pieces pieces) {
            int mb = t.microBatches();
            Recent recent = RECENT.get();
            Timed timed = recent.compute(pieces, p, t, cluster.gpu(), eff);
            ComputeTime compute = timed.compute();
            CommModel.Planned planned = recent.planned(pieces, cluster, m, p, t);
            StepContext context = planned.context();
            double forward = mb * compute.forwardSeconds();
            double backward = mb * compute.backwardSeconds();
            double bubble = StepModel.bubble(p, compute.microBatchSeconds());
            // offload (training.offload): the host runs its share of the optimizer; copies cross the host link
            Offloading.Cost offload = Offloading.of(context, compute, eff);
            double optimizer = optimizerSeconds(context, eff) * (1 - t.offload().hostOptimizerShare());
            double framework = frameworkSeconds(context, eff);
            double step = beforeCollectives(forward, backward, bubble, optimizer, framework, planned.copySeconds(), offload);
            return new Core(compute, timed.windows(), planned, forward, backward, bubble, offload, optimizer, framework,
                    step);
        }
    }

    /**
     * The times a fit compares with a run's measured ones, as the full prediction gives them (its
     * {@link StepPrediction#stepTimeS()}, {@link StepPrediction#forwardSeconds()}, {@link StepPrediction#backwardSeconds()}
     * and {@link StepPrediction#afterBackwardSeconds()}), the same sums in the same order, bit for bit.
     */
    record Times(double stepTimeS, double forwardSeconds, double backwardSeconds, double afterBackwardSeconds) {
        /** As {@link StepPrediction#fwdBwdSeconds()}: the step less what runs after the last backward. */
        double fwdBwdSeconds() { return stepTimeS - afterBackwardSeconds; }
    }

    /**
     * The times alone of a scenario predicted once (the bisection in Fit.needed; a fit's points where its layout's
     * times could not be worked out once, FitTimes): as {@link #predict(Cluster, RunMetrics, Efficiency)} gives them,
     * neither looked up in nor added to the prediction memo ({@link #memoized}), which keeps the scenarios an advice
     * asks for again, and without the phases, the collectives and the prediction that carry them, which no one reads
     * of such a point. {@code StepTimesTest} holds every reference run and its perturbations to the full prediction's
     * times, and {@code FitTimesTest} FitTimes to these.
     */
    static Times times(Cluster cluster, RunMetrics run, Efficiency eff) {
        Model m = run.model();
        Parallel p = run.parallel();
        Training t = run.training();
        Core core = Core.of(cluster, m, p, t, eff, pieces(m, p, t, cluster.gpu()));
        CommModel.Planned planned = core.planned();
        return withCollectives(core.step(), core.forward(), core.backward(),
                afterBackward(core.optimizer(), core.framework(), core.offload()), planned.plans(), planned.seconds(),
                planned.demand(), core.windows(), eff.overlapFraction());
    }

    /** 1F1B bubble: (pp - 1) / (v * m) of the ideal time (Narayanan et al. 2021, section 2.2), m micro-batches of these. */
    static double bubble(Parallel p, double microBatchSeconds) {
        return (p.pp() - 1.0) / p.virtualStages() * microBatchSeconds;
    }

    /**
     * The step without its exposed collectives: the micro-batches' forward and backward, the bubble, the optimizer,
     * the framework's own time, FSDP2's copies and what offload adds (Core, FitTimes).
     */
    static double beforeCollectives(double forward, double backward, double bubble, double optimizer, double framework,
                                    double copies, Offloading.Cost offload) {
        double step = forward + backward + bubble + optimizer + framework + copies;
        return step + (offload.hostOptimizerS() + offload.copiesInS() + offload.copiesOutS());
    }

    /**
     * StepPrediction#afterBackwardSeconds before the collectives that run there: the optimizer, then the phases it
     * names, each 0 where the step has none.
     */
    static double afterBackward(double optimizer, double framework, Offloading.Cost offload) {
        return optimizer + framework + (offload.hostOptimizerS() > 0 ? offload.hostOptimizerS() : 0)
                + (offload.copiesOutS() > 0 ? offload.copiesOutS() : 0);
    }

    /**
     * The times of a step of {@code step} seconds before its collectives ({@code forward}, {@code backward} and
     * {@code after} of it in each part), with each of {@code plans} (of {@code seconds}, the windows' {@code demand})
     * overlapped with {@code w} at {@code overlap} and its exposed seconds added where it lands
     * (Collective#exposedForward, #exposedBackward and #exposedAfterBackward): the predictions' times alone and a fit's
     * points alike.
     */
    static Times withCollectives(double step, double forward, double backward, double after, CollectivePlan[] plans,
                                 double[] seconds, double[] demand, CommModel.Windows w, double overlap) {
        for (int i = 0; i < plans.length; i++) {
            CollectivePlan c = plans[i];
            double exposed = CommModel.exposed(c, seconds[i], demand, w, overlap);
            step += exposed;
            forward += c.afterBackward() ? 0 : exposed * c.forwardShare();
            backward += c.afterBackward() ? 0 : exposed * (1 - c.forwardShare());
            after += c.afterBackward() ? exposed : 0;
        }
        return new Times(step, forward, backward, after);
    }

    /**
     * The framework's time per step beside the kernels the model counts. Where it trains fp32 parameters under
     * torch.autocast ({@link dev.trainadvisor.spec.Framework.Amp}: the Hugging Face Trainer's own loop) there is no
     * master copy to keep, so that is its loop's host time, per step and per micro-batch, and the gradient clipping
     * the Trainer does by default (max_grad_norm 1.0): a norm over the fp32 gradients (4 bytes read) and their scaling
     * in place (4 read, 4 written), 12 bytes a parameter at the achieved HBM bandwidth. Measured on one H200
     * (bench/h200_hf_step_kernels.py, knowledge-base/measurements/h200-hf-step-kernels.json): clip_grad_norm_ over the
     * 1.1 G fp32 gradients of a TinyLlama-shaped model took 3.8 ms, against 3.2 ms from the 12 bytes. Elsewhere the
     * profile's {@code host_seconds_per_step}, measured for bf16 weights with an fp32 master copy (Overheads).
     */
    static double frameworkSeconds(StepContext s, Efficiency eff) {
        Training t = s.training();
        dev.trainadvisor.spec.Framework.Amp amp = t.framework().ampAt(s.parallel().zeroStage());
        if (amp == null) return t.framework().hostSecondsPerStep().value();
        double updated = s.shard().updatedParams(s.sharding());
        double clip = updated * CLIP_BYTES_PER_PARAM / (s.cluster().gpu().hbmGbps() * 1e9 * eff.hbmFraction());
        return amp.hostSecondsPerStep() + amp.hostSecondsPerMicroBatch() * t.microBatches() + clip;
    }

    /** Gradient clipping over fp32 gradients: the norm reads each (4 bytes), the scaling reads and writes it (8). */
    static final double CLIP_BYTES_PER_PARAM = 12;

    /**
     * Adam over this GPU's shard streams fp32 master weights, momentum and variance in and out
     * (24 bytes), reads the gradient twice (norm for clipping, then the update) and writes the
     * 16-bit weights (2 bytes).
     */
    static double optimizerSeconds(StepContext s, Efficiency eff) {
        // the parameters this GPU updates: its shard of the model, of which ZeRO leaves it a share of the states
        double updated = s.shard().updatedParams(s.sharding());
        return updated * optimizerBytesPerParam(s.training().gradReducePrecision())
                / (s.cluster().gpu().hbmGbps() * 1e9 * eff.hbmFraction())
                * (s.training().optimizerKernel() == dev.trainadvisor.spec.OptimizerKernel.FOREACH ? FOREACH_OVER_FUSED : 1);
    }

    /**
     * PyTorch's foreach AdamW over its fused kernel, GPU time of the step: 24.0 ms against 9.0 for the 1.1 G fp32
     * parameters of a TinyLlama-shaped model on one H200 (bench/h200_hf_step_kernels.py, sdpa_b4_foreach against sdpa_b4,
     * the optimizer's CUDA-event phase, medians of 10 steps; knowledge-base/measurements/h200-hf-step-kernels.json): its
     * _foreach kernels pass over the states once per operation of the update.
     */
    public static final double FOREACH_OVER_FUSED = 0.0240 / 0.0090;

    /** The HBM bytes Adam moves per parameter it updates, with gradients in {@code grads} ({@link #optimizerSeconds}). */
    public static double optimizerBytesPerParam(Precision grads) { return 24 + 2.0 * grads.bytes + 2; }
}
