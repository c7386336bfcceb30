package dev.trainadvisor.spec;

import dev.trainadvisor.input.SpecException;

/**
 * A run as a run file states it: typed, section by section, with null wherever the file leaves a value to a default
 * that depends on others (dp on the GPUs and the model-parallel degrees, the intra-node transport on the host, the
 * expert tensor parallelism on tp). The reader fills it from a file's JSON or YAML; {@link #resolve} validates it and
 * derives those defaults into a {@link RunSpec}, as for a user's file; {@link #of} writes a resolved run back, leaving
 * out what is derived again; a {@link RunChange} edits it field by typed field. So a what-if is one typed edit of the
 * run, validated as the user's own file is, with no JSON between.
 *
 * <p>The GPU and the model are held resolved: a file names them by catalogue key or preset, or inline, and nothing a
 * change sets derives them.
 */
public record RunFile(String name, ClusterPart cluster, Model model, ParallelPart parallel, TrainingPart training) {

    /**
     * @param name      null: the GPU and the count ("A100-SXM4-80GB x8")
     * @param intraNode null: no link (one GPU a node)
     * @param interNode null: no network (one node)
     */
    public record ClusterPart(String name, Gpu gpu, int nodes, int gpusPerNode, IntraPart intraNode, InterPart interNode,
                              Integer nvlinkDomain, HostPart host) {

        public ClusterPart(String name, Gpu gpu, int nodes, int gpusPerNode, IntraPart intraNode, InterPart interNode,
                           Integer nvlinkDomain) {
            this(name, gpu, nodes, gpusPerNode, intraNode, interNode, nvlinkDomain, null);
        }
    }

    /**
     * The host as the file says it: a catalogue key, or cores and bandwidth, and its memory; null fields take the
     * catalogue's (the default host's where no key is given).
     */
    public record HostPart(String key, Integer cores, Double memoryBandwidthGbps, Double memoryGb) {

        /** The host a resolved cluster has, as a file writes it back; null for the default host as assumed. */
        static HostPart of(Host h) {
            if (h.assumed()) return h.memoryKnown() ? new HostPart(null, null, null, h.memoryGb()) : null;
            Host known = h.key() == null ? null : Hosts.builtIn().hosts().get(h.key());
            if (known != null && known.cores() == h.cores() && known.memoryBandwidthGbps() == h.memoryBandwidthGbps())
                return new HostPart(h.key(), null, null, known.memoryGb() != h.memoryGb() ? h.memoryGb() : null);
            return new HostPart(null, h.cores(), h.memoryBandwidthGbps(), Double.isNaN(h.memoryGb()) ? null : h.memoryGb());
        }
    }

    /** The intra-node link and what the file says of its host; null fields follow from the link, GPU and node. */
    public record IntraPart(String link, Integer sockets, Transport transport, String gpuPath, Double busbwGbps) {}

    /** The network; null fields take the catalogue's. */
    public record InterPart(String link, Integer nicsPerNode, Double busbwGbps, Boolean sharp) {}

    public record ParallelPart(Integer tp, Integer pp, Integer dp, Integer cp, Integer ep, Boolean sequenceParallel,
                               Integer zeroStage, Integer zeroGroupSize, Integer virtualStages, Boolean overlapGradReduce,
                               Boolean overlapParamGather, Boolean overlapTpComm, Integer etp, Double bucketMb,
                               Boolean gradReduceEveryMicroBatch, MoeDispatcher moeDispatcher,
                               Boolean moeA2aOverlap, RankOrder rankOrder) {}

    public record TrainingPart(Integer seqLen, Integer microBatchSize, Integer microBatches, Recompute recompute,
                               Double recomputeFraction, Precision precision, Precision gradReducePrecision,
                               Boolean flashAttention, AttentionKernel attentionKernel,
                               ElementwiseKernels elementwiseKernels, Boolean cudaGraphs, Fp8Recipe fp8Recipe,
                               Implementation implementation, Offload offload, OptimizerKernel optimizerKernel) {

        /** The same section run by another framework. */
        public TrainingPart with(Implementation i) {
            return new TrainingPart(seqLen, microBatchSize, microBatches, recompute, recomputeFraction, precision,
                    gradReducePrecision, flashAttention, attentionKernel, elementwiseKernels, cudaGraphs, fp8Recipe, i,
                    offload, optimizerKernel);
        }
    }

