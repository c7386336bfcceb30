package dev.trainadvisor.facts;

import dev.trainadvisor.perf.FitHypothesis;
import dev.trainadvisor.perf.FitParam;
import dev.trainadvisor.perf.LinkScope;
import dev.trainadvisor.perf.MeasurementCheck;
import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.Training;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * The prose of every shipped diagnosis, rendered from the facts the rule matched. The rules decide whether a
 * diagnosis holds and what it claims; this writes it down, each number through {@link Explain} so that it is listed
 * as evidence and each formula is written whole (latency included) with what it comes to.
 */
public final class Explanations {
    private Explanations() {}

    // ---------------------------------------------------------------- shared pieces

    /** "X s of the Y s step: X s / Y s = Z%". */
    private static Explain share(Explain e, String name, double seconds, StepFact s) {
        return e.eq(Eq.div(Eq.v(name, seconds, "s"), Eq.v("step_time_s", s.stepTimeS(), "s")), name + "_share",
                100 * seconds / s.stepTimeS(), "%");
    }

    /**
     * The claimed seconds and their share of the step, with what causes before it took of the same phases (those of
     * {@code phases}, the phases it wanted).
     */
    private static Explain claimed(Explain e, double wanted, Collection<String> phases, Grant g, StepFact s,
                                   Collection<?> prior) {
        List<String> by = new ArrayList<>();
        for (Object o : prior) {
            Diagnosis d = (Diagnosis) o;
            if (d.claims().stream().anyMatch(c -> phases.contains(c.phase()))) by.add(d.id());
        }
        by.sort(null);
        if (Math.abs(wanted - g.seconds()) > 1e-9 * Math.max(1, wanted) && !by.isEmpty()) {
            e.text(" Of these, ").eq(Eq.minus(Eq.v("exposed_seconds", wanted, "s"), Eq.v("explained_by_causes_seconds",
                    wanted - g.seconds(), "s")), "claimed_seconds", g.seconds(), "s")
                    .text(" are this diagnosis' once " + String.join(" and ", by) + " took theirs;");
        } else {
            e.text(" This diagnosis explains ").num("claimed_seconds", g.seconds(), "s").text(" of the step;");
        }
        e.text(" ");
        return share(e, "claimed_seconds", g.seconds(), s).text(" of the step.");
    }

    private static String source(BandwidthSource b) {
        return switch (b) {
            case MEASURED -> "as measured";
            case FITTED -> "fitted to the run's times";
            case CATALOGUE -> "the catalogue's value";
        };
    }

    /**
     * One collective's time in full: "op over n GPUs: calls x alpha + factor x bytes / busbw = seconds, exposed", with
     * where a group that crosses nodes lies ("over 8 GPUs across 2 nodes, 4 on each: ...", as the rank order puts it).
     */
    private static void collective(Explain e, CollectiveFact c) {
        String n = c.name();
        e.text(n + " over ").count(n + ".group_size", c.groupSize()).text(" GPUs");
        if (c.crossesNodes() && c.domains() > 1)
            e.text(" across ").count(n + ".nodes", c.domains()).text(c.rackScale() ? " NVLink domains, " : " nodes, ")
                    .count(n + ".per_node", c.perDomain()).text(" on each");
        e.text(": ");
        Eq transfer = Eq.div(Eq.times(Eq.v(n + ".factor", c.factor(), ""), Eq.v(n + ".bytes", c.bytesPerStep() / 1e9, "GB")),
                Eq.v(n + ".busbw", c.busbwGbps(), "GB/s"));
        Eq formula = c.calls() > 0 && c.alphaUs() > 0
                ? Eq.plus(Eq.times(Eq.v(n + ".calls", c.calls(), ""), Eq.v(n + ".alpha", c.alphaUs(), "us")), transfer) : transfer;
        e.eq(formula, n + ".seconds", c.seconds(), "s").text(", of which ").num(n + ".exposed_seconds", c.exposedSeconds(), "s")
                .text(" exposed");
    }

    private static List<CollectiveFact> sorted(Collection<?> items) {
        List<CollectiveFact> out = new ArrayList<>();
        for (Object o : items) out.add((CollectiveFact) o);
        out.sort(Comparator.comparing(CollectiveFact::op));
        return out;
    }

    /**
     * The other explanations of the run's times that the fit cannot tell from the fault on {@code param}: fault
     * hypotheses within a Bayes factor of 3 of its own or fitting the times as well (Fit.indistinguishable), and the
     * measurement that would decide.
     */
    private static void rivals(Explain e, Collection<?> hypotheses, FitParam param) {
        HypothesisFact own = null;
        List<HypothesisFact> all = new ArrayList<>();
        for (Object o : hypotheses) {
            HypothesisFact h = (HypothesisFact) o;
            all.add(h);
            if (h.hypothesis().param() == param) own = h;
        }
        if (own == null) return;
        List<HypothesisFact> rs = new ArrayList<>();
        for (HypothesisFact h : all) {
            FitParam p = h.hypothesis().param();
            if (p != null && p != param && Math.abs(h.fitted() / h.expected() - 1) > 0.05
                    && dev.trainadvisor.perf.Fit.indistinguishable(own.posterior(), own.dataCost(), h.posterior(), h.dataCost()))
                rs.add(h);
        }
        if (rs.isEmpty()) return;
        rs.sort(Comparator.comparing(HypothesisFact::hypothesis));
        e.text(" The run's times cannot tell this from ");
        boolean first = true;
        for (HypothesisFact h : rs) {
            if (!first) e.text(", or from ");
            first = false;
            String k = "rival." + h.hypothesis().key();
            e.text(what(h.hypothesis().param()) + " at ").times(k + ".ratio", h.fitted() / h.expected())
                    .text(" (probability ").pct(k + ".posterior", h.posterior()).text(")");
        }
        e.text("; " + decide(rs) + " decides.");
    }

