package dev.trainadvisor.perf;

import java.util.Locale;

/** The compute a collective can hide behind; {@link #NONE} when nothing runs beside it. */
public enum OverlapWindow {
    /** Every micro-batch's forward (FSDP's prefetched gathers). */
    FORWARD,
    /** Every micro-batch's backward (ZeRO-2/3 reduce-scatters, FSDP's backward gathers). */
    BACKWARD,
    /** The last micro-batch's backward: gradients are reduced once a step, bucket by bucket as they are ready. */
    LAST_BACKWARD,
    /** The first micro-batch's forward of the next step (Megatron's overlap_param_gather). */
    FIRST_FORWARD,
    /** The attention kernels (ring attention of context parallelism). */
    ATTENTION,
    /** The GEMMs around a tensor-parallel collective (Megatron's --tp-comm-overlap). */
    GEMMS,
    /**
     * Another micro-batch's forward and backward: Megatron-Core's --overlap-moe-expert-parallel-comm runs one
     * micro-batch's forward beside another's backward, each one's expert all-to-alls behind the other's compute; every
     * micro-batch but one has a partner (the first forward has none to run beside).
     */
    OTHER_MICRO_BATCH,
    NONE;

    private final String key = name().toLowerCase(Locale.ROOT).replace('_', '-');
    public String key() { return key; }
}
