package dev.trainadvisor.spec;

/** A validated run file: the cluster and the run. */
public record RunSpec(String name, Cluster cluster, RunMetrics run) {}
