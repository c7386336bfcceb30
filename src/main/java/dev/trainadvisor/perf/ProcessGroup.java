package dev.trainadvisor.perf;

import java.util.Locale;

/**
 * The process groups a step's collectives run in. Ranks are placed TP innermost, then CP, then DP and PP in the
 * framework's order ({@link Topology}); ZeRO shards over {@code zero_group_size} consecutive data-parallel ranks, and the
 * replicas of a shard form {@link #ZERO_REPLICA}.
 */
public enum ProcessGroup {
    TP, CP, PP, DP, ZERO, ZERO_REPLICA, EP, ETP;

    /** The name in run-file and report terms: "tp", "zero-replica". */
    private final String key = name().toLowerCase(Locale.ROOT).replace('_', '-');
    public String key() { return key; }

    /** Whether the group reduces gradients or gathers parameters over data-parallel ranks. */
    public boolean dataParallel() { return this == DP || this == ZERO || this == ZERO_REPLICA; }
}
