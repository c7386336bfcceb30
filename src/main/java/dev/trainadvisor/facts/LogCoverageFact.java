package dev.trainadvisor.facts;

/**
 * What the run's measurements time, beyond the whole step: its data loading (Megatron's batch-generator timer), its
 * forward-backward, its optimizer step. A log that times only the step (the Trainer's, Lightning's, tqdm's) cannot
 * tell a slow input pipeline or host work between steps from slow compute: the compute diagnoses say so, name the
 * rivals and the measurement that decides, and are never surer than medium.
 *
 * @param framework the run's framework key, for the switch to name ("hf-trainer": dataloader_num_workers)
 */
public record LogCoverageFact(boolean timesDataLoading, boolean timesForwardBackward, boolean timesOptimizer,
                              String framework) {

    /** Whether the step alone is timed: compute, input and host cannot be told apart. */
    public boolean stepOnly() { return !timesDataLoading && !timesForwardBackward && !timesOptimizer; }

    /** The data loader's switch as the framework spells it. */
    public String loaderSwitch() {
        return switch (framework) {
            case "hf-trainer" -> "TrainingArguments(dataloader_num_workers=N), no workers by default";
            case "torchtitan" -> "the data loader's num_workers";
            case "megatron-lm", "megatron-core", "nemo" -> "--num-workers";
            default -> "DataLoader(num_workers=N, pin_memory=True)";
        };
    }

    /** At most medium where the step alone is timed. */
    public Severity cap(Severity s) {
        return stepOnly() && s == Severity.HIGH ? Severity.MEDIUM : s;
    }

    /** {@code s}, capped by the coverage among {@code facts} (none: as it is). */
    public static Severity cap(Severity s, java.util.Collection<?> facts) {
        for (Object o : facts) if (o instanceof LogCoverageFact c) return c.cap(s);
        return s;
    }

    /** The coverage among {@code facts}, or null. */
    static LogCoverageFact of(java.util.Collection<?> facts) {
        for (Object o : facts) if (o instanceof LogCoverageFact c) return c;
        return null;
    }
}