    /**
     * The run validated and resolved, as the reader resolves a user's file; {@code file} names it in errors.
     *
     * @throws SpecException naming the field and what was expected, when the run is not valid
     */
    public RunSpec resolve(String file, Measurements measured) {
        return RunResolver.resolve(this, Catalog.builtIn(), file, false, measured);
    }

    /**
     * A resolved run written back: every value the run has, except those a reader derives again (the host placement
     * of a link the file did not describe, expert tensor parallelism equal to tp, defaults of kernels and buckets), so
     * that a change to what they follow from derives them anew.
     */
    public static RunFile of(Cluster c, RunMetrics run) {
        IntraPart intra = null;
        if (!"none".equals(c.intraNode().key())) {
            HostPlacement h = c.intraNode().host();
            intra = new IntraPart(c.intraNode().key(),
                    h != null && h.socketsGiven() ? h.sockets() : null,
                    h != null && h.transportGiven() ? h.transport() : null,
                    h == null ? null : h.gpuPath(),
                    c.intraNode().busbwMeasured() ? c.intraNode().busbwGbps() : null);
        }
        InterPart inter = null;
        if (c.interNode() != null) {
            Network n = c.interNode();
            inter = new InterPart(n.key(), n.nicsPerNode(), Double.isNaN(n.busbwGbps()) ? null : n.busbwGbps(),
                    n.sharp() ? Boolean.TRUE : null);
        }
        ClusterPart cluster = new ClusterPart(c.name(), c.gpu(), c.nodes(), c.gpusPerNode(), intra, inter,
                c.nvlinkDomain() != c.gpusPerNode() ? c.nvlinkDomain() : null, HostPart.of(c.host()));
        Parallel p = run.parallel();
        ParallelPart parallel = new ParallelPart(p.tp(), p.pp(), p.dp(), p.cp(), p.ep(), p.sequenceParallel(),
                p.zeroStage(), p.zeroGroupSize(), p.virtualStages(), p.overlapGradReduce(), p.overlapParamGather(),
                p.overlapTpComm(), p.etp() != p.tp() ? p.etp() : null,
                p.bucketMb() != RunResolver.defaultBucketMb(run.training().framework(), run.training().gradReducePrecision(),
                        p.dp()) ? p.bucketMb() : null, p.gradReduceEveryMicroBatch(),
                p.moeDispatcher() != MoeDispatcher.ALLTOALL ? p.moeDispatcher() : null, p.moeA2aOverlap() ? Boolean.TRUE : null,
                p.rankOrder());
        Training t = run.training();
        // a value is left out only where reading the file back derives the same one: the framework's own default for
        // the GPU (PyTorch's SDPA runs cuDNN on Hopper, so a run that names fa2 there must keep saying it)
        boolean kernelDerived = t.attentionKernel() == RunResolver.derivedAttention(t.framework(), c.gpu(), t.flashAttention());
        TrainingPart training = new TrainingPart(t.seqLen(), t.microBatchSize(), t.microBatches(), t.recompute(),
                t.recompute() == Recompute.FULL && t.recomputeFraction() != 1.0 ? t.recomputeFraction() : null,
                t.precision(), t.gradReducePrecision(), t.flashAttention(), kernelDerived ? null : t.attentionKernel(),
                t.elementwiseKernels() != RunResolver.derivedElementwise(t.framework()) ? t.elementwiseKernels() : null,
                t.cudaGraphs() ? Boolean.TRUE : null,
                t.precision() == Precision.FP8 && t.fp8Recipe() != Fp8Recipe.DELAYED ? t.fp8Recipe() : null,
                t.implementation(), t.offload().any() ? t.offload() : null,
                t.optimizerKernel() != OptimizerKernel.FUSED ? t.optimizerKernel() : null);
        return new RunFile(run.name(), cluster, run.model(), parallel, training);
    }

    /** A run file being edited: the records' fields, settable one by one ({@link RunField}), then frozen again. */
    static final class Draft {
        String name, clusterName, intraLink, gpuPath, interLink;
        Gpu gpu;
        Integer nodes, gpusPerNode, sockets, nics, nvlinkDomain;
        Transport transport;
        Double intraBusbw, interBusbw;
        Boolean sharp;
        Model model;
        HostPart host;
        final Par parallel = new Par();
        final Train training = new Train();

        static final class Par {
            Integer tp, pp, dp, cp, ep, zeroStage, zeroGroupSize, virtualStages, etp;
            Boolean sequenceParallel, overlapGradReduce, overlapParamGather, overlapTpComm, gradReduceEveryMicroBatch,
                    moeA2aOverlap;
            Double bucketMb;
            MoeDispatcher moeDispatcher;
            RankOrder rankOrder;
        }

