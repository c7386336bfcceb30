package dev.trainadvisor.advice;

import dev.trainadvisor.engine.RuleEngine;
import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.FactBuilder;
import dev.trainadvisor.facts.GapFact;
import dev.trainadvisor.facts.Materiality;
import dev.trainadvisor.facts.ObservationFact;
import dev.trainadvisor.facts.RemedyProposal;
import dev.trainadvisor.facts.RuledOut;
import dev.trainadvisor.perf.Baseline;
import dev.trainadvisor.perf.Collective;
import dev.trainadvisor.perf.FitParam;
import dev.trainadvisor.perf.FitParameter;
import dev.trainadvisor.perf.HypothesisFit;
import dev.trainadvisor.perf.PredictionInterval;
import dev.trainadvisor.perf.RunClass;
import dev.trainadvisor.perf.Scenario;
import dev.trainadvisor.perf.StepPrediction;
import dev.trainadvisor.search.Layout;
import dev.trainadvisor.search.LayoutSearch;
import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.RunChange;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.RunSpec;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The library's entry point: the run's baseline (catalogue prediction, fit to its times), the facts, the rules'
 * diagnoses and remedies, and every remedy priced from the baseline through the one pricing path
 * ({@link Baseline#price}).
 *
 * <pre>{@code
 * RunSpec spec = new SpecReader().read(Path.of("examples/internlm-7b-pcie-1node.yaml"));
 * Advice advice = TrainAdvisor.advise(spec.cluster(), spec.run());
 * advice.top().id();   // "intra-node-bandwidth"
 * }</pre>
 */
public final class TrainAdvisor {
    /** Below this predicted gain a remedy is not worth recommending. */
    static final double MIN_SPEEDUP = 1.01;

    /** The recommendation of the layout search's best layout. */
    public static final String BEST_LAYOUT = "best-layout";

    private final java.util.function.Supplier<RuleEngine> engine;
    private final boolean searchLayouts;

    /** Advice with the rules of {@code engine}, and the best layout of the run's GPUs among the recommendations. */
    public TrainAdvisor(RuleEngine engine) { this(() -> engine, true); }

    /**
     * Advice with the rules {@code engine} gives when they are first needed, after the run is fitted: the command line
     * fits the run while the shipped rule base is still being built on another core (cli.Main). The
     * supplier is asked once per advice and must give the same rules each time.
     */
    public static TrainAdvisor withRulesWhenNeeded(java.util.function.Supplier<RuleEngine> engine) {
        return new TrainAdvisor(engine, true);
    }

    private TrainAdvisor(java.util.function.Supplier<RuleEngine> engine, boolean searchLayouts) {
        this.engine = engine;
        this.searchLayouts = searchLayouts;
    }

    /**
     * The same advice without the layout search: what `batch` uses, where a search per run would cost more than the
     * rest of the advice together.
     */
    public TrainAdvisor withoutLayoutSearch() { return new TrainAdvisor(engine, false); }

    public static Advice advise(Cluster cluster, RunMetrics run) {
        return new TrainAdvisor(RuleEngine.builtIn()).adviseRun(cluster, run);
    }

    public static Advice advise(RunSpec spec) { return advise(spec.cluster(), spec.run()); }

    /**
     * The run's facts and what the rules conclude from them, before any remedy is priced.
     *
     * @param run      the run as the advice prices it: as it ran, where its times are those of a lower precision than
     *                 it says
     * @param baseline its step, fitted to its times
     */
    record Diagnosed(RunMetrics run, Baseline baseline, List<Object> facts, RuleEngine.Result result) {}

    Diagnosed diagnose(Cluster cluster, RunMetrics run) {
        // a run whose times are those of a lower precision than it says is priced as it ran (precision-mismatch)
        Baseline b = Baseline.of(cluster, run);
        dev.trainadvisor.facts.PrecisionMismatchFact mismatch = PrecisionCheck.of(cluster, run, b);
        if (mismatch != null) {
            run = PrecisionCheck.at(run, mismatch.ran());
            b = Baseline.of(cluster, run);
        }
        List<Object> facts = FactBuilder.facts(b);
        if (mismatch != null) facts.add(mismatch);
        // a run that does not fit as laid out: what would (another layout, more GPUs, a GPU with more memory)
        if (b.prediction().memory().headroomGb() < 0) facts.add(WhatFits.of(cluster, run));
        return new Diagnosed(run, b, facts, engine.get().run(facts));
    }

    public Advice adviseRun(Cluster cluster, RunMetrics run) {
        // one advice predicts the same scenarios many times over (perf.StepModel#memoized)
        return dev.trainadvisor.perf.StepModel.memoized(() -> adviseOnce(cluster, run));
    }

    private Advice adviseOnce(Cluster cluster, RunMetrics run) {
        // the layout search depends on the run's layout alone: it runs on another core while the run is fitted and the
        // rules reason (a tenth of a cold `advise`), and is waited for where its proposal joins the others
        RunMetrics asGiven = run;
        java.util.concurrent.Future<Searched> search = searchLayouts ? Searched.ahead(cluster, run) : null;
        Diagnosed diagnosed = diagnose(cluster, run);
        run = diagnosed.run();
        Baseline b = diagnosed.baseline();
        List<Object> facts = diagnosed.facts();
        RuleEngine.Result result = diagnosed.result();
        ObservationFact observed = null;
        GapFact gap = null;
        for (Object f : facts) {
            if (f instanceof ObservationFact o) observed = o;
            if (f instanceof GapFact g) gap = g;
        }
        Materiality materiality = Materiality.shipped();
        for (Object f : result.derived()) if (f instanceof Materiality m) materiality = m;
        List<RemedyProposal> proposals = new ArrayList<>(merge(result.proposals()));
        if (searchLayouts) {
            // a run priced at another precision than it says (precision-mismatch) is searched as priced
            Searched searched = run == asGiven ? Searched.await(search) : Searched.of(cluster, run);
            RemedyProposal best = bestLayout(searched, result.diagnoses());
            if (best != null && proposals.stream().noneMatch(p -> p.change().equals(best.change()))) proposals.add(best);
        }
        List<Recommendation> recs = recommend(b, proposals, observed, materiality);
        List<RuledOut> ruledOut = new ArrayList<>();
        for (Object f : result.derived()) if (f instanceof RuledOut r) ruledOut.add(r);
        ruledOut.sort(java.util.Comparator.comparingDouble(RuledOut::fraction).reversed().thenComparing(RuledOut::id)
                .thenComparing(RuledOut::rule));
        return new Advice(new RunSpec(run.name(), cluster, run), b, observed, gap, result.diagnoses(), recs, List.copyOf(ruledOut));
    }

    /**
     * The fastest layout of the run's GPUs at the same global batch (search.LayoutSearch, 5% of the memory free) as a
     * proposal, its changes from the run's layout in run-file keys; null when the run's own is the best. It is priced
     * like every remedy, from the fitted step.
     */
    static RemedyProposal bestLayout(Searched r, List<Diagnosis> diagnoses) {
        if (r.best() == null) return null;
        Layout best = r.best();
        RunChange change = r.change();
        // it answers the largest cause that claims seconds of the step (not a finding such as skipped steps)
        List<String> addresses = diagnoses.stream().filter(d -> d.impactFraction() > 0).limit(1).map(Diagnosis::id).toList();
        // for a run that does not fit, the layout that does answers that
        if (addresses.isEmpty() && !r.ownFits())
            addresses = diagnoses.stream().filter(d -> d.cause() == dev.trainadvisor.facts.Cause.MEMORY_OVERFLOW).limit(1).map(Diagnosis::id).toList();
        return new RemedyProposal(BEST_LAYOUT, "Lay the run out as " + best.describe(), change, true, addresses,
                "The fastest layout of these GPUs at the same global batch that the step model finds, searching tensor, "
                        + "pipeline, context, data and expert parallelism, ZeRO, micro-batches and recomputation.",
                "best-layout (search)");
    }

    /**
     * What bestLayout takes of the layout search: the fastest layout and its changes from the run's, or a null layout
     * when there is none or the run's own is as fast, and whether the run's own layout fits. It depends on the run's layout alone, not on what the run measured:
     * searched once per layout ({@link #SEARCHED}).
     */
    record Searched(Layout best, RunChange change, boolean ownFits) {
        /** The run's layout searched, or taken from {@link #SEARCHED}. */
        static Searched of(Cluster cluster, RunMetrics run) {
            return SEARCHED.get(WhatFits.Key.of(cluster, run), k -> search(cluster, run));
        }

        /** {@link #of} started on a thread of {@link #AHEAD}. */
        static java.util.concurrent.Future<Searched> ahead(Cluster cluster, RunMetrics run) {
            return AHEAD.submit(() -> of(cluster, run));
        }

        /** What {@link #ahead} found; what the search threw, thrown here. */
        static Searched await(java.util.concurrent.Future<Searched> f) {
            try {
                return f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the layout search ran", e);
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof RuntimeException r) throw r;
                if (e.getCause() instanceof Error r) throw r;
                throw new IllegalStateException(e.getCause());
            }
        }

        static Searched search(Cluster cluster, RunMetrics run) {
            LayoutSearch.Result r = LayoutSearch.search(new RunSpec(run.name(), cluster, run), LayoutSearch.Options.forAdvice());
            if (r.best().isEmpty()) return new Searched(null, null, r.own() != null);
            Layout best = r.best().get(0).layout(), own = Layout.of(run);
            RunChange change = best.changesFrom(own);
            if (change.isEmpty() || (r.own() != null && r.best().get(0).tokensPerGpuPerS() <= r.own().tokensPerGpuPerS()))
                return new Searched(null, null, r.own() != null);
            return new Searched(best, change, r.own() != null);
        }
    }

    /**
     * Where the layout searches run ahead: at most one daemon thread a core (a library advising from many threads at
     * once queues its searches rather than starting a thread each), each let go after a minute idle.
     */
    static final java.util.concurrent.ExecutorService AHEAD = ahead(Runtime.getRuntime().availableProcessors());

    private static java.util.concurrent.ExecutorService ahead(int threads) {
        java.util.concurrent.ThreadPoolExecutor pool = new java.util.concurrent.ThreadPoolExecutor(threads, threads,
                60, java.util.concurrent.TimeUnit.SECONDS, new java.util.concurrent.LinkedBlockingQueue<>(), task -> {
            Thread t = new Thread(task, "train-advisor-layout-search");
            t.setDaemon(true);
            return t;
        });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** Layout searches of the advice by layout: a library or server advising many runs of one layout searches once. */
    static final dev.trainadvisor.perf.LayoutCache<WhatFits.Key, Searched> SEARCHED = new dev.trainadvisor.perf.LayoutCache<>(256);

    /** Prices every proposal; keeps those that fit in memory and gain over the baseline and over what the run did. */
    static List<Recommendation> recommend(Baseline b, List<RemedyProposal> proposals, ObservationFact observed,
                                          Materiality m) {
        StepPrediction base = b.prediction();
        boolean overflows = base.memory().headroomGb() < 0;
        double done = observed == null || Double.isNaN(observed.tokensPerGpuPerS()) ? 0 : observed.tokensPerGpuPerS();
        List<Recommendation> recs = new ArrayList<>();
        for (RemedyProposal r : proposals) {
            Recommendation rec = r.byHistory() ? priceByWall(b, r) : price(b, r, m);
            if (rec == null) continue;
            // a new layout is a larger change than a flag: it is worth making for a gain the model can vouch for
            double least = r.id().equals(BEST_LAYOUT) ? 1 + m.material() : MIN_SPEEDUP;
            // a remedy of the history wins back wall time the median pace the run measured does not show
            boolean gains = rec.speedup() >= least && (r.byHistory() || rec.predictedTokensPerGpuPerS() > done);
            if (gains || overflows) recs.add(rec);
        }
        recs.addAll(combinations(b, proposals.stream().filter(r -> !r.byHistory()).toList(), recs, done, m));
        recs.sort(Comparator.comparing((Recommendation r) -> !r.sameMath())
                .thenComparing(Comparator.comparingDouble(TrainAdvisor::rank).reversed())
                .thenComparing(Recommendation::id));
        return List.copyOf(recs);
    }

    /**
     * What a recommendation is ranked by: its speedup, or for one that changes the hardware (a cluster field: other
     * GPUs, links, NICs, more nodes) the low end of its range. New hardware costs money and weeks; it leads only where
     * its gain beats what the run's own GPUs can do even if the model is off against it, so a layout change the model
     * cannot tell apart from buying NVLink nodes comes first.
     */
    static double rank(Recommendation r) {
        return r.change().changesHardware() ? r.speedupLow() : r.speedup();
    }

    /**
     * One proposal priced from the baseline; null when it is invalid or does not fit. When the run's times leave
     * several explanations open (perf.FitResult#alternatives), the remedy is priced under each, and its speedup is their
     * average weighted by their probabilities: the gain the times lead one to expect. The interval spans them and the
     * chosen explanation's freed quantity one posterior standard deviation either way, widened by how far the model
     * has been off, around its median, on validated runs like the changed one (perf.PredictionInterval): the baseline
     * is the run itself, what is uncertain is the model's step for the change. The band is not narrowed for being a
     * ratio of two predictions of one run: on the tune rows, pairs of runs of the same source and model scatter about
     * each other as much (observed over predicted of one over the other's, 10th-90th percentile 0.919-1.089 over 546
     * pairs) as single runs about the model (0.922-1.078 over 162).
     */
    private static Recommendation price(Baseline b, RemedyProposal r, Materiality m) {
        Baseline.Priced q = b.price(r.change());
        if (q == null || q.step().memory().headroomGb() < 0) return null;
        StepPrediction base = b.prediction();
        StepPrediction s = q.step();
        double chosen = s.tokensPerGpuPerS() / base.tokensPerGpuPerS();
        double low = chosen, high = chosen;
        double weight = b.fit() == null ? 1 : b.fit().chosen().posterior(), sum = weight * chosen;
        if (b.fit() != null) {
            for (HypothesisFit h : b.fit().alternatives()) {
                Double sa = speedup(h.scenario(), r);
                if (sa == null) continue;
                low = Math.min(low, sa);
                high = Math.max(high, sa);
                sum += h.posterior() * sa;
                weight += h.posterior();
            }
            for (Scenario spread : spread(b)) {
                Double sa = speedup(spread, r);
                if (sa == null) continue;
                low = Math.min(low, sa);
                high = Math.max(high, sa);
            }
        }
        double speedup = weight > 0 ? sum / weight : chosen;
        PredictionInterval like = PredictionInterval.of(RunClass.of(q.run().cluster(), q.run().run(), s));
        low *= like.low() / like.median();
        high *= like.high() / like.median();
        Collective worst = s.longestExposed();
        boolean next = worst != null && m.material(worst.exposedSeconds(), s.stepTimeS());
        double tokens = base.tokensPerGpuPerS() * speedup;
        return new Recommendation(r.id(), r.action(), q.change(), r.sameMath(), r.addresses(), r.reason(),
                base.stepTimeS(), base.tflopsPerGpu(), base.stepTimeS() / speedup, base.tflopsPerGpu() * speedup, tokens,
                s.memory().totalGb(), s.memory().capacityGb(), speedup, low, high,
                next ? worst.name() : null, next ? worst.link().linkKey() : null, next ? worst.exposedSeconds() : 0,
                Recommendation.PricedBy.MODEL);
    }

    /**
     * A remedy of the run's history, priced by the wall time it wins back: the run's steps are as they are, the
     * stalls (or the straggler's wait, the data loader's, the slower pace) go, so the speedup is 1 / (1 - wallShare).
     * Measured, not modelled: its range is the point itself. Null when it would win back nothing or everything.
     */
    private static Recommendation priceByWall(Baseline b, RemedyProposal r) {
        if (!(r.wallShare() > 0) || !(r.wallShare() < 1)) return null;
        // the fitted step is the run's median step, which the stalls do not touch: the run's wall-clock pace is that
        // step slowed by the share the stalls take, and the remedy brings it back to the step
        StepPrediction base = b.prediction();
        double speedup = 1 / (1 - r.wallShare());
        return new Recommendation(r.id(), r.action(), r.change(), true, r.addresses(), r.reason(), base.stepTimeS() * speedup,
                base.tflopsPerGpu() / speedup, base.stepTimeS(), base.tflopsPerGpu(), base.tokensPerGpuPerS(),
                base.memory().totalGb(), base.memory().capacityGb(), speedup, speedup, speedup, null, null, 0,
                Recommendation.PricedBy.HISTORY);
    }

    /** The remedy's speedup in another explanation of the run's times, or null when the change does not apply. */
    private static Double speedup(Scenario from, RemedyProposal r) {
        Baseline.Priced qa = Baseline.price(from, r.change());
        if (qa == null) return null;
        return qa.step().tokensPerGpuPerS() / from.predict().tokensPerGpuPerS();
    }

    /** The chosen fit with its freed quantity (compute for NOMINAL) one posterior standard deviation either way. */
    private static List<Scenario> spread(Baseline b) {
        List<Scenario> out = new ArrayList<>();
        HypothesisFit chosen = b.fit().chosen();
        FitParam p = chosen.hypothesis().param() == null ? FitParam.COMPUTE_SCALE : chosen.hypothesis().param();
        FitParameter fp = chosen.parameter(p).orElse(null);
        if (fp != null && fp.low() > 0 && fp.high() > 0 && fp.low() != fp.high()) {
            out.add(chosen.scenario().with(p, fp.low()));
            out.add(chosen.scenario().with(p, fp.high()));
        }
        return out;
    }

    /** Several rules may propose the same remedy: one recommendation that addresses all their diagnoses. */
    static List<RemedyProposal> merge(List<RemedyProposal> proposals) {
        Map<String, RemedyProposal> byId = new LinkedHashMap<>();
        for (RemedyProposal r : proposals) {
            RemedyProposal prev = byId.get(r.id());
            if (prev == null) {
                byId.put(r.id(), r);
            } else {
                LinkedHashSet<String> addresses = new LinkedHashSet<>(prev.addresses());
                addresses.addAll(r.addresses());
                List<String> sorted = new ArrayList<>(addresses);
                sorted.sort(null);
                byId.put(r.id(), new RemedyProposal(prev.id(), prev.action(), prev.change(), prev.sameMath() && r.sameMath(),
                        sorted, prev.reason(), prev.rule(), prev.byHistory() && r.byHistory()
                        ? Math.max(prev.wallShare(), r.wallShare()) : prev.wallShare()));
            }
        }
        return List.copyOf(byId.values());
    }

    /**
     * The one way changes are combined: for each proposal that alone does not fit or does not gain, the best compatible
     * pair it makes with another (the two change different run-file keys), each unordered pair priced once. A pair is
     * kept when it fits and gains more than its partner alone by at least Materiality.material (a pair is two changes
     * to make; the second must earn its place); where the partner alone does not fit either, and the run itself does
     * not fit, making it fit is the gain. So "overlap the gradient reduction", which alone does not fit, comes with the
     * ZeRO stage that makes room for it, and two memory remedies that each fall short come together.
     */
    static List<Recommendation> combinations(Baseline b, List<RemedyProposal> proposals, List<Recommendation> singles,
                                             double done, Materiality m) {
        boolean overflows = b.prediction().memory().headroomGb() < 0;
        Map<String, Double> alone = new LinkedHashMap<>();
        for (Recommendation r : singles) alone.put(r.id(), r.speedup());
        Map<String, Optional<Recommendation>> priced = new HashMap<>();
        Map<String, Recommendation> out = new LinkedHashMap<>();
        for (RemedyProposal a : proposals) {
            if (alone.containsKey(a.id()) || a.id().equals(BEST_LAYOUT)) continue;
            Recommendation best = null;
            String bestKey = null;
            for (RemedyProposal c : proposals) {
                if (c == a || c.id().equals(BEST_LAYOUT) || !compatible(a, c)) continue;
                boolean aFirst = proposals.indexOf(a) < proposals.indexOf(c);
                String key = aFirst ? a.id() + "+" + c.id() : c.id() + "+" + a.id();
                Recommendation rec = priced.computeIfAbsent(key,
                        k -> Optional.ofNullable(price(b, aFirst ? pair(a, c) : pair(c, a), m))).orElse(null);
                if (rec == null) continue;
                Double partner = alone.get(c.id());
                if (overflows) {
                    // a run that does not fit has no speed to gain over; what counts is the best way to make it fit
                    if (partner != null && rec.speedup() < partner * (1 + m.material())) continue;
                } else if (rec.speedup() < Math.max(MIN_SPEEDUP, (partner == null ? 1 : partner) * (1 + m.material()))
                        || rec.predictedTokensPerGpuPerS() <= done) continue;
                if (best == null || rec.speedup() > best.speedup()) {
                    best = rec;
                    bestKey = key;
                }
            }
            if (best != null) out.putIfAbsent(bestKey, best);
        }
        return List.copyOf(out.values());
    }

    /** Two changes that set different run-file fields, so that both can be made. */
    static boolean compatible(RemedyProposal a, RemedyProposal c) {
        return a.change().disjoint(c.change());
    }

    /** Two proposals as one: both changes, both diagnoses addressed. */
    static RemedyProposal pair(RemedyProposal a, RemedyProposal c) {
        RunChange change = a.change().and(c.change());
        LinkedHashSet<String> addresses = new LinkedHashSet<>(a.addresses());
        addresses.addAll(c.addresses());
        return new RemedyProposal(a.id() + "+" + c.id(), a.action() + "; and " + lowerFirst(c.action()), change,
                a.sameMath() && c.sameMath(), List.copyOf(addresses), a.reason() + " " + c.reason(), a.rule());
    }

    private static String lowerFirst(String s) {
        return s.isEmpty() ? s : Character.toLowerCase(s.charAt(0)) + s.substring(1);
    }
}