    /** How a diagnosis names a fitted quantity: "compute", "the intra-node link", "the network", "the overlap". */
    public static String what(FitParam p) {
        return switch (p) {
            case COMPUTE_SCALE -> "compute";
            case INTRA_NODE_BUSBW -> "the intra-node link";
            case INTER_NODE_GBPS -> "the network";
            case OVERLAP_FRACTION -> "the overlap";
        };
    }

    /** The measurement that separates the alternatives. */
    private static String decide(List<HypothesisFact> rs) {
        List<String> out = new ArrayList<>();
        for (HypothesisFact h : rs) {
            FitParam p = h.hypothesis().param();
            String m = p == null ? "per-phase timers (forward, backward, optimizer) in the log"
                    : switch (p) {
                case INTRA_NODE_BUSBW -> "nccl-tests all_reduce_perf on one node (its busbw_gbps in the run file)";
                case INTER_NODE_GBPS -> "nccl-tests all_reduce_perf across two nodes";
                case COMPUTE_SCALE -> "a GEMM benchmark on one GPU and nvidia-smi -q -d PERFORMANCE (clocks, throttling)";
                case OVERLAP_FRACTION -> "a profiler trace (PyTorch profiler or nsys) showing NCCL kernels beside the backward";
            };
            if (!out.contains(m)) out.add(m);
        }
        out.add(0, "forward and backward times from the log (forward_time_s, backward_time_s)");
        return String.join(", or ", out);
    }

    // ---------------------------------------------------------------- measurement

    public static Explain implausible(Collection<?> checks) {
        Explain e = Explain.start().text("The measurements cannot be right:");
        List<MeasurementCheck> cs = new ArrayList<>();
        for (Object o : checks) cs.add((MeasurementCheck) o);
        cs.sort(Comparator.comparing(MeasurementCheck::kind));
        for (MeasurementCheck c : cs) {
            String k = c.kind().key();
            switch (c.kind()) {
                case MFU_ABOVE_PEAK -> e.text(" the observed throughput (from " + c.metric().key() + ") is an MFU of ")
                        .pct(k + ".mfu", c.measured()).text(" of the GPU's dense peak, which no GPU exceeds;");
                case STEP_BELOW_PEAK_COMPUTE -> e.text(" the step of ").num(k + ".step_time_s", c.measured(), "s")
                        .text(" (from " + c.metric().key() + ") is shorter than the ").num(k + ".compute_at_peak_s", c.limit(), "s")
                        .text(" its FLOPs take at the GPU's peak;");
                case PRINTED_TFLOPS_MISMATCH -> e.text(" the printed TFLOPS are ").eq(Eq.div(Eq.v(k + ".printed", c.measured(), "TFLOPS"),
                        Eq.v(k + ".tokens_x_flops", c.limit(), "TFLOPS")), k + ".ratio", c.ratio(), "")
                        .text(" of what the measured tokens/s times the framework's own FLOPs per token give;");
                case TIMER_EXCEEDS_STEP -> e.text(" " + c.metric().key() + " of ").num(k + "." + c.metric().key(), c.measured(), "s")
                        .text(" is longer than the step of ").num(k + ".step_time_s", c.limit(), "s").text(";");
            }
        }
        return e.text(" so the run is not fitted and the advice reasons on the catalogue prediction. Check the units of the"
                + " log's numbers, which steps and ranks they average over, and what the run is said to be where the log does"
                + " not print it: the model, the GPUs, tokens per step (micro-batch size, micro-batches, sequence length).");
    }

    public static Explain flopsAccounting(ObservationFact o) {
        Explain e = Explain.start().text("The run prints ").num("tflops_printed", o.tflopsPrinted(), "TFLOPS")
                .text(" per GPU counting ").num("convention_gflops_per_token", o.conventionFlopsPerToken() / 1e9, "GFLOPs")
                .text(" per token (" + o.convention().key + " convention); the house count is ")
                .num("house_gflops_per_token", o.houseFlopsPerToken() / 1e9, "GFLOPs").text(" per token, ")
                .times("house_over_convention", o.houseFlopsPerToken() / o.conventionFlopsPerToken())
                .text(" the framework's. In house terms the printed figure is ");
        e.eq(Eq.div(Eq.times(Eq.v("tflops_printed", o.tflopsPrinted(), "TFLOPS"),
                        Eq.v("house_gflops_per_token", o.houseFlopsPerToken() / 1e9, "GFLOPs")),
                Eq.v("convention_gflops_per_token", o.conventionFlopsPerToken() / 1e9, "GFLOPs")),
                "tflops_printed_in_house_terms", o.tflopsPrinted() * o.houseFlopsPerToken() / o.conventionFlopsPerToken(), "TFLOPS");
        if (!Double.isNaN(o.tokensPerGpuPerS())) {
            e.text("; the measured throughput gives ").eq(Eq.div(Eq.v("tflops_house", o.tflopsHouse(), "TFLOPS"),
                    Eq.v("peak_tflops", o.peakTflops(), "TFLOPS")), "mfu_house", 100 * o.mfuHouse(), "%")
                    .text(" house MFU");
        }
        return e.text(".");
    }

    public static Explain healthy(GapFact g, Materiality m) {
        Explain e = Explain.start().text("Observed throughput is ").times("observed_over_predicted", g.observedOverPredicted())
                .text(" the prediction (step ").num("observed_step_time_s", g.observedStepS(), "s").text(" observed, ")
                .num("predicted_step_time_s", g.predictedStepS(), "s").text(" predicted), within the model's ")
                .pct("model_error", m.modelError()).text(" error, and nothing does less than it should.");
        return e;
    }

