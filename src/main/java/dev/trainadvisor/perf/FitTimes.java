package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Training;

import java.util.List;

/**
 * The times a fit compares with a run's measured ones ({@link StepModel.Times}) as a function of the four quantities it
 * moves ({@link FitParam}: the compute scale, the intra-node link's bus bandwidth, the network's node bandwidth, the
 * overlap), the step model worked out once for a scenario's layout and cluster. A fit predicts its run some 700 times
 * (Levenberg-Marquardt's points, their forward differences, the evidence's lines), each at other values of those four
 * alone, and each prediction worked out the micro-batch's every operation and placed every collective's group again;
 * here what does not move is summed once, and a prediction is a few operations a collective:
 *
 * <ul>
 *   <li>the compute: a GEMM or an attention core at its rate takes {@code flops / (rate x scale)}, so the operations'
 *   forward and total times at scale 1 are summed once and divided by the scale; a memory-bound kernel does not move;
 *   an operation bound by the bytes it streams too (a grouped GEMM, eager attention: Roofline#boundByBytes) is kept
 *   apart and its p-norm taken at each scale; the host's launches are added as ComputeTime adds them;</li>
 *   <li>the offload's costs ({@link Offloading.Parts}), the optimizer, the framework's own time and FSDP2's copies,
 *   worked out once (they move with none of the four but the gradient copies hidden behind the backward), and summed
 *   with the compute as a prediction sums them (StepModel#beforeCollectives, #afterBackward);</li>
 *   <li>each collective: its group's placement gives a link whose bus bandwidth is proportional to the intra-node
 *   link's or to the network's (LinkChoice#scope), and a group that spans NVLink domains is bound by the slower of
 *   the two (Topology#place, #placeAllToAll); both are placed once, on the cluster with either link made the slower,
 *   and at each point the slower is chosen, as Topology chooses it, and NCCL's algorithm as CallCost#of chooses it
 *   there ({@link CallCost#only}, {@link CallCost#other}, {@link CallCost#cheaper}); then overlapped and added as a
 *   prediction's times alone add them (StepModel#withCollectives).</li>
 * </ul>
 *
 * The same quantities summed in another order give the same times to within rounding, not bit for bit;
 * FitTimesTest holds them within 1e-11 of the step to {@link StepModel#times} on every reference run, the examples and
 * the test run files, at and around the catalogue's values and across the links' and the algorithms' switches. Null
 * ({@link #of}) where a collective's group was not placed by the topology, so cannot be placed again, or an
 * operation's time is not a finite positive number: the fit then predicts each point whole. One fit's, on its thread:
 * a point's parts are kept in place for the next.
 */
final class FitTimes {
    private final int microBatches;
    private final Parallel parallel;
    private final Sums sums;
    private final Bounded[] bounded;
    private final double hostPower;
    private final double optimizer, framework, copies;
    private final Offloading.Parts offload;
    private final Placed[] collectives;
    private final double computeScale, intraGbps, netGbps, overlap;

    /** An operation bound by the bytes it streams: its compute at scale 1 and its streams' times. */
    private record Bounded(boolean gemm, double compute, double read, double weightGradientRead, double passes,
                           boolean doubled) {}

    /**
     * A collective: the bytes of one call, and its plan with NCCL's choices on the link it gets where the intra-node
     * link is the slower ({@code intra}) and where the network is ({@code net}); a group inside one NVLink domain, or
     * with one member in each, has the same link on both.
     */
    private record Placed(double bytesPerCall, Branch intra, Branch net) {}

