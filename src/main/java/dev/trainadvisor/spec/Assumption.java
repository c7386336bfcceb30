package dev.trainadvisor.spec;

/**
 * A run-file value that neither the user (a run file, a {@code runs.yaml} entry, an option of {@code advise --log}) nor
 * the training log gave: derived from what the log prints (the micro-batches from its global batch), or assumed (the
 * ZeRO stage from the memory it measured, tp 1, ...). The advice carries each, with the option that would set it, so
 * that a report says what was guessed.
 *
 * @param field   the dotted run-file field ("parallel.zero_stage")
 * @param value   the value taken
 * @param reason  how it was derived ("the log's global batch of 128 sequences / (micro_batch_size 1 x dp 16)"), or why
 *                this value was assumed ("as V100-SXM2-32GB has no bf16 tensor cores"; empty when nothing more is to say)
 * @param option  the option of {@code advise --log} that sets it ("--zero-stage"); in a run file or {@code runs.yaml},
 *                {@code field}
 * @param derived true when the value follows from what the log prints and the other fields, false when it was assumed
 */
public record Assumption(String field, Object value, String reason, String option, boolean derived) {

    /** Why the value was taken, as the advice's JSON and the reports' headers say it. */
    public String why() {
        if (derived) return "derived: " + reason;
        return "not given, nor printed by the log" + (reason.isEmpty() ? "" : "; " + reason);
    }

    /** The line {@code advise --log} writes on standard error for it. */
    public String line() {
        if (derived) return "note: " + field + " " + value + " = " + reason + " (set " + option + ")";
        return "warning: " + field + " not printed by the log; assumed " + value + (reason.isEmpty() ? "" : ", " + reason)
                + " (set " + option + ")";
    }
}
