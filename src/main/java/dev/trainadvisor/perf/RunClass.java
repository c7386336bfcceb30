package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.RunMetrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What kind of run a prediction is of, to set it beside the validated runs like it ({@link PredictionInterval}): what
 * bounds its step, which family its model and GPUs belong to, and whether it spans 256 GPUs or more.
 *
 * @param bound  communication when exposed collectives take {@link #SHARE} of the step or more, else the pipeline when
 *               its bubble does, else compute
 * @param family MoE models, consumer GPUs (GeForce cards, the catalogue's GPUs without PCIe peer-to-peer), or dense
 * @param large  256 GPUs or more
 */
public record RunClass(Bound bound, Family family, boolean large) {

    /** The share of the step at which communication or the bubble, not compute, bounds it. */
    public static final double SHARE = 0.20;

    public enum Bound { COMPUTE, COMMUNICATION, PIPELINE }

    public enum Family { DENSE, MOE, CONSUMER }

    public static RunClass of(Cluster cluster, RunMetrics run, StepPrediction p) {
        double step = p.stepTimeS();
        Bound bound = p.exposedCommSeconds() >= SHARE * step ? Bound.COMMUNICATION
                : p.bubbleSeconds() >= SHARE * step ? Bound.PIPELINE : Bound.COMPUTE;
        Family family = run.model().isMoe() ? Family.MOE : !cluster.gpu().pcieP2p() ? Family.CONSUMER : Family.DENSE;
        return new RunClass(bound, family, cluster.gpus() >= 256);
    }

    /** "compute/dense/256+": the most specific key. */
    public String key() { return keys().get(0); }

    /** From the most specific key to the least: bound/family/scale, bound/family, bound, all. */
    public List<String> keys() {
        String b = bound.name().toLowerCase(Locale.ROOT), f = family.name().toLowerCase(Locale.ROOT);
        List<String> out = new ArrayList<>();
        if (large) out.add(b + "/" + f + "/256+");
        out.add(b + "/" + f);
        out.add(b);
        out.add("all");
        return out;
    }
}