        static final class Train {
            Integer seqLen, microBatchSize, microBatches;
            Recompute recompute;
            Double recomputeFraction;
            Precision precision, gradReducePrecision;
            Boolean flashAttention, cudaGraphs;
            AttentionKernel attentionKernel;
            ElementwiseKernels elementwiseKernels;
            Fp8Recipe fp8Recipe;
            Implementation implementation;
            Offload offload;
            OptimizerKernel optimizerKernel;
        }

        Draft(RunFile f) {
            name = f.name;
            model = f.model;
            ClusterPart c = f.cluster;
            clusterName = c.name();
            gpu = c.gpu();
            nodes = c.nodes();
            gpusPerNode = c.gpusPerNode();
            nvlinkDomain = c.nvlinkDomain();
            host = c.host();
            if (c.intraNode() != null) {
                IntraPart i = c.intraNode();
                intraLink = i.link();
                sockets = i.sockets();
                transport = i.transport();
                gpuPath = i.gpuPath();
                intraBusbw = i.busbwGbps();
            }
            if (c.interNode() != null) {
                InterPart n = c.interNode();
                interLink = n.link();
                nics = n.nicsPerNode();
                interBusbw = n.busbwGbps();
                sharp = n.sharp();
            }
            ParallelPart p = f.parallel;
            parallel.tp = p.tp();
            parallel.pp = p.pp();
            parallel.dp = p.dp();
            parallel.cp = p.cp();
            parallel.ep = p.ep();
            parallel.sequenceParallel = p.sequenceParallel();
            parallel.zeroStage = p.zeroStage();
            parallel.zeroGroupSize = p.zeroGroupSize();
            parallel.virtualStages = p.virtualStages();
            parallel.overlapGradReduce = p.overlapGradReduce();
            parallel.overlapParamGather = p.overlapParamGather();
            parallel.overlapTpComm = p.overlapTpComm();
            parallel.etp = p.etp();
            parallel.bucketMb = p.bucketMb();
            parallel.gradReduceEveryMicroBatch = p.gradReduceEveryMicroBatch();
            parallel.moeDispatcher = p.moeDispatcher();
            parallel.moeA2aOverlap = p.moeA2aOverlap();
            parallel.rankOrder = p.rankOrder();
            TrainingPart t = f.training;
            training.seqLen = t.seqLen();
            training.microBatchSize = t.microBatchSize();
            training.microBatches = t.microBatches();
            training.recompute = t.recompute();
            training.recomputeFraction = t.recomputeFraction();
            training.precision = t.precision();
            training.gradReducePrecision = t.gradReducePrecision();
            training.flashAttention = t.flashAttention();
            training.attentionKernel = t.attentionKernel();
            training.elementwiseKernels = t.elementwiseKernels();
            training.cudaGraphs = t.cudaGraphs();
            training.fp8Recipe = t.fp8Recipe();
            training.implementation = t.implementation();
            training.offload = t.offload();
            training.optimizerKernel = t.optimizerKernel();
        }

        RunFile build() {
            if (nodes == null || gpusPerNode == null) throw new IllegalArgumentException("nodes and gpus_per_node are required");
            IntraPart intra = intraLink == null && sockets == null && transport == null && gpuPath == null && intraBusbw == null
                    ? null : new IntraPart(intraLink, sockets, transport, gpuPath, intraBusbw);
            InterPart inter = interLink == null && nics == null && interBusbw == null && sharp == null
                    ? null : new InterPart(interLink, nics, interBusbw, sharp);
            Par p = parallel;
            Train t = training;
            return new RunFile(name, new ClusterPart(clusterName, gpu, nodes, gpusPerNode, intra, inter, nvlinkDomain, host), model,
                    new ParallelPart(p.tp, p.pp, p.dp, p.cp, p.ep, p.sequenceParallel, p.zeroStage, p.zeroGroupSize,
                            p.virtualStages, p.overlapGradReduce, p.overlapParamGather, p.overlapTpComm, p.etp, p.bucketMb,
                            p.gradReduceEveryMicroBatch, p.moeDispatcher, p.moeA2aOverlap, p.rankOrder),
                    new TrainingPart(t.seqLen, t.microBatchSize, t.microBatches, t.recompute, t.recomputeFraction,
                            t.precision, t.gradReducePrecision, t.flashAttention, t.attentionKernel, t.elementwiseKernels,
                            t.cudaGraphs, t.fp8Recipe, t.implementation, t.offload, t.optimizerKernel));
        }
    }
}
