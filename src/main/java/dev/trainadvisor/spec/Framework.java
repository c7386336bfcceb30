package dev.trainadvisor.spec;

import java.util.List;
import java.util.Map;

/**
 * A training framework at one version, as its profile in knowledge-base/frameworks/ states it: what "the same" layout
 * issues when this framework runs it. Per ZeRO stage the gradient collective (kind, dtype, every micro-batch or the
 * last, what it hides behind, how many calls) and the parameter collective (all-gather or one broadcast per owning
 * rank, when, hidden behind what); the gradient bucket; the kernels it runs by default; its host time per step; how it
 * counts the TFLOPS it prints. Every fact carries its source (the framework's file and line, or a measurement).
 * {@link Frameworks} reads the profiles; a new framework is a new file there.
 *
 * @param version the version whose facts these are ({@code framework_version}), or null for a profile with one
 */
public record Framework(String key, String name, String version, String versionDescription, String code,
                        Map<Integer, Stage> zero, Fact<Bucket> bucket, Fact<String> bf16GradientFlag,
                        Fact<AttentionKernel> attentionKernel, Fact<Map<String, AttentionKernel>> attentionByArchitecture,
                        Fact<ElementwiseKernels> elementwiseKernels,
                        Fact<Double> hostSecondsPerStep, Fact<FlopsConvention> flopsConvention,
                        List<String> logFormats, List<String> tflopsConventions, Fact<Offloads> offload,
                        Fact<Amp> amp, Fact<LayerLaunches> layerLaunches, Fact<Double> compiledAttentionSlowdown,
                        Fact<AttentionKernel> attentionKernelWithoutFlash, Fact<HostLaunches> hostLaunches,
                        Fact<Double> elementwiseTraffic, Fact<Double> crossEntropyBytes, Fact<Integer> recipeZeroStage,
                        Fact<RankOrder> rankOrder, Fact<Boolean> interleavedP2pOverlap,
                        Fact<Boolean> pipelineScatterGather, Fact<Boolean> tpBackwardOverlap) {

    /**
     * How the host keeps up with the GPU in the framework's modelling code run eagerly (its profile's
     * {@code host_launches}): the host's time per kernel it launches and how sharply the step takes the longer of the
     * host's launches and the GPU's work ({@code (gpu^k + host^k)^(1/k)}); where the profile says nothing, those of a
     * plain PyTorch model (perf.Overheads).
     */
    public record HostLaunches(double secondsPerLaunch, double overlapPower) {}

    /**
     * What its attention runs with flash attention off ({@code attention_kernel_without_flash}): the Hugging Face
     * modelling code's eager attention, or where the profile says nothing an unfused core with a fused softmax.
     */
    public AttentionKernel attentionWithoutFlash() {
        return attentionKernelWithoutFlash == null || attentionKernelWithoutFlash.value() == null ? AttentionKernel.UNFUSED
                : attentionKernelWithoutFlash.value();
    }

    /**
     * Where the framework trains fp32 parameters under torch.autocast (its profile's {@code amp} fact): no bf16 copy of
     * the weights and no fp32 master copy to keep in step, so that beside Adam the step spends the gradient clipping's
     * HBM traffic and the framework loop's own host time, per step and per micro-batch, rather than the master-weights
     * step's {@link #hostSecondsPerStep}.
     *
     * @param zeroStages the ZeRO stages at which it does (the Trainer's own loop at ZeRO 0; DeepSpeed's stages keep
     *                   bf16 weights and an fp32 master copy)
     */
    public record Amp(List<Integer> zeroStages, double hostSecondsPerStep, double hostSecondsPerMicroBatch) {
        public boolean at(int zeroStage) { return zeroStages.contains(zeroStage); }
    }

    /**
     * Kernels a layer of the framework's modelling code launches beyond the operations the step model counts, forward
     * and backward, with eager element-wise kernels (its profile's {@code layer_launches}; torch.compile fuses them).
     */
    public record LayerLaunches(int forward, int backward) {}

    /** The framework's amp path at {@code zeroStage}, or null where it keeps master weights there. */
    public Amp ampAt(int zeroStage) {
        return amp != null && amp.value() != null && amp.value().at(zeroStage) ? amp.value() : null;
    }

    /**
     * How much slower the fused attention kernel runs under torch.compile in this framework's modelling code (1 where
     * its profile says nothing): transformers builds an explicit causal mask while dynamo traces, so SDPA runs masked,
     * every tile, without its native GQA.
     */
    public double compiledAttentionFactor() {
        return compiledAttentionSlowdown == null || compiledAttentionSlowdown.value() == null ? 1 : compiledAttentionSlowdown.value();
    }

    /**
     * How the framework offloads (its profile's {@code offload} fact): the optimizer its host runs, the launcher that
     * sets its ranks' host threads, and the ZeRO stages at which a share of the optimizer may stay on the GPU
     * (DeepSpeed's offload_optimizer.ratio, Megatron-Core's optimizer_offload_fraction). A fact whose value is null: the
     * framework does not offload.
     *
     * @param ratioFlag the framework's switch for the share, as a user writes it; null where it has none
     */
    public record Offloads(String hostOptimizer, String launcher, List<Integer> ratioStages, String ratioFlag) {

        /** What a framework whose profile says nothing of offload is taken to do: PyTorch's, under torchrun. */
        public static final Offloads DEFAULT = new Offloads("torch-adamw", "torchrun", List.of(), null);

        public boolean ratioAt(int zeroStage) { return ratioStages.contains(zeroStage); }
    }

    /** How it offloads: its profile's, {@link Offloads#DEFAULT} where the profile says nothing; null where it cannot. */
    public Offloads offloads() {
        return offload == null ? Offloads.DEFAULT : offload.value();
    }

    /**
     * The bytes its fused element-wise kernels move over the model's minimal count (its profile's
     * {@code elementwise_traffic}), where it states one: hand-written kernels that fuse each chain into one pass; null
     * where the profile says nothing (perf.Efficiency's factor for frameworks' fused kernels applies).
     */
    public Double fusedElementwiseTraffic() {
        return elementwiseTraffic == null ? null : elementwiseTraffic.value();
    }

    /**
     * Bytes its loss moves per token and vocabulary entry, forward and backward together (its profile's
     * {@code cross_entropy_bytes}), where it states them: a fused classifier that reads the logits once and writes their
     * gradient in place; null where the profile says nothing (perf.ElementwiseBytes' PyTorch count applies).
     */
    /**
     * The ZeRO stage the framework's own recipes run (its profile's {@code recipe_zero_stage}: NeMo's and
     * Megatron-Bridge's turn Megatron-Core's distributed optimizer on), or null: what a log of it that prints no stage is
     * taken to have run, where the run fits at it (assemble.LogInference).
     */
    public Integer recipeZeroStageOrNull() {
        return recipeZeroStage == null ? null : recipeZeroStage.value();
    }

    /**
     * How it numbers its ranks (its profile's {@code rank_order}); where the profile says nothing, pipeline stages
     * outermost: the order of every framework read here that runs pipelines, but InternLM's of 2023
     * ({@link RankOrder#PIPELINE_OUTERMOST}), and the one that matters not at all to a framework without pipelines.
     */
    public RankOrder ranks() {
        return rankOrder == null || rankOrder.value() == null ? RankOrder.PIPELINE_OUTERMOST : rankOrder.value();
    }

    /**
     * Whether a run of it may number its ranks the other way: its profile's rank_order names the switch (Megatron's
     * --use-tp-pp-dp-mapping); a framework without one numbers them its way only.
     */
    public boolean switchesRankOrder() {
        return rankOrder != null && rankOrder.flag() != null;
    }

    /**
     * Whether its interleaved pipeline schedule sends activations and gradients between stages behind the compute of
     * other chunks (its profile's {@code interleaved_p2p_overlap}: Megatron-LM's overlap_p2p_comm, on by default since
     * 2023-10-12); false where the profile says nothing: each send waited for before the chunk it feeds.
     */
    public boolean overlapsInterleavedP2p() {
        return holds(interleavedP2pOverlap);
    }

    /**
     * Whether, without sequence parallelism, each tensor-parallel rank sends only its 1/tp slice of the activation (or
     * its gradient) to the next pipeline stage, and the receiving stage all-gathers the slices over its tensor-parallel
     * group (its profile's {@code pipeline_scatter_gather}: Megatron-LM's scatter/gather optimization, Narayanan et
     * al. 2021, section 4.1, on unless --no-scatter-gather-tensors-in-pipeline); false where the profile says nothing:
     * every rank sends the whole tensor.
     */
    public boolean scattersPipelineSends() {
        return holds(pipelineScatterGather);
    }

    /**
     * Whether the backward's tensor-parallel collectives of a column-parallel linear (QKV, the MLP's first) run beside
     * its GEMMs (its profile's {@code tp_backward_overlap}: Megatron-LM's LinearWithGradAccumulationAndAsyncCommunication,
     * on unless --no-async-tensor-model-parallel-allreduce): without sequence parallelism the input gradient's all-reduce
     * during the weight-gradient GEMM; with it, the input re-gathered for the weight gradient during the input-gradient
     * GEMM, and the input gradient's reduce-scatter during the weight-gradient GEMM. False where the profile says
     * nothing: every tensor-parallel collective waits for its result.
     */
    public boolean overlapsTpBackward() {
        return holds(tpBackwardOverlap);
    }

    /** Whether a yes-or-no fact of the profile says yes; a fact the profile does not state says no. */
    private static boolean holds(Fact<Boolean> fact) {
        return fact != null && Boolean.TRUE.equals(fact.value());
    }

    public Double crossEntropyBytesPerLogit() {
        return crossEntropyBytes == null ? null : crossEntropyBytes.value();
    }

    /** The framework's name and version as the advice prints it: "InternEvo (InternLM) 2023". */
    public String label() { return version == null ? key : key + " " + version; }

    /**
     * The attention kernel it runs by default on a GPU of {@code architecture} ("Hopper"): its architecture's, else
     * its general one; null where the profile names none.
     */
    public AttentionKernel attentionKernel(String architecture) {
        if (attentionByArchitecture != null && attentionByArchitecture.value().containsKey(architecture))
            return attentionByArchitecture.value().get(architecture);
        return attentionKernel == null ? null : attentionKernel.value();
    }

    /** What it issues for ZeRO stage {@code stage}, or null where the framework has no such stage. */
    public Stage stage(int stage) { return zero.get(stage); }

    /**
     * One fact of a profile.
     *
     * @param flag      the framework's own switch for it, as a user writes it (for the overlaps and bf16 reduction);
     *                  null where it has none
     * @param toMeasure what measurement would settle it, where one is still owed; null otherwise
     */
    public record Fact<T>(T value, String source, String flag, String toMeasure) {
        public Fact(T value, String source) { this(value, source, null, null); }

        /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
        @Override
        public boolean equals(Object o) {
            return this == o || o instanceof Fact<?> f && java.util.Objects.equals(value, f.value)
                    && java.util.Objects.equals(source, f.source) && java.util.Objects.equals(flag, f.flag)
                    && java.util.Objects.equals(toMeasure, f.toMeasure);
        }

        @Override
        public int hashCode() {
            int h = java.util.Objects.hashCode(value);
            h = 31 * h + java.util.Objects.hashCode(source);
            h = 31 * h + java.util.Objects.hashCode(flag);
            return 31 * h + java.util.Objects.hashCode(toMeasure);
        }
    }

    /** One ZeRO stage: the gradient reduction, and the parameter collective (null for plain data parallelism). */
    public record Stage(Sync gradients, Sync parameters) {
        /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
        @Override
        public boolean equals(Object o) {
            return this == o || o instanceof Stage s && java.util.Objects.equals(gradients, s.gradients)
                    && java.util.Objects.equals(parameters, s.parameters);
        }

        @Override
        public int hashCode() {
            int h = java.util.Objects.hashCode(gradients);
            return 31 * h + java.util.Objects.hashCode(parameters);
        }
    }

    /**
     * A data-parallel collective as the framework issues it.
     *
     * @param everyMicroBatch after (or, for parameters, before) every micro-batch, rather than once a step
     * @param overlap         what it hides behind by default; {@link Overlap#NONE} when nothing runs beside it
     * @param overlapWhenOn   what it hides behind once the run turns the overlap on (parallel.overlap_grad_reduce,
     *                        overlap_param_gather); null where the framework cannot overlap it
     * @param calls           how many calls a pass over the buffer takes
     * @param overlappedCalls how many once overlapped (Megatron-Core buckets only an overlapped reduction); null: as
     *                        {@code calls}
     * @param backwardGather  parameters only, ZeRO 3: gathered again before the backward
     * @param copies          whether each call's buffer is copied on the compute stream: the gathered parameters out
     *                        of the all-gather's flat buffer into each parameter, the unsharded gradients into the
     *                        reduce-scatter's input (cast to its dtype), as FSDP2 does; null or false where the
     *                        collective runs on the parameters' and gradients' own storage (FSDP1's flat parameter)
     */
    public record Sync(Fact<Kind> collective, Fact<Dtype> dtype, Fact<Boolean> everyMicroBatch, Fact<Overlap> overlap,
                       Fact<Overlap> overlapWhenOn, Fact<Calls> calls, Fact<Calls> overlappedCalls,
                       Fact<Boolean> backwardGather, Fact<Boolean> copies) {

        /** Parameters, ZeRO 3: whether they are gathered again before the backward (unless the profile says not). */
        public boolean regathersForBackward() { return backwardGather == null || backwardGather.value(); }

        /** Whether the framework copies the collective's buffer on the compute stream ({@code copies}). */
        public boolean copiesBuffer() { return copies != null && copies.value(); }

        /** What it hides behind with the run's overlap switch {@code on}. */
        public Overlap window(boolean on) {
            if (!on) return Overlap.NONE;
            if (overlap.value() != Overlap.NONE) return overlap.value();
            return overlapWhenOn == null ? Overlap.NONE : overlapWhenOn.value();
        }

        /** How many calls a pass takes with the overlap {@code on}. */
        public Calls calls(boolean on) {
            return on && overlappedCalls != null ? overlappedCalls.value() : calls.value();
        }

        /** Whether the framework overlaps it unless told otherwise: the default of the run's overlap switch. */
        public boolean overlapsByDefault() { return overlap.value() != Overlap.NONE; }

        /** The switch that turns its overlap on or off, as the framework spells it; null where it has none. */
        public String overlapFlag() { return overlap.flag() != null ? overlap.flag() : overlapWhenOn == null ? null : overlapWhenOn.flag(); }

        /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
        @Override
        public boolean equals(Object o) {
            return this == o || o instanceof Sync s && java.util.Objects.equals(collective, s.collective)
                    && java.util.Objects.equals(dtype, s.dtype)
                    && java.util.Objects.equals(everyMicroBatch, s.everyMicroBatch)
                    && java.util.Objects.equals(overlap, s.overlap)
                    && java.util.Objects.equals(overlapWhenOn, s.overlapWhenOn)
                    && java.util.Objects.equals(calls, s.calls)
                    && java.util.Objects.equals(overlappedCalls, s.overlappedCalls)
                    && java.util.Objects.equals(backwardGather, s.backwardGather)
                    && java.util.Objects.equals(copies, s.copies);
        }

        @Override
        public int hashCode() {
            int h = java.util.Objects.hashCode(collective);
            h = 31 * h + java.util.Objects.hashCode(dtype);
            h = 31 * h + java.util.Objects.hashCode(everyMicroBatch);
            h = 31 * h + java.util.Objects.hashCode(overlap);
            h = 31 * h + java.util.Objects.hashCode(overlapWhenOn);
            h = 31 * h + java.util.Objects.hashCode(calls);
            h = 31 * h + java.util.Objects.hashCode(overlappedCalls);
            h = 31 * h + java.util.Objects.hashCode(backwardGather);
            return 31 * h + java.util.Objects.hashCode(copies);
        }
    }

    /** The collective a data-parallel sync issues. */
    public enum Kind {
        ALL_REDUCE, REDUCE_SCATTER,
        /** one reduce to each owning rank of its shard */
        REDUCE,
        ALL_GATHER,
        /** one broadcast from each owning rank of its shard */
        BROADCAST;

        public String key() { return SpecWriter.key(this).replace('_', '-'); }
    }

    /** The dtype it moves. */
    public enum Dtype {
        /** the training precision (bf16 in a bf16 run) */
        PARAM,
        FP32,
        /** param.grad's: fp32 for the fp32 parameters that autocast trains */
        GRAD;

        /** The gradient precision this dtype means in a run of {@code precision}. */
        public Precision of(Precision precision) {
            return switch (this) {
                case PARAM -> precision == Precision.FP8 ? Precision.BF16 : precision;
                case FP32, GRAD -> Precision.FP32;
            };
        }
    }

    /** What a sync hides behind (the step model's overlap windows). */
    public enum Overlap { BACKWARD, LAST_BACKWARD, FIRST_FORWARD, FORWARD, NONE }

    /** How many calls a pass over the buffer takes. */
    public enum Calls {
        /** the buffer over the framework's bucket */
        BUCKET,
        /** one per wrapped unit (transformer layer) */
        PER_LAYER,
        /** one per owning rank */
        PER_RANK,
        /** one (a coalesced call) */
        ONE
    }

    /**
     * The gradient bucket, in one of the framework's units.
     *
     * @param elements       gradient elements a bucket holds (DeepSpeed, InternEvo), or NaN
     * @param mb             megabytes (PyTorch DDP's bucket_cap_mb), or NaN
     * @param paramsFloor    Megatron-Core's max(floor, perDpRank x dp) parameters: the floor, or 0
     * @param paramsPerDp    and the parameters per data-parallel rank
     */
    public record Bucket(double elements, double mb, double paramsFloor, double paramsPerDp) {

        /** The bucket in megabytes for gradients of {@code bytesPerElement} over {@code dp} ranks. */
        public double megabytes(double bytesPerElement, int dp) {
            if (!Double.isNaN(mb)) return mb;
            if (!Double.isNaN(elements)) return elements * bytesPerElement / 1e6;
            return Math.max(paramsFloor, paramsPerDp * dp) * bytesPerElement / 1e6;
        }

        /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
        @Override
        public boolean equals(Object o) {
            return this == o || o instanceof Bucket b && Double.compare(elements, b.elements) == 0
                    && Double.compare(mb, b.mb) == 0 && Double.compare(paramsFloor, b.paramsFloor) == 0
                    && Double.compare(paramsPerDp, b.paramsPerDp) == 0;
        }

        @Override
        public int hashCode() {
            int h = Double.hashCode(elements);
            h = 31 * h + Double.hashCode(mb);
            h = 31 * h + Double.hashCode(paramsFloor);
            return 31 * h + Double.hashCode(paramsPerDp);
        }
    }

    /** As the record's generated equals, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Framework f && java.util.Objects.equals(key, f.key)
                && java.util.Objects.equals(name, f.name) && java.util.Objects.equals(version, f.version)
                && java.util.Objects.equals(versionDescription, f.versionDescription)
                && java.util.Objects.equals(code, f.code) && java.util.Objects.equals(zero, f.zero)
                && java.util.Objects.equals(bucket, f.bucket)
                && java.util.Objects.equals(bf16GradientFlag, f.bf16GradientFlag)
                && java.util.Objects.equals(attentionKernel, f.attentionKernel)
                && java.util.Objects.equals(attentionByArchitecture, f.attentionByArchitecture)
                && java.util.Objects.equals(elementwiseKernels, f.elementwiseKernels)
                && java.util.Objects.equals(hostSecondsPerStep, f.hostSecondsPerStep)
                && java.util.Objects.equals(flopsConvention, f.flopsConvention)
                && java.util.Objects.equals(logFormats, f.logFormats)
                && java.util.Objects.equals(tflopsConventions, f.tflopsConventions)
                && java.util.Objects.equals(offload, f.offload) && java.util.Objects.equals(amp, f.amp)
                && java.util.Objects.equals(layerLaunches, f.layerLaunches)
                && java.util.Objects.equals(compiledAttentionSlowdown, f.compiledAttentionSlowdown)
                && java.util.Objects.equals(attentionKernelWithoutFlash, f.attentionKernelWithoutFlash)
                && java.util.Objects.equals(hostLaunches, f.hostLaunches)
                && java.util.Objects.equals(elementwiseTraffic, f.elementwiseTraffic)
                && java.util.Objects.equals(crossEntropyBytes, f.crossEntropyBytes)
                && java.util.Objects.equals(recipeZeroStage, f.recipeZeroStage)
                && java.util.Objects.equals(rankOrder, f.rankOrder)
                && java.util.Objects.equals(interleavedP2pOverlap, f.interleavedP2pOverlap)
                && java.util.Objects.equals(pipelineScatterGather, f.pipelineScatterGather)
                && java.util.Objects.equals(tpBackwardOverlap, f.tpBackwardOverlap);
    }

    /**
     * Hashed on its key, name and version alone, which equal profiles share: the whole profile's hash (two dozen facts,
     * each with its source's text, and the ZeRO stages' map) was worked out at every look-up of a layout's pieces
     * (StepModel.pieces, LayoutCache: 2.5% of a warm batch's samples, JFR). Equality stays the record's, component by
     * component.
     */
    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(key);
        h = 31 * h + java.util.Objects.hashCode(name);
        return 31 * h + java.util.Objects.hashCode(version);
    }
}