    /**
     * A collective on one branch: its plan on that branch's link, the link's bus bandwidth over the bandwidth of the
     * link it is proportional to (the intra-node link's bus bandwidth for LinkScope.INTRA_NODE, the network's node
     * bandwidth for INTER_NODE), the ring, and what NCCL runs instead whatever the size ({@code only}) or weighs against
     * the ring ({@code other}).
     */
    private record Branch(CollectivePlan plan, LinkChoice link, double perGbps, CallCost ring, CallCost only,
                          CallCost other) {
        static Branch of(CollectivePlan plan, LinkChoice link, double linkGbps) {
            CallCost ring = CallCost.ring(plan.op().kind(), plan.n(), link);
            return new Branch(plan.on(link), link, link.busbwGbps() / linkGbps, ring,
                    CallCost.only(plan.op().kind(), plan.n(), link, ring), CallCost.other(plan.op().kind(), plan.n(), link));
        }

        /** Its call's cost where its bus bandwidth is {@code busbwGbps}, as CallCost#of picks it. */
        CallCost cost(double bytesPerCall, double busbwGbps) {
            return only != null ? only : CallCost.cheaper(ring, other, bytesPerCall, busbwGbps * 1e9);
        }
    }

    /**
     * A micro-batch's compute at a compute scale of 1: the forward and total seconds, the GEMMs' and the attention's, of
     * the operations whose time is their compute's (divided by the scale at each point), the forward and total seconds
     * of the memory-bound kernels (which no scale moves), and the host's launches.
     */
    private record Sums(double forwardScaled, double totalScaled, double gemmScaled, double attentionScaled,
                        double forwardFixed, double totalFixed, double host) {}

    private FitTimes(Scenario s, Placed[] collectives, Offloading.Parts offload, double optimizer, double framework,
                     double copies, Sums sums, Bounded[] bounded) {
        Training t = s.run().training();
        Parallel p = s.run().parallel();
        microBatches = t.microBatches();
        parallel = p;
        this.sums = sums;
        hostPower = ComputeTime.hostOverlapPower(t);
        this.bounded = bounded;
        this.optimizer = optimizer;
        this.framework = framework;
        this.copies = copies;
        this.offload = offload;
        this.collectives = collectives;
        lastSeconds = new double[collectives.length];
        lastPlans = new CollectivePlan[collectives.length];
        computeScale = s.computeScale();
        intraGbps = s.cluster().intraNode() != null ? s.cluster().intraNode().busbwGbps() : Double.NaN;
        netGbps = s.cluster().interNode() != null ? s.cluster().interNode().nodeGbps() : Double.NaN;
        overlap = s.overlap();
    }

    /** How far below its value a link is made the slower for its branch's placement. */
    private static final double SLOWER = 1e-6;

