package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Parallel;

import java.util.List;

/**
 * One way of splitting a training step over GPUs (data, tensor, pipeline, context, expert parallelism): where its
 * groups sit on the cluster and the collectives it adds to the step. The step model asks each of
 * {@link #SHIPPED} in turn; a new parallelism is a new implementation added there.
 */
public interface ParallelDimension {

    /** The collectives this dimension adds to one optimizer step of one GPU; none when its size is 1. */
    List<CollectivePlan> collectives(StepContext s);

    /** By how many ranks it divides {@code part} of a GPU's memory: 1 for what it leaves whole. */
    default double shards(MemoryPart part, Parallel p) { return 1; }

    /** The dimensions the step model knows, in the order their collectives are reported. */
    List<ParallelDimension> SHIPPED = List.of(new DataParallel(), new TensorParallel(), new PipelineParallel(),
            new ContextParallel(), new ExpertParallel());
}
