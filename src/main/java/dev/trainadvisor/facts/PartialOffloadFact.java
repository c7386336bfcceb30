package dev.trainadvisor.facts;

import dev.trainadvisor.spec.Offload;

/**
 * For a run that offloads its optimizer with a framework that can keep part of it on the GPU (DeepSpeed's
 * offload_optimizer.ratio at ZeRO 3, Megatron-Core's optimizer_offload_fraction): the smallest share on the host at which
 * the run still fits in the GPU's memory, found by the memory model in steps of {@link #STEP}.
 *
 * @param ratio   the share of the optimizer the host keeps
 * @param offload the run's offload at that share
 * @param flag    the framework's switch for it
 */
public record PartialOffloadFact(double ratio, Offload offload, String flag) {

    /** The step of the shares tried: DeepSpeed's ratio and Megatron's fraction are free; a twentieth is fine enough. */
    public static final double STEP = 0.05;
}