    /** The times of {@code s}'s layout and cluster as a function of the four quantities; null where it cannot. */
    static FitTimes of(Scenario s) {
        Model m = s.run().model();
        Parallel p = s.run().parallel();
        Training t = s.run().training();
        dev.trainadvisor.spec.Cluster cluster = s.cluster();
        StepModel.Pieces pieces = StepModel.pieces(m, p, t, cluster.gpu());
        Efficiency eff = s.efficiency();

        // the collectives, placed on the cluster with either link the slower
        StepContext context = StepContext.of(cluster, m, p, t, pieces.sharding, pieces.shard, true);
        CollectivePlan[] plans = CommModel.Planned.plans(ParallelDimension.SHIPPED, context);
        CommModel.Template template = CommModel.Template.of(plans, context);
        if (template == null) return null;
        Scenario intraSlower = s.hasIntraLink()
                ? s.with(FitParam.INTRA_NODE_BUSBW, s.value(FitParam.INTRA_NODE_BUSBW) * SLOWER) : s;
        Scenario netSlower = s.hasNetwork() ? s.with(FitParam.INTER_NODE_GBPS, s.value(FitParam.INTER_NODE_GBPS) * SLOWER) : s;
        Topology onIntra = StepContext.of(intraSlower.cluster(), m, p, t, pieces.sharding, pieces.shard).topology();
        Topology onNet = StepContext.of(netSlower.cluster(), m, p, t, pieces.sharding, pieces.shard).topology();
        Placed[] placed = new Placed[plans.length];
        for (int i = 0; i < plans.length; i++) {
            CollectivePlan plan = plans[i];
            Topology.Placement how = template.placements()[template.placedBy()[i]];
            double bytes = plan.calls() > 0 ? plan.bytesPerPass() * plan.multiplicity() / plan.calls()
                    : plan.bytesPerPass() * plan.multiplicity();
            placed[i] = new Placed(bytes, branch(plan, how.on(onIntra), intraSlower),
                    branch(plan, how.on(onNet), netSlower));
        }

        // the compute at scale 1, by how each operation's time moves with the scale
        ComputeTime.Operations ops = pieces.operations;
        Roofline roofline = new Roofline(cluster.gpu(), t, s.base(), ops.curve());
        double forwardScaled = 0, totalScaled = 0, gemmScaled = 0, attentionScaled = 0, forwardFixed = 0, totalFixed = 0;
        List<Bounded> bounded = new java.util.ArrayList<>();
        List<Operation> list = ops.list();
        for (int i = 0; i < list.size(); i++) {
            Operation o = list.get(i);
            double wave = ops.wave()[i];
            double passes = ops.passes()[i];
            boolean doubled = !Double.isNaN(ops.doubledPasses()[i]);
            if (roofline.boundByBytes(o)) {
                bounded.add(new Bounded(o.kind() == Operation.Kind.GEMM, roofline.computeSeconds(o, wave),
                        roofline.streamSeconds(o.bytes()),
                        doubled ? Double.NaN : roofline.streamSeconds(roofline.weightGradientBytes(o)),
                        doubled ? ops.doubledPasses()[i] : passes, doubled));
                continue;
            }
            double fwd = roofline.forwardSeconds(o, wave, ops.inner()[i]);
            if (!(fwd > 0) || !(fwd < Double.MAX_VALUE / 2) || !doubled) {
                if (fwd == 0) continue;   // no time at any scale
                return null;
            }
            double all = fwd * ops.doubledPasses()[i];
            if (o.kind() == Operation.Kind.MEMORY || o.kind() == Operation.Kind.COPY) {
                forwardFixed += fwd;
                totalFixed += all;
            } else {
                forwardScaled += fwd;
                totalScaled += all;
                if (o.kind() == Operation.Kind.GEMM) gemmScaled += all;
                else attentionScaled += all;
            }
        }
        Sums sums = new Sums(forwardScaled, totalScaled, gemmScaled, attentionScaled, forwardFixed, totalFixed,
                ComputeTime.hostSeconds(ops.launches(), t));
        double optimizer = StepModel.optimizerSeconds(context, eff) * (1 - t.offload().hostOptimizerShare());
        return new FitTimes(s, placed, Offloading.parts(context), optimizer, StepModel.frameworkSeconds(context, eff),
                template.copySeconds(), sums, bounded.toArray(new Bounded[0]));
    }

    /** {@code plan}'s branch on {@code link}, placed on {@code on}'s cluster. */
    private static Branch branch(CollectivePlan plan, LinkChoice link, Scenario on) {
        double gbps = link.scope() == LinkScope.INTER_NODE ? on.cluster().interNode().nodeGbps()
                : on.cluster().intraNode() != null ? on.cluster().intraNode().busbwGbps() : Double.NaN;
        return Branch.of(plan, link, Double.isInfinite(link.busbwGbps()) ? 1 : gbps);
    }

    /** The times of the scenario moved to these values, as {@link StepModel#times} gives them there. */
    StepModel.Times at(double computeScale, double intraGbps, double netGbps, double overlap) {
        if (!computed || !same(computeScale, lastScale)) compute(computeScale);
        if (!priced || !same(intraGbps, lastIntra) || !same(netGbps, lastNet)) collectives(intraGbps, netGbps);
        double f = lastForward, bwd = lastBackward;
        int mb = microBatches;
        // the step as StepModel.Core and StepModel#times sum it
        Offloading.Cost off = offload == null ? Offloading.Cost.NONE : offload.cost(bwd, overlap);
        double forwards = mb * f, backwards = mb * bwd;
        double step = StepModel.beforeCollectives(forwards, backwards, StepModel.bubble(parallel, f + bwd), optimizer,
                framework, copies, off);
        return StepModel.withCollectives(step, forwards, backwards, StepModel.afterBackward(optimizer, framework, off),
                lastPlans, lastSeconds, lastDemand, lastWindows, overlap);
    }