    public static Explain unexplainedSlowdown(GapFact g, Grant grant, Collection<?> rivals, Collection<?> coverage) {
        Explain e = unexplainedSlowdown(g, grant, rivals);
        LogCoverageFact cov = LogCoverageFact.of(coverage);
        if (cov != null && cov.stepOnly() && candidates(rivals).stream()
                .anyMatch(h -> h.hypothesis().param() == FitParam.COMPUTE_SCALE))
            e.text(" The run's measurements time only the whole step: an input pipeline that cannot keep up (the data"
                    + " loader: " + cov.loaderSwitch() + ") or host work between steps would show as slow compute. What"
                    + " decides: the data loader with workers, a profiler trace (the GPU idle between steps, the"
                    + " DataLoader's __next__ on the host), the GPU's utilisation in nvidia-smi dmon.");
        return e;
    }

    public static Explain unexplainedSlowdown(GapFact g, Grant grant, Collection<?> rivals) {
        Explain e = Explain.start().text("Observed throughput is ").times("observed_over_predicted", g.observedOverPredicted())
                .text(" the prediction: ").eq(Eq.minus(Eq.v("observed_step_time_s", g.observedStepS(), "s"),
                        Eq.v("predicted_step_time_s", g.predictedStepS(), "s")), "unexplained_seconds", g.unexplainedS(), "s");
        List<HypothesisFact> cands = candidates(rivals);
        if (!cands.isEmpty()) {
            // the fit could not single out a cause: each candidate with the value it would need and how likely it is
            e.text(" of the observed step are more than the model explains, and the run's times cannot say which"
                    + " quantity is off; alone, it would take ");
            boolean first = true;
            for (HypothesisFact h : cands) {
                if (!first) e.text(", or ");
                first = false;
                candidate(e, h);
            }
            for (Object o : rivals)
                if (o instanceof HypothesisFact h && h.hypothesis() == dev.trainadvisor.perf.FitHypothesis.SEVERAL
                        && (h.chosen() || h.rival()) && h.posterior() >= CANDIDATE_POSTERIOR)
                    e.text(", or several of them at once (probability ").pct("candidate.several.posterior", h.posterior()).text(")");
            e.text(". ");
            if (grant.seconds() > 0) e.text("The fitted step spreads ").num("claimed_seconds", grant.seconds(), "s")
                    .text(" of them over the phases no other diagnosis claims. ");
            return e.text("What separates them: " + decide(cands) + ".");
        }
        e.text(" of the observed step are not in the modelled compute, communication or optimizer step, and no cause"
                + " the rules know accounts for them. ");
        if (grant.seconds() > 0) e.text("The fitted step spreads ").num("claimed_seconds", grant.seconds(), "s")
                .text(" of them over the phases no other diagnosis claims. ");
        List<String> hyp = new ArrayList<>();
        for (Object o : rivals)
            if (o instanceof HypothesisFact h && (h.chosen() || h.rival())) hyp.add(h.hypothesis().key());
        return e.text("Measure next: nccl-tests all_reduce_perf on one node and across two (the links), the data loader's time"
                + " per step (batch-generator timer), per-rank step times (stragglers), and a GEMM benchmark with"
                + " nvidia-smi -q -d PERFORMANCE (clocks, throttling)"
                + (hyp.isEmpty() ? "." : "; the fit weighed " + String.join(", ", hyp) + " as the likeliest explanations."));
    }

    /** A candidate the fit gives less than this probability is not listed: it fits the times only at odds of 1:100. */
    static final double CANDIDATE_POSTERIOR = 0.01;

    /**
     * The causes a slowdown the fit could not single out may have, likeliest first: each fault hypothesis (HypothesisFact)
     * at least {@link #CANDIDATE_POSTERIOR} probable whose quantity could make the step as slow as observed by itself
     * (its {@code needed} value); where none was computed (a run within the model's error), those the fit chose or
     * cannot rule out whose fitted quantity moved more than 5% towards a slower step.
     */
    static List<HypothesisFact> candidates(Collection<?> hypotheses) {
        List<HypothesisFact> out = new ArrayList<>();
        for (Object o : hypotheses) {
            if (!(o instanceof HypothesisFact h) || h.hypothesis().param() == null || h.posterior() < CANDIDATE_POSTERIOR) continue;
            if (Double.isFinite(h.needed()) ? h.needed() < 0.95 * h.expected()
                    : (h.chosen() || h.rival()) && h.fitted() < 0.95 * h.expected()) out.add(h);
        }
        out.sort(Comparator.comparingDouble(HypothesisFact::posterior).reversed().thenComparing(HypothesisFact::hypothesis));
        return out;
    }

    /** The value a candidate is named with: the value it would need alone, else its fitted value. */
    private static double candidateValue(HypothesisFact h) {
        return Double.isFinite(h.needed()) ? h.needed() : h.fitted();
    }

    /** "the intra-node link at 6.29% of its rating (probability 52%)", "compute at 0.201x (probability 31%: ...)". */
    private static void candidate(Explain e, HypothesisFact h) {
        FitParam p = h.hypothesis().param();
        String k = "candidate." + h.hypothesis().key();
        e.text(what(p) + " at ");
        if (p.isLink()) e.pct(k + ".ratio_pct", candidateValue(h) / h.expected()).text(" of its rating");
        else e.times(k + ".ratio", candidateValue(h) / h.expected());
        e.text(" (probability ").pct(k + ".posterior", h.posterior());
        e.text(switch (p) {
            case COMPUTE_SCALE -> ": a wrong precision, clocks or power, or a step starved of data or held by the host";
            case INTRA_NODE_BUSBW -> ": peer-to-peer off, traffic through host memory";
            case INTER_NODE_GBPS -> ": RDMA off, the wrong NIC, a degraded port";
            case OVERLAP_FRACTION -> ": collectives serialized with compute";
        }).text(")");
    }

