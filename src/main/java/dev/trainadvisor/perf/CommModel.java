package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Training;

import java.util.ArrayList;
import java.util.List;

/**
 * The collectives of one optimizer step, as each {@link ParallelDimension} places and sizes them, timed as
 * {@code calls * alpha + factor * bytes / busbw}, then overlapped with the compute window the framework overlaps it
 * with.
 */
public final class CommModel {
    private CommModel() {}

    /** Windows of compute a collective can hide behind, in seconds. */
    record Windows(double forward, double backward, double lastBackward, double firstForward, double attention,
                   double gemms, double otherMicroBatch) {
        double of(OverlapWindow w) {
            return switch (w) {
                case FORWARD -> forward;
                case BACKWARD -> backward;
                case LAST_BACKWARD -> lastBackward;
                case FIRST_FORWARD -> firstForward;
                case ATTENTION -> attention;
                case GEMMS -> gemms;
                case OTHER_MICRO_BATCH -> otherMicroBatch;
                case NONE -> 0;
            };
        }

        /**
         * The windows of a step of {@code mb} micro-batches, each taking {@code forward} and {@code backward} seconds,
         * of which {@code attention} in the attention core and {@code gemms} in GEMMs.
         */
        static Windows of(int mb, double forward, double backward, double attention, double gemms) {
            return new Windows(mb * forward, mb * backward, backward, forward, mb * attention, mb * gemms,
                    (mb - 1) * (forward + backward));
        }
    }

    public static List<Collective> of(Cluster c, Model m, Parallel p, Training t, ComputeTime compute,
                                      Efficiency eff) {
        return of(ParallelDimension.SHIPPED, StepContext.of(c, m, p, t), compute, eff);
    }

    /** The collectives {@code dimensions} add to the step, each overlapped with the compute it can hide behind. */
    static List<Collective> of(List<ParallelDimension> dimensions, Cluster c, Model m, Parallel p, Training t,
                               ComputeTime compute, Efficiency eff) {
        return of(dimensions, StepContext.of(c, m, p, t), compute, eff);
    }

    static List<Collective> of(List<ParallelDimension> dimensions, StepContext context, ComputeTime compute,
                               Efficiency eff) {
        return of(Planned.of(dimensions, context), compute, eff);
    }

    /**
     * The collectives of a step before overlap, each with its call cost and its seconds worked out once: they depend on
     * the layout and the cluster's links (the context), not on the compute or the efficiencies, so the predictions of
     * one layout on one cluster (a fit moves the compute scale and the overlap between them) share them. Immutable.
     */
    record Planned(StepContext context, CollectivePlan[] plans, double[] seconds, CallCost[] costs, double[] demand,
                   double copySeconds) {
        static Planned of(List<ParallelDimension> dimensions, StepContext context) {
            return priced(context, plans(dimensions, context));
        }

        /** The collectives {@code dimensions} plan on {@code context}, in their order. */
        static CollectivePlan[] plans(List<ParallelDimension> dimensions, StepContext context) {
            List<CollectivePlan> out = new ArrayList<>();
            for (ParallelDimension d : dimensions) out.addAll(d.collectives(context));
            return out.toArray(new CollectivePlan[0]);
        }

        /** {@code plans} on {@code context}, each call's cost and seconds worked out, and what each window must hide. */
        static Planned priced(StepContext context, CollectivePlan[] plans) {
            double[] seconds = new double[plans.length];
            CallCost[] costs = new CallCost[plans.length];
            for (int i = 0; i < seconds.length; i++) {
                costs[i] = plans[i].cost();
                seconds[i] = plans[i].seconds(costs[i]);
            }
            return of(context, plans, costs, seconds, DataParallel.copySeconds(context));
        }

        /**
         * {@code plans} on {@code context} with their calls' costs and seconds, and what each window must hide; the
         * copies around them (DataParallel#copySeconds), which depend on the layout and the GPU alone, given.
         */
        private static Planned of(StepContext context, CollectivePlan[] plans, CallCost[] costs, double[] seconds,
                                  double copySeconds) {
            // the seconds each window must hide, summed in the collectives' order (an array by the window's ordinal: an
            // EnumMap of boxed sums was a tenth of the overlap's time, which runs at every prediction of a fit; from 0,
            // as the merge started from the first: 0 + s is s); they depend on the plans alone
            double[] demand = new double[WINDOWS];
            for (int i = 0; i < seconds.length; i++) demand[plans[i].window().ordinal()] += seconds[i];
            // an array, which every prediction's overlap reads by index (through an immutable list, of one class or
            // another by its length, List.get was not inlined there: 2% of a batch's samples)
            return new Planned(context, plans, seconds, costs, demand, copySeconds);
        }
    }

