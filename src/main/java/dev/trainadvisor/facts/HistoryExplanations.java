package dev.trainadvisor.facts;

import static dev.trainadvisor.facts.Eq.div;
import static dev.trainadvisor.facts.Eq.minus;
import static dev.trainadvisor.facts.Eq.v;

/**
 * The explanations of the rules on a run's history (rules/history.drl): every number an evidence value, every
 * formula whole, like {@link Explanations}.
 */
public final class HistoryExplanations {
    private HistoryExplanations() {}

    public static Explain stall(StallFact s) {
        Explain e = Explain.start().count("spikes", s.spikes()).text(" steps spike every ").count("period_steps", s.period())
                .text(" steps from step ").count("first_spike_step", s.firstStep()).text(" (read from the log's ")
                .text(s.basis()).text("), each ").num("seconds_per_spike", s.perSpikeS(), "s").text(" beyond the median step of ")
                .num("median_step_s", s.medianS(), "s");
        if (s.said() == null) e.text(": a checkpoint save, an evaluation or a garbage collection at that period.");
        else e.text("; the log says the run did " + s.said().phrase + " right before ").count("spikes_said", s.saidSpikes())
                .text(" of them: they are " + (s.said() == dev.trainadvisor.history.StepHistory.Kind.CHECKPOINT
                        ? "the checkpoint saves." : "the evaluations."));
        return e.text(" They take ").eq(div(v("stall_seconds", s.costS(), "s"), v("wall_seconds", s.wallS(), "s")),
                "wall_share", s.share(), "").text(" of the steady wall time.");
    }

    public static Explain paceChange(PaceChangeFact p) {
        return Explain.start().text("From step ").count("start_step", p.startStep()).text(" the median step takes ")
                .num("after_s", p.afterS(), "s").text(" against ").num("before_s", p.beforeS(), "s").text(" over the ")
                .count("entries_before", p.before()).text(" entries before it (").count("entries_after", p.after())
                .text(" after, read from the log's ").text(p.basis()).text("): ").eq(minus(div(v("after_s", p.afterS(), "s"),
                        v("before_s", p.beforeS(), "s")), v("one", 1, "")), "slowdown", p.change(), "")
                .text(" slower, so ").pct("lost_share", p.lostShare()).text(" of each later step is lost and ")
                .pct("wall_share", p.wallShare()).text(" of the steady wall time. Throttled clocks (power or heat), a "
                        + "degraded node or link, memory fragmentation, or a change of the job's inputs.");
    }

    public static Explain straggler(RankTimerFact t) {
        return Explain.start().text("The slowest rank's '" + t.timer() + "' takes ").times("max_over_min", t.maxOverMin())
                .text(" the fastest's (median over ").count("entries", t.entries()).text(" steps); every other rank waits ")
                .num("spread_s", t.spreadS(), "s").text(" for it at the next collective, ").eq(div(v("spread_s", t.spreadS(), "s"),
                        v("step_s", t.stepS(), "s")), "spread_share", t.spreadShare(), "")
                .text(" of the step. A slow GPU (clocks, ECC errors, a neighbour's load), a slow host or a rank with more "
                        + "work (uneven pipeline stages, expert imbalance).");
    }

    public static Explain dataLoader(RankTimerFact t) {
        if (Double.isNaN(t.spreadS()))
            return Explain.start().text("Waiting for the next batch takes ").num("batch_s", t.maxS(), "s")
                    .text(" a step on average over ").count("entries", t.entries()).text(" steps (the profiler's mean), against the"
                            + " median step of ").num("step_s", t.stepS(), "s").text(": ")
                    .eq(div(v("batch_s", t.maxS(), "s"), v("step_s", t.stepS(), "s")), "batch_wall_share", t.wallShare(), "")
                    .text(" of the step, during which the GPU waits: too few loader workers, no prefetch, reading from slow"
                            + " storage or decoding on the fly. The model prices the step without it.");
        return Explain.start().text("Fetching the batch ('" + t.timer() + "') takes ").num("batch_s", t.maxS(), "s")
                .text(" on the slowest rank in the median step of ").num("step_s", t.stepS(), "s").text(", and ")
                .pct("batch_wall_share", t.wallShare()).text(" of the time of the ").count("entries", t.entries())
                .text(" steady steps summed, during which the GPUs wait: too few loader workers, no prefetch, reading from "
                        + "slow storage or decoding on the fly.");
    }

    public static Explain jitter(JitterFact j) {
        return Explain.start().text("Step times scatter with a robust coefficient of variation of ")
                .pct("robust_cv", j.robustCv()).text(" (").num("mad_to_sigma", 1.4826, "").text(" x MAD / median over ")
                .count("entries", j.entries())
                .text(" steady steps, periodic spikes and a change of pace set aside); the slowest tenth of the steps start at ")
                .times("p90_over_median", j.p90OverMedian()).text(" the median. Synchronous training waits for the slowest "
                        + "rank every step: host interference (logging, other processes), network contention, or "
                        + "uneven data.");
    }

    public static Explain memoryPressure(MeasuredMemoryFact m) {
        return Explain.start().text("The run reports a peak of ").num("peak_gb", m.peakGb(), "GB").text(" of the GPU's ")
                .num("capacity_gb", m.capacityGb(), "GB").text(": ").eq(minus(v("one", 1, ""), div(v("peak_gb", m.peakGb(), "GB"),
                        v("capacity_gb", m.capacityGb(), "GB"))), "free_share", m.freeShare(), "")
                .text(" free. The caching allocator then retries and frees its cache (cudaFree synchronises the device), "
                        + "and a longer sequence or an uneven batch runs out of memory; PYTORCH_CUDA_ALLOC_CONF="
                        + "expandable_segments:True eases fragmentation.");
    }

    public static Explain loss(LossEventsFact l) {
        Explain e = Explain.start().text("Over ").count("entries", l.entries()).text(" steady steps the loss spiked ")
                .count("loss_spikes", l.spikes()).text(" times (above ")
                .times("spike_ratio", dev.trainadvisor.history.HistoryAnalysis.LOSS_SPIKE_RATIO).text(" its median over the ")
                .count("window_steps", dev.trainadvisor.history.HistoryAnalysis.LOSS_WINDOW).text(" steps before)");
        if (l.spikes() > 0) e.text(", the worst at ").times("worst_ratio", l.worstRatio());
        e.text(", and ").count("nonfinite_steps", l.nonFinite()).text(" steps had a NaN or infinite loss or were skipped");
        if (l.firstStep() >= 0) e.text(", the first at step ").count("first_step", l.firstStep());
        return e.text(". Each is compute that does not move the model forward, and a divergence ahead: lower the "
                + "learning rate or its peak, clip gradients, check the data at those steps, or restart from a checkpoint "
                + "before them.");
    }
}