    public static Explain fasterThanModel(GapFact g, Cluster c) {
        return Explain.start().text("Observed throughput is ").times("observed_over_predicted", g.observedOverPredicted())
                .text(" the prediction (step ").num("observed_step_time_s", g.observedStepS(), "s").text(" observed, ")
                .num("predicted_step_time_s", g.predictedStepS(), "s")
                .text(" predicted): the run is faster than the model allows, so the model or its inputs are off. Check, in this"
                        + " order: the tokens per step (micro-batch size, micro-batches, sequence length: a step that processes"
                        + " fewer tokens than the file says runs faster), the GPU (" + c.gpu().key() + ": a faster variant?), the"
                        + " link (" + c.intraNode().key() + ") and network, recomputation and flash attention as the run really had"
                        + " them, and for a printed TFLOPS its tflops_convention.");
    }

    // ---------------------------------------------------------------- communication

    public static Explain linkUnderperforms(Collection<?> links, StepFact s, Collection<?> faults, Collection<?> items,
                                            Grant g, Collection<?> rivals) {
        Explain e = Explain.start();
        LinkFact intraLink = link(links, LinkScope.INTRA_NODE), interLink = link(links, LinkScope.INTER_NODE);
        List<Fault> fs = new ArrayList<>();
        for (Object o : faults) fs.add((Fault) o);
        fs.sort(Comparator.comparing(Fault::param).thenComparing(Fault::measured, Comparator.reverseOrder()).thenComparing(Fault::source));
        boolean first = true;
        java.util.Set<FitParam> named = new java.util.HashSet<>();
        for (Fault f : fs) {
            boolean intra = f.param() == FitParam.INTRA_NODE_BUSBW;
            // a link both measured and fitted faulty: the second finding's numbers under their own names
            String k = named.add(f.param()) ? f.param().key() : f.param().key() + "." + f.source().name().toLowerCase(java.util.Locale.ROOT);
            e.text(first ? "" : " ").text((f.measured() ? "As measured" : "Fitted to the run's times") + ", the "
                    + (intra ? "intra-node link " + intraLink.link() : "network " + (interLink == null ? "none" : interLink.link())) + " delivers ")
                    .num(k + ".fitted", f.fitted(), "GB/s").text(" where the catalogue gives ").num(k + ".expected", f.expected(), "GB/s")
                    .text(": ").eq(Eq.div(Eq.v(k + ".fitted", f.fitted(), "GB/s"), Eq.v(k + ".expected", f.expected(), "GB/s")),
                            k + ".ratio_pct", 100 * f.fitted() / f.expected(), "%").text(" of its rating");
            if (!f.measured()) e.text(" (probability ").pct(k + ".posterior", f.probability()).text(")");
            e.text(".");
            if (intra) transportHint(e, intraLink, f.fitted());
            first = false;
        }
        e.text(" At its rating the step would be ").num("claimed_seconds", g.seconds(), "s").text(" shorter: ");
        share(e, "claimed_seconds", g.seconds(), s).text(" of the ").num("step_time_s", s.stepTimeS(), "s").text(" step.");
        List<CollectiveFact> on = new ArrayList<>();
        for (CollectiveFact c : sorted(items)) {
            if (fs.stream().anyMatch(f -> (c.scope() == LinkScope.INTRA_NODE) == (f.param() == FitParam.INTRA_NODE_BUSBW))) on.add(c);
        }
        if (!on.isEmpty()) {
            e.text(" On the slow link, each collective takes calls x alpha + factor x bytes / busbw: ");
            for (int i = 0; i < on.size(); i++) {
                if (i > 0) e.text("; ");
                collective(e, on.get(i));
            }
            e.text(".");
        }
        boolean intra = fs.stream().anyMatch(f -> f.param() == FitParam.INTRA_NODE_BUSBW);
        e.text(intra ? " Check peer-to-peer access (nvidia-smi topo -m: GPUs under different CPU sockets show SYS, and NCCL"
                + " stages their traffic through host memory; NCCL_P2P_DISABLE; ACS or the IOMMU on PCIe switches), the PCIe"
                + " link width and generation (nvidia-smi -q), and NCCL_DEBUG=INFO's transport (P2P, SHM or NET/Socket)."
                : " Check that NCCL uses the RDMA NICs (NCCL_DEBUG=INFO shows NET/IB, not NET/Socket), GPUDirect RDMA, and"
                + " the NICs' link speed; measure with nccl-tests across nodes.");
        fs.stream().filter(f -> !f.measured()).map(Fault::param).distinct().forEach(p -> rivals(e, rivals, p));
        return e;
    }

    /**
     * When a link delivers about what one of NCCL's fallback transports gives on this host (within a factor 1.6 either
     * way), say so: peer-to-peer is then likely off, and the transport names the setting to look at.
     */
    private static void transportHint(Explain e, LinkFact l, double fitted) {
        if (near(fitted, l.shmGbps()))
            e.text(" That is about what NCCL's shared memory transport gives on this host (").num("shm_busbw", l.shmGbps(), "GB/s")
                    .text(", peer-to-peer off: NCCL_P2P_DISABLE set, GPUs across CPU sockets or host bridges, P2P unsupported).");
        else if (near(fitted, l.socketGbps()))
            e.text(" That is about what NCCL's sockets give within a node (").num("socket_busbw", l.socketGbps(), "GB/s")
                    .text(", peer-to-peer and shared memory both off: NCCL_P2P_DISABLE and NCCL_SHM_DISABLE, or containers without a common /dev/shm).");
    }

    private static boolean near(double a, double b) { return b > 0 && a / b < 1.6 && b / a < 1.6; }

    /** The link of {@code scope} among {@code links} (LinkFact facts), or null. */
    private static LinkFact link(Collection<?> links, LinkScope scope) {
        for (Object o : links) if (o instanceof LinkFact l && l.scope() == scope) return l;
        return null;
    }

    public static Explain tpAcrossNodes(Cluster c, Parallel p, StepFact s, Collection<?> items, Grant g) {
        Explain e = Explain.start().text("The tensor-parallel group of ").count("tp", p.tp()).text(" GPUs spans nodes of ")
                .count("gpus_per_node", c.gpusPerNode()).text(" GPUs: its per-layer collectives cross "
                        + (c.interNode() == null ? "none" : c.interNode().key())
                        + ", with nothing to hide behind. ");
        for (CollectiveFact col : sorted(items)) {
            collective(e, col);
            e.text(". ");
        }
        e.text("They leave ").num("claimed_seconds", g.seconds(), "s").text(" exposed: ");
        return share(e, "claimed_seconds", g.seconds(), s).text(" of the ").num("step_time_s", s.stepTimeS(), "s").text(" step.");
    }

