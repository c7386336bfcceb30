package dev.trainadvisor.facts;

import dev.trainadvisor.perf.Baseline;

/**
 * The step model, as a fact: prices a {@link Lever} from the run's baseline (the fitted step, perf.Baseline, the one
 * pricing path every remedy takes), for the rules that weigh what it would save (rules/levers.drl).
 */
public record Pricer(Baseline baseline) {

    /** What the lever's change saves of the baseline step, by phase; null where the changed run is not valid. */
    public Saving saving(Lever lever) {
        Baseline.Priced q = baseline.price(lever.change());
        return q == null ? null : FactBuilder.saving(lever.kind(), baseline.prediction(), q.step());
    }
}
