package dev.trainadvisor.perf;

/**
 * NCCL collectives with nccl-tests' bus-bandwidth factors (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md):
 * {@code busbw = algbw * factor}, so {@code time = size * factor / busbw}, where size is the larger
 * buffer as nccl-tests prints it.
 */
public enum CollectiveKind {
    ALL_REDUCE("all-reduce"), REDUCE_SCATTER("reduce-scatter"), ALL_GATHER("all-gather"),
    BROADCAST("broadcast"), REDUCE("reduce"), SEND_RECV("send-recv"), ALL_TO_ALL("all-to-all");

    public final String key;

    CollectiveKind(String key) { this.key = key; }

    /** The bus-bandwidth factor for a group of {@code n} ranks. */
    public double factor(int n) {
        return switch (this) {
            case ALL_REDUCE -> 2.0 * (n - 1) / n;
            case REDUCE_SCATTER, ALL_GATHER, ALL_TO_ALL -> (n - 1) / (double) n;
            case BROADCAST, REDUCE, SEND_RECV -> 1.0;
        };
    }
}
