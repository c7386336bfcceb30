package dev.trainadvisor.spec;

/**
 * What one optimizer step processes and in which formats.
 *
 * @param microBatches gradient-accumulation steps per optimizer step (InternEvo micro_num)
 */
public record Training(int seqLen, int microBatchSize, int microBatches, Recompute recompute,
                       Precision precision, Precision gradReducePrecision, boolean flashAttention) {

    /** Tokens one data-parallel replica consumes per optimizer step. */
    public long tokensPerReplica() { return (long) seqLen * microBatchSize * microBatches; }
}