    public static Explain unoverlapped(StepFact s, Collection<?> off, Collection<?> fault, Grant g) {
        Explain e = Explain.start();
        List<Saving> sv = new ArrayList<>();
        for (Object o : off) sv.add((Saving) o);
        sv.sort(Comparator.comparing(Saving::kind));
        for (Saving x : sv) {
            String what = x.kind() == Saving.Kind.OVERLAP_PARAM_GATHER
                    ? "overlap_param_gather is off, so the updated parameters are gathered after the optimizer step"
                    : "overlap_grad_reduce is off, so the gradients are reduced after the backward pass";
            e.text(Character.toUpperCase(what.charAt(0)) + what.substring(1) + "; overlapped, the step would be ")
                    .num(x.kind().key() + ".saving_seconds", x.seconds(), "s").text(" shorter. ");
        }
        for (Object o : fault) {
            Fault f = (Fault) o;
            e.text("Fitted to the run's times, the overlapped collectives hide ").eq(Eq.div(Eq.v("overlap.fitted", f.fitted(), ""),
                    Eq.v("overlap.expected", f.expected(), "")), "overlap.ratio_pct", 100 * f.ratio(), "%")
                    .text(" of what they should (probability ").pct("overlap.posterior", f.probability())
                    .text("): NCCL kernels slowed by the compute beside them, CUDA_DEVICE_MAX_CONNECTIONS=1 serializing the"
                            + " streams, or buckets that arrive too late to hide. ");
        }
        e.text("Together that is ").num("claimed_seconds", g.seconds(), "s").text(": ");
        return share(e, "claimed_seconds", g.seconds(), s).text(" of the ").num("step_time_s", s.stepTimeS(), "s").text(" step.");
    }

    public static Explain linkBound(Cluster c, LinkFact l, StepFact s, Collection<?> items, Grant g, Collection<?> prior) {
        List<CollectiveFact> cs = sorted(items);
        boolean intra = cs.get(0).scope() == LinkScope.INTRA_NODE;
        Explain e = Explain.start();
        if (intra) {
            e.text("The collectives bound by the intra-node link " + l.link() + " (").num("intra_node_busbw", l.gbps(), "GB/s")
                    .text(" all-reduce bus bandwidth, " + source(l.source()) + ")");
        } else {
            e.text("The collectives that cross nodes over " + l.link() + " (").count("nics_per_node", c.interNode().nicsPerNode())
                    .text(" NICs per node, ").num("inter_node_gbps", l.gbps(), "GB/s")
                    .text(" per node, " + source(l.source()) + ")");
        }
        double exposed = 0;
        for (CollectiveFact col : cs) exposed += col.exposedSeconds();
        e.text(" leave ").num("exposed_seconds", exposed, "s").text(" of the ").num("step_time_s", s.stepTimeS(), "s")
                .text(" step exposed. Each takes calls x alpha + factor x bytes / busbw: ");
        for (int i = 0; i < cs.size(); i++) {
            if (i > 0) e.text("; ");
            collective(e, cs.get(i));
        }
        e.text(".");
        return claimed(e, exposed, cs.stream().map(CollectiveFact::name).toList(), g, s, prior);
    }

    // ---------------------------------------------------------------- compute

    public static Explain computeUnderperforms(Fault f, StepFact s, Grant g, Collection<?> rivals, Collection<?> coverage) {
        Explain e = computeUnderperforms(f, s, g, rivals);
        LogCoverageFact cov = LogCoverageFact.of(coverage);
        if (cov != null && cov.stepOnly())
            e.text(" The run's measurements time only the whole step, no data loading, forward-backward or optimizer: an input pipeline"
                    + " that cannot keep up (the data loader: " + cov.loaderSwitch() + ") or host work between steps would"
                    + " show the same, and the times cannot tell them from compute. What decides: the data loader with"
                    + " workers, a profiler trace (the GPU idle between steps, the DataLoader's __next__ on the host), the"
                    + " GPU's utilisation in nvidia-smi dmon (well below full for an input-bound run).");
        return e;
    }

    public static Explain computeUnderperforms(Fault f, StepFact s, Grant g, Collection<?> rivals) {
        Explain e = Explain.start().text("Fitted to the run's times, GEMMs and attention run at ")
                .times("compute_scale.fitted", f.fitted()).text(" of what this GPU reaches in benchmarks (probability ")
                .pct("compute_scale.posterior", f.probability()).text("). At the benchmarks' pace the step would be ")
                .num("claimed_seconds", g.seconds(), "s").text(" shorter: ");
        share(e, "claimed_seconds", g.seconds(), s).text(" of the ").num("step_time_s", s.stepTimeS(), "s")
                .text(" step. Check the clocks and throttle reasons (nvidia-smi -q -d PERFORMANCE,CLOCK: power or thermal"
                        + " limits), other processes on the GPUs, and a GEMM benchmark against the catalogue's MAMF.");
        rivals(e, rivals, FitParam.COMPUTE_SCALE);
        return e;
    }

    public static Explain slowAttention(Cluster c, Training t, StepFact s, Grant g) {
        String now = t.attentionKernel() == dev.trainadvisor.spec.AttentionKernel.MATH && !t.flashAttention()
                ? "on PyTorch's math backend (the scores in fp32, GEMMs on CUDA cores)"
                : !t.flashAttention() ? "without flash attention" : "with the " + t.attentionKernel().name().toLowerCase() + " kernel";
        Explain e = Explain.start().text("The run computes attention " + now + "; FlashAttention-2 would run the step ")
                .num("claimed_seconds", g.seconds(), "s").text(" faster: ");
        share(e, "claimed_seconds", g.seconds(), s).text(" of the ").num("step_time_s", s.stepTimeS(), "s").text(" step.");
        if (c.gpu().smVersion() < 80) e.text(" FlashAttention-2 needs an Ampere or later GPU; " + c.gpu().key()
                + " is older, so this is what the kernel costs, not a remedy.");
        return e;
    }

