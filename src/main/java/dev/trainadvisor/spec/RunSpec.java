package dev.trainadvisor.spec;

/** A validated run file: the cluster and the run. */
public record RunSpec(String name, Cluster cluster, RunMetrics run) {

    /** The same run with its log's per-step history in its measurements. */
    public RunSpec withHistory(dev.trainadvisor.history.StepHistory history) {
        RunMetrics r = run;
        return new RunSpec(name, cluster, new RunMetrics(r.name(), r.model(), r.parallel(), r.training(),
                r.measured().withHistory(history)));
    }
}
