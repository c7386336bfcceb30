package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Parallel;

import java.util.List;

/**
 * One way of splitting a training step over GPUs (data, tensor, pipeline, context, expert parallelism): where its
 * groups sit on the cluster and the collectives it adds to the step. The step model asks each of
 * {@link #SHIPPED} in turn; a new parallelism is a new implementation added there.
 */
public interface ParallelDimension {

    /**
     * The collectives this dimension adds to one optimizer step of one GPU; none when its size is 1. Each one's link is
     * one the context's topology placed its group on (as placed, or {@link Topology#withInterference}), and nothing else
     * of what is planned reads the cluster's links: a fit plans a layout once and places its groups again at every
     * bandwidth it tries (CommModel.Template, checked by CollectiveTemplateTest over every reference layout).
     */
    List<CollectivePlan> collectives(StepContext s);

    /** By how many ranks it divides {@code part} of a GPU's memory: 1 for what it leaves whole. */
    default double shards(MemoryPart part, Parallel p) { return 1; }

    /** The dimensions the step model knows, in the order their collectives are reported. */
    List<ParallelDimension> SHIPPED = List.of(new DataParallel(), new TensorParallel(), new PipelineParallel(),
            new ContextParallel(), new ExpertParallel());
}