    public static Explain unfusedOptimizer(StepFact s, Grant g) {
        Explain e = Explain.start().text("The optimizer's update runs as PyTorch's foreach kernels, a pass over the states per"
                + " operation; one fused kernel would run the step ").num("claimed_seconds", g.seconds(), "s").text(" faster: ");
        return share(e, "claimed_seconds", g.seconds(), s).text(" of the ").num("step_time_s", s.stepTimeS(), "s").text(" step.");
    }

    public static Explain eagerElementwise(StepFact s, Grant g, dev.trainadvisor.spec.ElementwiseKernels kernels) {
        Explain e = Explain.start().text(kernels.eagerNorm() || !kernels.eagerComposites()
                ? "Norms, rotary and the activation run as eager PyTorch composites; fused, the step would run "
                : "Rotary and the activation run as eager PyTorch composites (the norms are fused kernels); fused, the"
                + " step would run ").num("claimed_seconds", g.seconds(), "s").text(" faster: ");
        return share(e, "claimed_seconds", g.seconds(), s).text(" of the ").num("step_time_s", s.stepTimeS(), "s").text(" step.");
    }

    public static Explain launchBound(LaunchFact l, StepFact s, Grant g) {
        Explain e = Explain.start().text("Each micro-batch launches ").count("launches", Math.round(l.launchesPerMicroBatch()))
                .text(" kernels; at ").num("seconds_per_launch", l.secondsPerLaunch() * 1e6, "us")
                .text(" a launch the host needs ")
                .eq(Eq.times(Eq.v("launches", Math.round(l.launchesPerMicroBatch()), ""),
                        Eq.v("seconds_per_launch", l.secondsPerLaunch() * 1e6, "us")), "host_seconds", l.hostS(), "s")
                .text(" where the GPU works ").num("gpu_seconds", l.gpuS(), "s").text(", so a micro-batch takes ")
                .num("micro_batch_seconds", l.microBatchS(), "s").text(". Replayed from CUDA graphs the step would be ")
                .num("claimed_seconds", g.seconds(), "s").text(" shorter: ");
        return share(e, "claimed_seconds", g.seconds(), s).text(" of the ").num("step_time_s", s.stepTimeS(), "s").text(" step.");
    }

    public static Explain recompute(Training t, StepFact s, MemoryFact m, Grant g) {
        Explain e = Explain.start().text("Recomputation (" + t.recompute().key() + ") runs ")
                .eq(Eq.div(Eq.v("hardware_gflops_per_token", s.hardwareFlopsPerToken() / 1e9, "GFLOPs"),
                        Eq.v("model_gflops_per_token", s.modelFlopsPerToken() / 1e9, "GFLOPs")), "flops_ratio",
                        s.hardwareFlopsPerToken() / s.modelFlopsPerToken(), "")
                .text(" times the model's FLOPs per token: ").num("claimed_seconds", g.seconds(), "s").text(" of recomputed forward, ");
        share(e, "claimed_seconds", g.seconds(), s).text(" of the ").num("step_time_s", s.stepTimeS(), "s")
                .text(" step, while the step holds ").num("total_gb", m.totalGb(), "GB").text(" of the ").num("capacity_gb", m.capacityGb(), "GB")
                .text(" the GPU has.");
        return e;
    }

    public static Explain smallMicroBatch(Parallel p, Training t, StepFact s, Grant g) {
        Explain e = Explain.start().text("With ").count("tokens_per_micro_batch", Math.round(s.tokensPerMicroBatch()))
                .text(" tokens per micro-batch on each GPU, the layer GEMMs keep ").pct("wave_efficiency", s.waveEfficiency())
                .text(" of the SMs busy over their waves (tiles of ").count("gemm_tile", dev.trainadvisor.perf.ComputeTime.TILE).text(" x ")
                .count("gemm_tile", dev.trainadvisor.perf.ComputeTime.TILE).text(" outputs, one per SM a wave): the idle SMs of the last, partly empty"
                        + " wave cost ").num("claimed_seconds", g.seconds(), "s").text(", ");
        return share(e, "claimed_seconds", g.seconds(), s).text(" of the ").num("step_time_s", s.stepTimeS(), "s").text(" step.");
    }

    public static Explain optimizerBound(Parallel p, Training t, StepFact s, Grant g) {
        Explain e = Explain.start().text("The optimizer step takes ").num("claimed_seconds", g.seconds(), "s").text(", ");
        share(e, "claimed_seconds", g.seconds(), s).text(" of the ").num("step_time_s", s.stepTimeS(), "s")
                .text(" step: Adam reads and writes ");
        // as perf.StepModel.optimizerSeconds counts them
        int gradient = t.gradReducePrecision().bytes;
        e.eq(Eq.plus(Eq.plus(Eq.v("adam_state_bytes", 24, ""), Eq.times(Eq.v("gradient_reads", 2, ""),
                        Eq.v("gradient_bytes", gradient, ""))), Eq.v("weight_bytes", 2, "")), "bytes_per_parameter",
                dev.trainadvisor.perf.StepModel.optimizerBytesPerParam(t.gradReducePrecision()), "")
                .text(" bytes per parameter it updates (fp32 weights, momentum and variance in and out, the "
                        + t.gradReducePrecision().key() + " gradient read twice, the half-precision weights written)"
                        + (p.zeroStage() == 0 ? ", and every data-parallel rank updates all of them." : "."));
        return e;
    }

