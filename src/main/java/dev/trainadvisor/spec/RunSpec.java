package dev.trainadvisor.spec;

/** A validated run file: the cluster and the run. */
public record RunSpec(String name, Cluster cluster, RunMetrics run) {

    /**
     * This run with {@code change} made and validated as a user's file is: a what-if, which measured nothing.
     *
     * @throws dev.trainadvisor.input.SpecException naming the field, when the changed run is not valid
     */
    public RunSpec with(RunChange change) {
        return changed(RunFile.of(cluster, run), change);
    }

    /**
     * As {@link #with}, of a run already written as a run file ({@link RunFile#of}): a baseline prices some twenty
     * changes of one run, and writes it once.
     *
     * @throws dev.trainadvisor.input.SpecException naming the field, when the changed run is not valid
     */
    public static RunSpec changed(RunFile file, RunChange change) {
        return change.apply(file).resolve("what-if", Measurements.NONE);
    }

    /** The same run with its log's per-step history in its measurements. */
    public RunSpec withHistory(dev.trainadvisor.history.StepHistory history) {
        return new RunSpec(name, cluster, run.withMeasured(run.measured().withHistory(history)));
    }

    /** The same run, saying which of its values were derived or assumed rather than given (assemble.LogInference). */
    public RunSpec withAssumed(java.util.List<Assumption> assumed) {
        return new RunSpec(name, cluster, run.withAssumed(assumed));
    }
}
