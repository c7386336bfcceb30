package dev.trainadvisor.spec;

/**
 * A training run apart from its cluster: the model, its parallel layout, what a step processes,
 * and what was measured.
 */
public record RunMetrics(String name, Model model, Parallel parallel, Training training, Measurements measured) {

    public RunMetrics withParallel(Parallel p) { return new RunMetrics(name, model, p, training, measured); }

    public RunMetrics withTraining(Training t) { return new RunMetrics(name, model, parallel, t, measured); }
}