    /** What offload costs, and which of its parts, the host's optimizer or the copies, the step waits for most. */
    public static Explain offloadBound(OffloadFact o, StepFact s, Grant g) {
        Explain e = Explain.start().text("With " + o.tiers() + " offloaded, the step waits ").num("claimed_seconds", g.seconds(), "s")
                .text(" for the host: ");
        share(e, "claimed_seconds", g.seconds(), s).text(" of the ").num("step_time_s", s.stepTimeS(), "s").text(" step. ");
        if (o.hostOptimizerS() > 0) {
            e.text(o.optimizerDominates() ? "Most of it is the host's optimizer step: " : "The host's optimizer step: ")
                    .eq(Eq.div(Eq.v("host_parameters", o.hostParams() / 1e9, "G"), Eq.v("host_optimizer_rate", o.hostParamsPerS() / 1e9, "G/s")),
                            "host_optimizer_s", o.hostOptimizerS(), "s").text(". ");
            hostRate(e, o);
        }
        if (o.copiesS() + o.updateS() > 0)
            e.text(" The copies over the host link at ").num("host_link_gbps", o.hostLinkGbps(), "GB/s").text(" each way expose ")
                    .num("copies_s", o.copiesS() + o.updateS(), "s").text(".");
        return e;
    }

    /** The host's optimizer bound by the node's memory bandwidth: its seconds, and the bandwidth over the ranks. */
    public static Explain hostMemoryBound(OffloadFact o, StepFact s, Grant g) {
        dev.trainadvisor.perf.Offloading.HostRate r = o.rate();
        Explain e = Explain.start().text("The host's optimizer step takes ").num("claimed_seconds", g.seconds(), "s").text(", ");
        share(e, "claimed_seconds", g.seconds(), s).text(" of the ").num("step_time_s", s.stepTimeS(), "s")
                .text(" step, and the host's memory, not its cores, sets its pace: ");
        e.eq(Eq.div(Eq.div(Eq.v("host_memory_gbps", r.host().memoryBandwidthGbps(), "GB/s"),
                        Eq.v("triad_bytes_per_param", r.optimizer().triadBytesPerParam(), "B")), Eq.v("ranks_per_node", r.ranks(), "")),
                "bandwidth_rate", r.bandwidthPerS() / 1e9, "G/s")
                .text(" parameters a second for each GPU, where its threads alone would run ").num("cores_rate", r.coresPerS() / 1e9, "G/s")
                .text(" (" + r.optimizer().key() + ", measured on the H200 machine's host). ");
        hostNamed(e, r);
        return e;
    }

    /** Which host optimizer, threads and ranks set the host's rate, and whether its cores or its memory bound it. */
    private static void hostRate(Explain e, OffloadFact o) {
        dev.trainadvisor.perf.Offloading.HostRate r = o.rate();
        e.text(r.optimizer().key() + ", ").num("threads_per_rank", r.threadsPerRank(), "")
                .text(" threads a rank, ").num("ranks_per_node", r.ranks(), "").text(" ranks a node on ")
                .num("host_cores", r.host().cores(), "").text(" host cores" + (r.bound() ? ", bound" : ", unbound") + ": ");
        if (r.bandwidthBound())
            e.text("the node's ").num("host_memory_gbps", r.host().memoryBandwidthGbps(), "GB/s")
                    .text(" of memory bandwidth bounds it, below what the threads would run (")
                    .num("cores_rate", r.coresPerS() / 1e9, "G/s").text(")");
        else e.text("its threads bound it, at ").num("cores_rate", r.coresPerS() / 1e9, "G/s").text(" each (measured in one process)");
        if (r.unboundShare() < 1)
            e.text(", and ").num("oversubscription", r.oversubscription(), "x").text(" more threads than cores keep ")
                    .num("unbound_share", r.unboundShare(), "").text(" of it");
        e.text(". ");
        hostNamed(e, r);
    }

    private static void hostNamed(Explain e, dev.trainadvisor.perf.Offloading.HostRate r) {
        if (r.host().assumed())
            e.text("The run names no host: priced on the H200 machine's (" + r.host().label()
                    + "), where it was measured; cluster.host names yours.");
    }

    /** The bubble, and when compute causes took part of it (their repair shrinks it too), what is left to it. */
    public static Explain bubble(Parallel p, Training t, StepFact s, Grant g, Collection<?> prior) {
        double bubble = s.phase(dev.trainadvisor.perf.Phase.PIPELINE_BUBBLE);
        boolean whole = Math.abs(bubble - g.seconds()) <= 1e-9 * Math.max(1, bubble);
        Explain e = Explain.start().text("The pipeline bubble takes ");
        if (whole) share(e.num("claimed_seconds", g.seconds(), "s").text(", "), "claimed_seconds", g.seconds(), s).text(" of the ");
        else e.num("exposed_seconds", bubble, "s").text(" of the ");
        e.num("step_time_s", s.stepTimeS(), "s").text(" step: each stage idles (pp - 1) / (v x m) of the compute, ");
        e.eq(Eq.div(Eq.minus(Eq.v("pp", p.pp(), ""), Eq.v("one", 1, "")), Eq.times(Eq.v("virtual_stages", p.virtualStages(), ""),
                Eq.v("micro_batches", t.microBatches(), ""))), "bubble_fraction",
                (p.pp() - 1.0) / (p.virtualStages() * t.microBatches()), "").text(".");
        return whole ? e : claimed(e, bubble, List.of(dev.trainadvisor.perf.Phase.PIPELINE_BUBBLE), g, s, prior);
    }

    // ---------------------------------------------------------------- memory and numerics

