package dev.trainadvisor.perf;

/**
 * One line of the step's breakdown. Exposed seconds add up to the step time; a collective's
 * seconds may exceed its exposed seconds by what compute hid.
 *
 * @param link the link a communication phase is bound by, or null for compute
 */
public record Phase(String name, double seconds, double exposedSeconds, String link) {
    public static final String FORWARD = "forward";
    public static final String BACKWARD = "backward";
    public static final String PIPELINE_BUBBLE = "pipeline-bubble";
    public static final String OPTIMIZER = "optimizer";
    /** The framework's own time around the optimizer step (perf.Overheads). */
    public static final String FRAMEWORK = "framework";
    /** The optimizer step the host runs for what training.offload moves there (perf.Offloading), after the backward. */
    public static final String HOST_OPTIMIZER = "host-optimizer";
    /** Copies over the host link inside forward and backward: offloaded parameters in, offloaded gradients out. */
    public static final String OFFLOAD_COPIES = "offload-copies";
    /** The updated parameters copied back to the GPU after the host's optimizer step (ZeRO 1-2). */
    public static final String OFFLOAD_UPDATE = "offload-update";
    /**
     * The framework's copies around its ZeRO-3 collectives on the compute stream (FSDP2: the gathered parameters out of
     * the all-gather's buffer, the gradients into the reduce-scatter's), every micro-batch (DataParallel.copySeconds).
     */
    public static final String ZERO_COPIES = "zero-copies";
}
