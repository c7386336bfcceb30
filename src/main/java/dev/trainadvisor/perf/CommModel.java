package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Training;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

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
        List<CollectivePlan> out = new ArrayList<>();
        for (ParallelDimension d : dimensions) out.addAll(d.collectives(context));
        int mb = context.training().microBatches();
        Windows w = new Windows(mb * compute.forwardSeconds(), mb * compute.backwardSeconds(),
                compute.backwardSeconds(), compute.forwardSeconds(), mb * compute.attentionSeconds(),
                mb * compute.gemmSeconds(), (mb - 1) * (compute.forwardSeconds() + compute.backwardSeconds()));
        return overlap(out, w, eff.overlapFraction());
    }

    /**
     * Collectives sharing a window hide together behind {@code overlap * window}; what does not fit is
     * exposed, shared in proportion to each one's time. A collective whose transport slows the compute beside it
     * (interference i, knowledge-base/transports.json) hides only {@code hidden / (1 + i)}: while it runs, the
     * window's compute advances at 1 / (1 + i) of its pace, so the window lasts {@code hidden x i / (1 + i)} longer.
     */
    private static List<Collective> overlap(List<CollectivePlan> pending, Windows w, double overlapFraction) {
        Map<OverlapWindow, Double> demand = new EnumMap<>(OverlapWindow.class);
        for (CollectivePlan p : pending) demand.merge(p.window(), p.seconds(), Double::sum);
        List<Collective> out = new ArrayList<>();
        for (CollectivePlan p : pending) {
            double s = p.seconds();
            double exposed = s;
            if (p.window() != OverlapWindow.NONE && s > 0) {
                double total = demand.get(p.window());
                double hidden = s * Math.min(total, overlapFraction * w.of(p.window())) / total;
                exposed = s - hidden / (1 + p.link().interference());
                // wholly hidden: not a rounding error's worth of seconds left exposed
                if (exposed < 1e-12 * s) exposed = 0;
            }
            out.add(new Collective(p.op(), p.n(), p.bytesPerPass(), p.multiplicity(), p.calls(), p.link(), s, exposed,
                    p.window(), p.forwardShare(), p.afterBackward(), p.cost()));
        }
        return java.util.Collections.unmodifiableList(out);
    }
}