    public static Explain memoryOverflow(MemoryFact m, Cluster c, Parallel p) {
        Explain e = Explain.start().text("Predicted peak memory per GPU is ").num("total_gb", m.totalGb(), "GB").text(" of the ")
                .num("capacity_gb", m.capacityGb(), "GB").text(" the " + c.gpu().key() + " has: weights ").num("weights_gb", m.weightsGb(), "GB")
                .text(", gradients ").num("gradients_gb", m.gradientsGb(), "GB").text(", optimizer states ")
                .num("optimizer_gb", m.optimizerGb(), "GB").text(" (ZeRO stage ").count("zero_stage", p.zeroStage()).text(" over ")
                .count("zero_group_size", p.zeroGroupSize());
        // context-parallel ranks hold the same weights: ZeRO shards over them too (perf.DataParallel.shardGroup)
        if (p.cp() > 1) e.text(" data-parallel GPUs, each with its ").count("cp", p.cp()).text(" context-parallel ranks)");
        else e.text(" GPUs)");
        return e.text(", activations ").num("activations_gb", m.activationsGb(), "GB")
                .text(", logits ").num("logits_gb", m.logitsGb(), "GB").text(", buffers ").num("buffers_gb", m.buffersGb(), "GB")
                .text(". The run cannot start as configured.");
    }

    /** The run's times against the model at its configured precision and at the one they match. */
    public static Explain precisionMismatch(PrecisionMismatchFact p) {
        return Explain.start().text("The run says " + p.configuredKey() + ", but its step of ").num("observed_step_s", p.observedS(), "s")
                .text(" is ").eq(Eq.div(Eq.v("observed_step_s", p.observedS(), "s"), Eq.v("predicted_" + p.configuredKey() + "_s",
                        p.configuredS(), "s")), "gap", p.gap(), "x")
                .text(" the model's at " + p.configuredKey() + " and ").eq(Eq.div(Eq.v("observed_step_s", p.observedS(), "s"),
                        Eq.v("predicted_" + p.ranKey() + "_s", p.ranS(), "s")), "fit", p.fit(), "x")
                .text(" its step at " + p.ranKey() + ": the matmuls ran in " + p.ranKey() + ". The advice prices the run as it ran, at "
                        + p.ranKey() + "; the run file's " + p.configuredKey() + " is kept as the remedy's target.");
    }

    /** What the node's host must hold for offload, against its memory. */
    public static Explain hostMemoryOverflow(HostMemoryFact h) {
        return Explain.start().text("The offloaded states need ")
                .eq(Eq.times(Eq.v("host_gb_per_gpu", h.perGpuGb(), "GB"), Eq.v("gpus_per_node", h.gpusPerNode(), "")),
                        "host_need_gb", h.needGb(), "GB")
                .text(" of host memory a node, and the host (" + h.host() + ") has ").num("host_memory_gb", h.haveGb(), "GB")
                .text(". The run cannot start as configured: offload less, shard more (more nodes), or a host with more memory.");
    }

    /** No layout of the run's GPUs holds it; what would, from the layout search. */
    public static Explain noLayoutFits(CapacityFact c, Cluster cluster) {
        String gpu = cluster.gpu().key();
        Explain e = Explain.start().text("No layout of these ").count("gpus", c.gpus()).text(" " + gpu
                        + " holds the run: the weights, gradients and optimizer states of ").num("params_b", c.params() / 1e9, "B")
                .text(" parameters come to ");
        if (c.stateGb() >= 1000) e.num("state_tb", c.stateGb() / 1000, "TB");
        else e.num("state_gb", c.stateGb(), "GB");
        e.text(" before any activation, against ")
                .eq(Eq.times(Eq.v("gpus", c.gpus(), ""), Eq.v("gpu_memory_gb", c.gpuMemoryGb(), "GB")), "cluster_memory_gb",
                        c.clusterMemoryGb(), "GB")
                .text("; the search tried ").count("layouts_tried", c.layoutsTried())
                .text(" layouts (tensor, pipeline, context, data and expert parallelism, every ZeRO stage, micro-batches, recomputation) and none leaves ")
                .pct("search_headroom", c.headroom()).text(" of the memory free.");
        if (c.fewestGpus() > 0)
            e.text(" The fewest " + gpu + " that hold it at the same global batch are ").count("fewest_gpus", c.fewestGpus())
                    .text(".");
        else
            e.text(" Up to ").count("max_gpus_tried", c.maxGpusTried()).text(" " + gpu + " none holds it at the same global batch.");
        if (c.largerGpu() != null)
            e.text(" The catalogue GPU with the least memory that holds it on as many GPUs is the " + c.largerGpu() + " (")
                    .num("larger_gpu_memory_gb", c.largerGpuMemoryGb(), "GB").text(").");
        if (c.fewestGpus() > 0 || c.largerGpu() != null) e.text(" The recommendations lay them out.");
        return e;
    }

    public static Explain memoryHeadroom(MemoryFact m, Cluster c) {
        return Explain.start().text("The step holds ").num("total_gb", m.totalGb(), "GB").text(" of the ").num("capacity_gb", m.capacityGb(), "GB")
                .text(" of the " + c.gpu().key() + ": ").eq(Eq.minus(Eq.v("capacity_gb", m.capacityGb(), "GB"), Eq.v("total_gb", m.totalGb(), "GB")),
                        "free_gb", m.headroomGb(), "GB").text(" free.");
    }

    public static Explain lossScaleSkips(StepHealthFact h) {
        Explain e = Explain.start().count("skipped_steps", Math.round(h.skippedSteps())).text(" of ").count("steps", Math.round(h.steps()))
                .text(" steps, ").pct("skipped_share", h.skippedSteps() / h.steps())
                .text(", were skipped for gradient overflow, each a step of compute that changed nothing");
        if (!Double.isNaN(h.lossScale())) e.text("; the loss scale ended at ").num("loss_scale", h.lossScale(), "");
        return e.text(". " + (h.precision() == dev.trainadvisor.spec.Precision.FP16
                ? "bf16 needs no loss scaling where the GPU has it; else a lower initial scale or a longer growth interval skips fewer."
                : "In " + h.precision().key() + " this points at a real divergence (inf/NaN gradients), not at loss scaling."));
    }

    /** Recompute in run-file terms, for rules. */
    public static String key(Recompute r) { return r.key(); }
}
