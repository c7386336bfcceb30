package dev.trainadvisor.facts;

import dev.trainadvisor.spec.Framework;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Training;

/**
 * The framework that runs the step, as the rules see it: what it issues at the run's ZeRO stage and the switches it
 * offers, in its own spelling, so that a remedy that is a framework change names the flag to set
 * (knowledge-base/frameworks/).
 *
 * @param label                "megatron-core 0.12": key and version
 * @param gradientCollective   "all-reduce", "reduce-scatter" or "reduce"
 * @param parameterCollective  "all-gather" or "broadcast"; null for plain data parallelism
 * @param reducesEveryMicroBatch whether the run reduces its gradients after every micro-batch
 * @param onceAStepFlag        how the framework reduces once a step instead (DDP's no_sync); null where it cannot
 * @param gradOverlapFlag      the switch that overlaps the gradient reduction; null where the framework cannot
 * @param paramOverlapFlag     the switch that overlaps the parameter gather or broadcast after the step; null where it
 *                             cannot
 * @param bf16GradientFlag     how a user asks for bf16 gradient reduction; null where the framework offers none
 * @param keepGatheredFlag     ZeRO 3: the switch that keeps the forward's gathered weights for the backward (FSDP's
 *                             reshard_after_forward=False), where the framework's ZeRO 2 is that; null otherwise
 */
public record FrameworkFact(String key, String label, String gradientCollective, String parameterCollective,
                            boolean reducesEveryMicroBatch, String onceAStepFlag, String gradOverlapFlag,
                            String paramOverlapFlag, String bf16GradientFlag, String keepGatheredFlag) {

    /** The framework of a run at its ZeRO stage. */
    public static FrameworkFact of(Training t, Parallel p) {
        Framework f = t.framework();
        Framework.Stage s = f.stage(p.zeroStage());
        Framework.Sync g = s.gradients(), ps = s.parameters();
        boolean every = p.gradReduceEveryMicroBatch() != null ? p.gradReduceEveryMicroBatch() : g.everyMicroBatch().value();
        String once = g.everyMicroBatch().value() ? g.everyMicroBatch().flag() : "parallel.grad_reduce_every_micro_batch: false";
        boolean gradCan = g.overlapsByDefault() || g.overlapWhenOn() != null;
        boolean paramCan = ps != null && !ps.everyMicroBatch().value() && (ps.overlapsByDefault() || ps.overlapWhenOn() != null);
        String keep = null;
        Framework.Stage two = f.stage(2);
        if (p.zeroStage() == 3 && ps != null && ps.backwardGather() != null && ps.backwardGather().value() && two != null
                && two.parameters() != null && two.parameters().everyMicroBatch().value() && two.parameters().backwardGather() != null
                && !two.parameters().backwardGather().value())
            keep = ps.backwardGather().flag() != null ? ps.backwardGather().flag() : "ZeRO 2";
        return new FrameworkFact(f.key(), f.label(), g.collective().value().key(),
                ps == null ? null : ps.collective().value().key(), every, once,
                gradCan ? (g.overlapFlag() != null ? g.overlapFlag() : "parallel.overlap_grad_reduce") : null,
                paramCan ? (ps.overlapFlag() != null ? ps.overlapFlag() : "parallel.overlap_param_gather") : null,
                f.bf16GradientFlag() == null ? null : f.bf16GradientFlag().value(), keep);
    }

    /** " (the flag)" for an action's text where the switch is the framework's own, not a run-file key; else "". */
    public static String named(String flag) {
        return flag == null || flag.startsWith("parallel.") || flag.startsWith("training.") ? "" : " (" + flag + ")";
    }
}