    // what the last point worked out of the compute (at its scale) and of the collectives (at its links' bandwidths):
    // of a fit's points most move one quantity from the last (a forward difference, a hypothesis that frees one), so
    // keep the other's part; a fit runs on one thread, and so does its FitTimes
    private double lastScale = Double.NaN, lastForward, lastBackward;
    private CommModel.Windows lastWindows;
    private boolean computed, priced;
    private double lastIntra = Double.NaN, lastNet = Double.NaN;
    /** Each collective's seconds and its plan on the branch it took at the last links' bandwidths; the windows' demand. */
    private final double[] lastSeconds, lastDemand = new double[CommModel.WINDOWS];
    private final CollectivePlan[] lastPlans;
    /** Equal bit for bit (a link the cluster lacks is NaN at every point). */
    private static boolean same(double a, double b) { return Double.doubleToRawLongBits(a) == Double.doubleToRawLongBits(b); }

    /** A micro-batch's compute at {@code computeScale}, as ComputeTime#of sums it, and the windows it makes. */
    private void compute(double computeScale) {
        Sums c = sums;
        double forward = c.forwardScaled / computeScale + c.forwardFixed, total = c.totalScaled / computeScale + c.totalFixed;
        double gemm = c.gemmScaled / computeScale, attention = c.attentionScaled / computeScale;
        for (Bounded b : bounded) {
            double compute = b.compute / computeScale;
            double fwd = Roofline.pNorm(compute, b.read);
            double all = b.doubled ? fwd * b.passes
                    : fwd * (b.passes - 2) + Roofline.pNorm(compute, b.read) + Roofline.pNorm(compute, b.weightGradientRead);
            forward += fwd;
            total += all;
            if (b.gemm) gemm += all;
            else attention += all;
        }
        double withHost = Overheads.withHost(total, c.host, hostPower);
        double scale = withHost / total;
        double f = forward * scale, bwd = (total - forward) * scale;
        lastWindows = CommModel.Windows.of(microBatches, f, bwd, attention, gemm);
        computed = true;
        lastForward = f;
        lastBackward = bwd;
        lastScale = computeScale;
    }

    /** Each collective's seconds on the slower link of its group at these bandwidths, and each window's demand. */
    private void collectives(double intraGbps, double netGbps) {
        int n = collectives.length;
        double[] seconds = lastSeconds, demand = lastDemand;
        java.util.Arrays.fill(demand, 0);
        for (int i = 0; i < n; i++) {
            Placed c = collectives[i];
            Branch b = c.intra;
            double busbw = b.perGbps * (b.link.scope() == LinkScope.INTER_NODE ? netGbps : intraGbps);
            if (c.intra.link.scope() != c.net.link.scope()) {
                double onNet = c.net.perGbps * netGbps;
                if (!(busbw < onNet)) {
                    b = c.net;
                    busbw = onNet;
                }
            }
            if (Double.isInfinite(b.link.busbwGbps())) busbw = Double.POSITIVE_INFINITY;
            seconds[i] = b.plan.seconds(b.cost(c.bytesPerCall, busbw), busbw);
            lastPlans[i] = b.plan;
            demand[b.plan.window().ordinal()] += seconds[i];
        }
        priced = true;
        lastIntra = intraGbps;
        lastNet = netGbps;
    }

    /** The scenario's own values of the four quantities, by {@link FitParam#ordinal()} (NaN: no such link). */
    double[] values() {
        double[] v = new double[FitParam.values().length];
        v[FitParam.COMPUTE_SCALE.ordinal()] = computeScale;
        v[FitParam.INTRA_NODE_BUSBW.ordinal()] = intraGbps;
        v[FitParam.INTER_NODE_GBPS.ordinal()] = netGbps;
        v[FitParam.OVERLAP_FRACTION.ordinal()] = overlap;
        return v;
    }

    /** The times at the four quantities' values {@code v}, by {@link FitParam#ordinal()} (as {@link #values()}). */
    StepModel.Times at(double[] v) {
        return at(v[FitParam.COMPUTE_SCALE.ordinal()], v[FitParam.INTRA_NODE_BUSBW.ordinal()],
                v[FitParam.INTER_NODE_GBPS.ordinal()], v[FitParam.OVERLAP_FRACTION.ordinal()]);
    }
}