    /**
     * A layout's collectives planned once on a cluster, each with how its group was placed, to plan them again on a
     * cluster that differs in its links' bandwidths alone (the points of a fit along a link, and a link's evidence
     * line): what a dimension plans (which collectives, their bytes, calls and windows) depends on the layout, the
     * framework and the cluster's shape, and on the links only through the groups' placements (ParallelDimension), so
     * the plans are the ones {@link Planned#of} makes there, their groups placed again ({@link Topology.Placement}: each
     * distinct group once, though several collectives run on it) and their calls priced on the links they get.
     * Immutable.
     *
     * @param placements each distinct placement of the plans' groups
     * @param placedBy   the index in {@code placements} of each plan's
     * @param copySeconds the copies FSDP2 makes around its collectives (DataParallel#copySeconds): of the layout and the
     *                    GPU alone, which a cluster that differs in its links' bandwidths shares
     */
    record Template(CollectivePlan[] plans, Topology.Placement[] placements, int[] placedBy, double copySeconds) {
        /**
         * {@code plans}, planned on {@code context}, whose topology records its placements, with those placements; null
         * where a plan's link was not placed by the topology, so cannot be placed again.
         */
        static Template of(CollectivePlan[] plans, StepContext context) {
            List<Topology.Placement> distinct = new ArrayList<>();
            int[] placedBy = new int[plans.length];
            for (int i = 0; i < plans.length; i++) {
                Topology.Placement how = context.topology().placementOf(plans[i].link());
                if (how == null) return null;
                int j = 0;
                while (j < distinct.size() && distinct.get(j) != how) j++;
                if (j == distinct.size()) distinct.add(how);
                placedBy[i] = j;
            }
            return new Template(plans, distinct.toArray(new Topology.Placement[0]), placedBy,
                    DataParallel.copySeconds(context));
        }

        /** The plans on {@code context}'s cluster, as {@link Planned#of} plans them there. */
        Planned on(StepContext context) {
            LinkChoice[] links = new LinkChoice[placements.length];
            for (int j = 0; j < links.length; j++) links[j] = placements[j].on(context.topology());
            CollectivePlan[] placed = new CollectivePlan[plans.length];
            CallCost[] costs = new CallCost[plans.length];
            double[] seconds = new double[plans.length];
            for (int i = 0; i < plans.length; i++) {
                placed[i] = plans[i].on(links[placedBy[i]]);
                costs[i] = placed[i].cost();
                seconds[i] = placed[i].seconds(costs[i]);
            }
            return Planned.of(context, placed, costs, seconds, copySeconds);
        }
    }

    /** The collectives of {@code planned}, overlapped with {@code compute} at {@code eff}'s overlap fraction. */
    static List<Collective> of(Planned planned, ComputeTime compute, Efficiency eff) {
        return of(planned, windows(planned, compute), eff);
    }

    /** As {@link #of(Planned, ComputeTime, Efficiency)}, with the compute's windows given. */
    static List<Collective> of(Planned planned, Windows w, Efficiency eff) {
        return overlap(planned, w, eff.overlapFraction());
    }

    /** The compute windows of a step of {@code planned}'s layout whose micro-batches take {@code compute}. */
    static Windows windows(Planned planned, ComputeTime compute) {
        return windows(planned.context().training().microBatches(), compute);
    }

    /** The compute windows of a step of {@code mb} micro-batches, each taking {@code compute}. */
    static Windows windows(int mb, ComputeTime compute) {
        return Windows.of(mb, compute.forwardSeconds(), compute.backwardSeconds(), compute.attentionSeconds(),
                compute.gemmSeconds());
    }

    /** The overlap windows, for the seconds each must hide. */
    static final int WINDOWS = OverlapWindow.values().length;

    /**
     * Collectives sharing a window hide together behind {@code overlap * window}; what does not fit is
     * exposed, shared in proportion to each one's time. A collective whose transport slows the compute beside it
     * (interference i, knowledge-base/transports.json) hides only {@code hidden / (1 + i)}: while it runs, the
     * window's compute advances at 1 / (1 + i) of its pace, so the window lasts {@code hidden x i / (1 + i)} longer.
     */
    private static List<Collective> overlap(Planned planned, Windows w, double overlapFraction) {
        CollectivePlan[] plans = planned.plans();
        List<Collective> out = new ArrayList<>(plans.length);
        for (int i = 0; i < plans.length; i++) {
            CollectivePlan p = plans[i];
            double s = planned.seconds()[i];
            out.add(new Collective(p.op(), p.n(), p.bytesPerPass(), p.multiplicity(), p.calls(), p.link(), s,
                    exposed(planned, i, w, overlapFraction), p.window(), p.forwardShare(), p.afterBackward(),
                    planned.costs()[i]));
        }
        return java.util.Collections.unmodifiableList(out);
    }

    /**
     * The exposed seconds of {@code planned}'s {@code i}-th collective: what of its window's share does not hide it.
     * Read by {@link #overlap} for the step's collectives and by StepModel#times for the times alone, so that both
     * give the same seconds.
     */
    static double exposed(Planned planned, int i, Windows w, double overlapFraction) {
        CollectivePlan p = planned.plans()[i];
        return exposed(p, planned.seconds()[i], planned.demand(), w, overlapFraction);
    }

    /**
     * The exposed seconds of {@code p}, a collective of {@code s} seconds, where {@code demand} holds the seconds each
     * window must hide (StepModel#withCollectives, for the predictions and the fit's points alike).
     */
    static double exposed(CollectivePlan p, double s, double[] demand, Windows w, double overlapFraction) {
        double exposed = s;
        OverlapWindow window = p.window();
        if (window != OverlapWindow.NONE && s > 0) {
            double total = demand[window.ordinal()];
            double hidden = s * Math.min(total, overlapFraction * w.of(window)) / total;
            exposed = s - hidden / (1 + p.link().interference());
            // wholly hidden: not a rounding error's worth of seconds left exposed
            if (exposed < StepModel.ROUNDING * s) exposed = 0;
        }
        return exposed;
    }
}
