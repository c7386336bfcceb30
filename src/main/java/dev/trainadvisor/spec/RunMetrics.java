package dev.trainadvisor.spec;

import java.util.List;

/**
 * A training run apart from its cluster: the model, its parallel layout, what a step processes,
 * and what was measured.
 *
 * @param assumed the values of the run that neither its user nor its log gave (derived or assumed when a training log
 *                was read: assemble.LogInference), in the order they were taken; empty for a run file's documented
 *                defaults
 */
public record RunMetrics(String name, Model model, Parallel parallel, Training training, Measurements measured,
                         List<Assumption> assumed) {

    public RunMetrics {
        assumed = assumed == null ? List.of() : List.copyOf(assumed);
    }

    /** A run that assumed nothing. */
    public RunMetrics(String name, Model model, Parallel parallel, Training training, Measurements measured) {
        this(name, model, parallel, training, measured, List.of());
    }

    public RunMetrics withParallel(Parallel p) { return new RunMetrics(name, model, p, training, measured, assumed); }

    public RunMetrics withTraining(Training t) { return new RunMetrics(name, model, parallel, t, measured, assumed); }

    public RunMetrics withMeasured(Measurements m) { return new RunMetrics(name, model, parallel, training, m, assumed); }

    /** The same run, saying what was assumed of it. */
    public RunMetrics withAssumed(List<Assumption> a) { return new RunMetrics(name, model, parallel, training, measured, a); }
}
