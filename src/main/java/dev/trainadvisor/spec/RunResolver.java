package dev.trainadvisor.spec;

import dev.trainadvisor.input.SpecException;

import java.util.Locale;

/**
 * The second half of reading a run: a {@link RunFile}'s defaults derived and its fields checked against each other
 * (dp against the GPUs, the transport from the host, a kernel against the GPU), section by section. The reader calls
 * each section's resolution right after parsing it, and a what-if resolves a whole edited run file, so that both are
 * validated alike. Every error names the file and the dotted field.
 */
final class RunResolver {
    private RunResolver() {}

    static RunSpec resolve(RunFile f, Catalog catalog, String file, boolean gpuPathFromTopology, Measurements measured) {
        Cluster cluster = cluster(f.cluster(), catalog, file, gpuPathFromTopology);
        Training training = training(f.training(), f.parallel(), cluster.gpu(), file);
        Parallel parallel = parallel(f.parallel(), file, cluster, f.model(), training);
        checkAgainstGpu(cluster, training, file);
        String runName = f.name();
        return new RunSpec(runName, cluster, new RunMetrics(runName, f.model(), parallel, training, measured));
    }

    private static SpecException error(String file, String field, String expected) {
        return new SpecException(file, field, expected);
    }

    // ---------------------------------------------------------------- cluster

    static Cluster cluster(RunFile.ClusterPart c, Catalog catalog, String file, boolean fromTopology) {
        Gpu gpu = c.gpu();
        int nodes = c.nodes(), perNode = c.gpusPerNode();
        if ((long) nodes * perNode > Bounds.GPUS)
            throw error(file, "cluster.nodes", "nodes x gpus_per_node at most " + Bounds.GPUS + " GPUs, got " + nodes + " x "
                    + perNode + " = " + (long) nodes * perNode);
        RunFile.IntraPart intra = c.intraNode();
        IntraNodeLink link;
        if (perNode == 1 && (intra == null || intra.link() == null)) {
            link = new IntraNodeLink("none", LinkKind.NONE, 0, Double.POSITIVE_INFINITY, 0, false, "single GPU per node",
                    HostPlacement.CATALOGUE);
        } else {
            if (intra == null || intra.link() == null)
                throw error(file, "cluster.intra_node.link", "the intra-node link (" + String.join(", ",
                        catalog.links().keySet()) + ") is required when a node holds more than one GPU");
            link = place(catalog.link(intra.link(), file, "cluster.intra_node.link"), intra, gpu, perNode, catalog, file,
                    fromTopology);
            if (intra.busbwGbps() != null) link = link.withMeasuredBusbw(intra.busbwGbps());
        }
        RunFile.InterPart inter = c.interNode();
        Network network = null;
        if (inter != null && inter.link() != null) {
            Catalog.NetworkEntry n = catalog.network(inter.link(), file, "cluster.inter_node.link");
            int nics = inter.nicsPerNode() != null ? inter.nicsPerNode() : n.defaultNicsPerNode();
            double busbw = inter.busbwGbps() != null ? inter.busbwGbps() : Double.NaN;
            network = new Network(n.key(), n.lineRateGbitS(), n.efficiency(), n.alphaUs(), nics, busbw, n.source(),
                    Boolean.TRUE.equals(inter.sharp()));
        }
        if (nodes > 1 && network == null)
            throw error(file, "cluster.inter_node.link", "the network between nodes (" + String.join(", ",
                    catalog.networks().keySet()) + ") is required when nodes > 1");
        String name = c.name() != null ? c.name() : gpu.key() + " x" + nodes * perNode;
        int domain = c.nvlinkDomain() != null ? c.nvlinkDomain() : perNode;
        if (domain != perNode) {
            if (domain % perNode != 0)
                throw error(file, "cluster.nvlink_domain", "a multiple of gpus_per_node (" + perNode + "): the GPUs of whole"
                        + " nodes joined by one NVLink fabric, got " + domain);
            if (!link.isNvlink())
                throw error(file, "cluster.nvlink_domain", "an NVLink intra-node link to join nodes: " + link.key() + " is "
                        + link.kind().key() + ", which stays inside a node");
        }
        return new Cluster(name, gpu, nodes, perNode, link, network, domain, host(c.host()));
    }

    /** The node's host: the catalogue's by key, the file's cores and bandwidth, or the default (assumed); its memory. */
    static Host host(RunFile.HostPart h) {
        Hosts hosts = Hosts.builtIn();
        if (h == null) return hosts.defaultHost();
        Host base = h.key() != null ? hosts.hosts().get(h.key())
                : h.cores() != null ? new Host(null, h.cores(), h.memoryBandwidthGbps(), Double.NaN,
                        "the run file's cluster.host", false)
                : hosts.defaultHost();
        return h.memoryGb() != null ? base.withMemoryGb(h.memoryGb()) : base;
    }

    private static final java.util.regex.Pattern PCIE_GEN = java.util.regex.Pattern.compile("PCIe(\\d)");

    /**
     * The link placed on the host: CPU sockets, the worst path between two GPUs, the transport NCCL uses, and the bus
     * bandwidth that follows (knowledge-base/transports.json). What the run file says wins; else the path
     * {@code nvidia-smi topo -m} shows ({@code gpu_path}, which a {@code topology:} file fills); else the default a
     * user expects: a node of 8 or more PCIe GPUs is a dual-socket server with four under each socket, rings cross the
     * socket link, and NCCL does not use peer-to-peer across it.
     */
    private static IntraNodeLink place(IntraNodeLink link, RunFile.IntraPart intra, Gpu gpu, int perNode, Catalog catalog,
                                       String file, boolean fromTopology) {
        String path = null;
        if (intra.gpuPath() != null) {
            String p = intra.gpuPath();
            if (p.equals("NV") != link.isNvlink()) {
                // from a topology: file, checkTopology names the file's matrix; from the run file, say it here
                if (!fromTopology) throw error(file, "cluster.intra_node.gpu_path", "a path of the link's kind: " + link.key()
                        + " is " + link.kind().key() + ", and gpu_path " + p + (p.equals("NV") ? " is NVLink" : " is PCIe"));
            } else {
                path = p;
            }
        }
        boolean pcie = link.kind() == LinkKind.PCIE;
        String why;
        int sockets;
        if (intra.sockets() != null) {
            sockets = intra.sockets();
            why = "sockets from the run file";
        } else if (path != null) {
            sockets = path.equals("SYS") ? 2 : 1;
            why = "gpu_path " + path;
        } else {
            sockets = pcie && perNode >= 8 ? 2 : 1;
            why = sockets == 2 ? "default: 8 or more PCIe GPUs sit under 2 CPU sockets" : "default: one CPU socket";
        }
        Transport transport;
        if (intra.transport() != null) {
            transport = intra.transport();
            why += "; transport from the run file";
        } else if (!pcie) {
            transport = Transport.P2P;
        } else if (!gpu.pcieP2p()) {
            transport = Transport.SHM;
            why += "; " + gpu.key() + " has no peer-to-peer over PCIe";
        } else if (path != null) {
            transport = HostPlacement.p2pByDefault(path) ? Transport.P2P : Transport.SHM;
            why += "; NCCL uses peer-to-peer up to PXB";
        } else {
            transport = sockets > 1 ? Transport.SHM : Transport.P2P;
            if (sockets > 1) why += "; NCCL stages traffic across sockets through host memory";
        }
        Catalog.Transports t = catalog.transports();
        java.util.regex.Matcher g = PCIE_GEN.matcher(link.key());
        int gen = pcie && g.find() ? Integer.parseInt(g.group(1)) : gpu.hostPcieGen() > 0 ? gpu.hostPcieGen() : 4;
        double busbw = switch (transport) {
            case P2P -> link.busbwGbps();
            case SHM -> t.shmBusbw(gen);
            case SOCKET -> t.socketBusbw();
        };
        // a ring over two sockets crosses the CPU-to-CPU link, unless NVLink carries it
        if (sockets > 1 && (pcie || transport != Transport.P2P)) busbw = Math.min(busbw, t.socketLink(gen));
        return link.on(new HostPlacement(sockets, path, transport, t.interference(transport, link.kind()), why,
                intra.sockets() != null, intra.transport() != null, busbw, t.oneWay().getOrDefault(transport, 1.0)), busbw);
    }

    // ---------------------------------------------------------------- training and parallel

    /**
     * The training section resolved. What the file leaves out the framework decides where its profile says (the
     * attention kernel it runs, its element-wise kernels, the dtype it reduces gradients in at the run's ZeRO stage),
     * else the house defaults; a profile's kernel the GPU cannot run is not taken.
     */
    static Training training(RunFile.TrainingPart t, RunFile.ParallelPart par, Gpu gpu, String file) {
        if (t.seqLen() == null) throw error(file, "training.seq_len", Bounds.range(Bounds.SEQ_LEN) + " is required");
        if (t.microBatchSize() == null)
            throw error(file, "training.micro_batch_size", Bounds.range(Bounds.MICRO_BATCH_SIZE) + " is required");
        Implementation impl = t.implementation() != null ? t.implementation() : Implementation.byDefault();
        Framework fw = impl.framework();
        int mb = t.microBatches() != null ? t.microBatches() : 1;
        Recompute rc = t.recompute() != null ? t.recompute() : Recompute.NONE;
        Precision p = t.precision() != null ? t.precision() : Precision.BF16;
        Framework.Stage stage = fw.stage(or(par.zeroStage(), 0));
        Precision gr = t.gradReducePrecision() != null ? t.gradReducePrecision()
                : stage != null ? stage.gradients().dtype().value().of(p) : p == Precision.FP8 ? Precision.BF16 : p;
        double fraction = t.recomputeFraction() != null ? t.recomputeFraction() : 1.0;
        if (fraction > 1)
            throw error(file, "training.recompute_fraction", "the share of layers that recompute, from 0 to 1, got " + fraction);
        if (t.recomputeFraction() != null && rc != Recompute.FULL)
            throw error(file, "training.recompute_fraction", "recompute: full with it (the share of layers that recompute in "
                    + "full); recompute is " + rc.key());
        AttentionKernel profiled = profiledAttention(fw, gpu);
        boolean flash = t.flashAttention() != null ? t.flashAttention()
                : t.attentionKernel() != null || profiled == null || profiled.flash();
        AttentionKernel kernel = t.attentionKernel() != null ? t.attentionKernel() : derivedAttention(fw, gpu, flash);
        if (kernel.flash() != flash)
            throw error(file, "training.attention_kernel", flash
                    ? "a fused kernel (fa2, fa1, triton, fa3, cudnn) with flash_attention true; " + kernel.name().toLowerCase(Locale.ROOT)
                            + " is attention without flash: flash_attention false with it"
                    : "unfused, math or eager with flash_attention false (the kernel of fused attention needs flash_attention: true)");
        Fp8Recipe recipe = t.fp8Recipe() != null ? t.fp8Recipe() : Fp8Recipe.DELAYED;
        if (t.fp8Recipe() != null && p != Precision.FP8)
            throw error(file, "training.fp8_recipe", "precision: fp8 with it (the recipe scales fp8 tensors); precision is " + p.key());
        ElementwiseKernels elementwise = t.elementwiseKernels() != null ? t.elementwiseKernels() : derivedElementwise(fw);
        Offload offload = t.offload() != null ? t.offload() : Offload.NONE;
        checkOffload(offload, or(par.zeroStage(), 0), fw, file);
        return new Training(t.seqLen(), t.microBatchSize(), mb, rc, p, gr, flash, fraction, kernel, elementwise,
                Boolean.TRUE.equals(t.cudaGraphs()), recipe, impl, offload,
                t.optimizerKernel() != null ? t.optimizerKernel() : OptimizerKernel.FUSED);
    }

    /**
     * What each offloaded state needs: parameters leave the GPU only when they are sharded (ZeRO 3 / FSDP); master
     * weights and gradients go where the optimizer runs, so with it; only optimizer states and parameters have an
     * NVMe tier (DeepSpeed's offload_optimizer and offload_param device nvme), and it needs its path; a ratio or a path
     * with nothing that uses it is refused, not ignored.
     */
    static void checkOffload(Offload o, int zeroStage, Framework fw, String file) {
        String at = "training.offload.";
        if (o.any() && fw.offloads() == null)
            throw error(file, "training.offload", "no offload with " + fw.label() + ", which does not offload ("
                    + fw.offload().source() + "); or another training.framework");
        if (o.ratio() != 1.0 && fw.offload() != null && fw.offloads() != null && !fw.offloads().ratioAt(zeroStage))
            throw error(file, at + "ratio", "1 with " + fw.label() + (fw.offloads().ratioStages().isEmpty()
                    ? ", which offloads the whole optimizer or none of it"
                    : ", which keeps part of the optimizer on the GPU only at ZeRO stage " + fw.offloads().ratioStages()
                    + " (" + fw.offloads().ratioFlag() + ")") + "; zero_stage is " + zeroStage);
        if ((o.hostOptimizer() != null || o.hostThreads() != null || o.bindCores() != null) && o.optimizer() == Offload.Tier.NONE)
            throw error(file, at + (o.hostOptimizer() != null ? "host_optimizer" : o.hostThreads() != null ? "host_threads"
                    : "bind_cores"), "none without the optimizer offloaded (optimizer: cpu): they say how the host runs it");
        if (o.parameters() != Offload.Tier.NONE && zeroStage != 3)
            throw error(file, at + "parameters", "none unless the parameters are sharded: offloading them needs ZeRO 3 or "
                    + "FSDP (parallel.zero_stage: 3), and zero_stage is " + zeroStage);
        for (String[] f : new String[][]{{"master_weights", o.masterWeights().name()}, {"gradients", o.gradients().name()},
                {"activations", o.activations().name()}})
            if (f[1].equals("NVME"))
                throw error(file, at + f[0], "cpu or none: only the optimizer states and the parameters have an NVMe tier "
                        + "(DeepSpeed ZeRO-Infinity's offload_optimizer and offload_param)");
        if ((o.masterWeights() != Offload.Tier.NONE || o.gradients() != Offload.Tier.NONE) && o.optimizer() == Offload.Tier.NONE)
            throw error(file, at + "optimizer", "cpu or nvme with master_weights or gradients offloaded: they go where the "
                    + "optimizer runs (DeepSpeed's offload_optimizer, FSDP's CPUOffload move them together)");
        if (o.ratio() != 1.0 && o.optimizer() == Offload.Tier.NONE)
            throw error(file, at + "ratio", "no ratio without optimizer offloaded (the share of the optimizer the host runs)");
        boolean nvme = o.optimizer() == Offload.Tier.NVME || o.parameters() == Offload.Tier.NVME;
        if (nvme && (o.nvmePath() == null || o.nvmePath().isBlank()))
            throw error(file, at + "nvme_path", "the path of the NVMe tier (DeepSpeed's nvme_path) with nvme offload");
        if (!nvme && o.nvmePath() != null)
            throw error(file, at + "nvme_path", "no nvme_path without an nvme tier (optimizer or parameters: nvme)");
    }

    /** Whether the GPU runs the kernel: FlashAttention-3 needs Hopper (checkAgainstGpu refuses it elsewhere). */
    /** The attention kernel the framework's profile runs on the GPU's architecture, or null (none, or not on it). */
    private static AttentionKernel profiledAttention(Framework fw, Gpu gpu) {
        AttentionKernel profiled = fw.attentionKernel(gpu.architecture());
        return profiled != null && runs(profiled, gpu) ? profiled : null;
    }

    /** The attention kernel a run file that names none runs, with flash attention on or off. */
    static AttentionKernel derivedAttention(Framework fw, Gpu gpu, boolean flash) {
        AttentionKernel profiled = profiledAttention(fw, gpu);
        return profiled != null && profiled.flash() == flash ? profiled
                : flash ? AttentionKernel.FA2 : fw.attentionWithoutFlash();
    }

    /** The element-wise kernels a run file that names none runs: its framework's, else hand-fused. */
    static ElementwiseKernels derivedElementwise(Framework fw) {
        return fw.elementwiseKernels() != null && fw.elementwiseKernels().value() != null ? fw.elementwiseKernels().value()
                : ElementwiseKernels.FUSED;
    }

    private static boolean runs(AttentionKernel k, Gpu gpu) {
        return k != AttentionKernel.FA3 || "Hopper".equals(gpu.architecture());
    }

    /**
     * The gradient bucket a framework uses, in MB, for gradients in {@code grads} over {@code dp} ranks (its profile's
     * bucket, else PyTorch DDP's 25 MB).
     */
    static double defaultBucketMb(Framework fw, Precision grads, int dp) {
        if (fw == null || fw.bucket() == null) return Parallel.DEFAULT_BUCKET_MB;
        return fw.bucket().value().megabytes(grads.bytes, dp);
    }

    private static int or(Integer v, int dflt) { return v != null ? v : dflt; }

    static Parallel parallel(RunFile.ParallelPart p, String file, Cluster cluster, Model model, Training training) {
        int gpus = cluster.gpus();
        // every degree divides the GPUs, so none exceeds their bound; products are formed in long
        int tp = or(p.tp(), 1), pp = or(p.pp(), 1), cp = or(p.cp(), 1), ep = or(p.ep(), 1);
        long mp = (long) tp * pp * cp;
        if (gpus % mp != 0)
            throw error(file, "parallel.tp", "tp*pp*cp (" + tp + "*" + pp + "*" + cp + "=" + mp + ") to divide the cluster's "
                    + gpus + " GPUs");
        int dp;
        if (p.dp() != null) {
            dp = p.dp();
            if (dp * mp != gpus)
                throw error(file, "parallel.dp", "tp*pp*cp*dp to equal the cluster's " + gpus + " GPUs (" + cluster.nodes()
                        + " nodes x " + cluster.gpusPerNode() + "), so dp=" + gpus / mp + "; got dp=" + dp);
        } else {
            dp = (int) (gpus / mp);
        }
        if (model.heads() % tp != 0)
            throw error(file, "parallel.tp", "a divisor of the model's " + model.heads() + " attention heads, got tp=" + tp);
        if (model.kvHeads() % tp != 0 && tp % model.kvHeads() != 0)
            throw error(file, "parallel.tp", "a divisor or multiple of the model's " + model.kvHeads() + " KV heads, got tp=" + tp);
        int vs = or(p.virtualStages(), 1);
        if (vs > 1 && pp == 1) throw error(file, "parallel.virtual_stages", "1 when pp is 1 (interleaving needs a pipeline)");
        if (model.layers() < (long) pp * vs)
            throw error(file, "parallel.pp", "pp*virtual_stages at most the model's " + model.layers() + " layers, got "
                    + pp + "*" + vs);
        if (training.seqLen() % cp != 0)
            throw error(file, "parallel.cp", "a divisor of seq_len (" + training.seqLen() + "), got cp=" + cp);
        int etp = or(p.etp(), tp);
        if (!model.isMoe() && p.etp() != null && etp != tp)
            throw error(file, "parallel.etp", "tp (" + tp + ") for a dense model (expert tensor parallelism needs moe), got " + etp);
        if (ep > 1 && !model.isMoe())
            throw error(file, "parallel.ep", "1 for a dense model (expert parallelism needs moe), got " + ep);
        if (model.isMoe()) {
            if (model.moe().experts() % ep != 0)
                throw error(file, "parallel.ep", "a divisor of the " + model.moe().experts() + " experts, got " + ep);
            if (model.moe().ffnHidden() % etp != 0)
                throw error(file, "parallel.etp", "a divisor of the experts' ffn_hidden (" + model.moe().ffnHidden() + "), got "
                        + etp);
            // Megatron-Core folds the experts' ETP x EP over the attention's TP x CP x DP ranks of a stage
            if (((long) tp * cp * dp) % ((long) ep * etp) != 0)
                throw error(file, p.etp() != null ? "parallel.etp" : "parallel.ep", "ep*etp (" + ep + "*" + etp + "="
                        + (long) ep * etp + ") to divide tp*cp*dp (" + (long) tp * cp * dp + "): the expert layers fold their "
                        + "ranks over the attention's (MoE parallel folding; etp defaults to tp)");
        }
        Framework fw = training.framework();
        RankOrder order = p.rankOrder() != null ? p.rankOrder() : fw.ranks();
        // with the replicas outermost a stage's ranks are not consecutive, and Megatron folds the experts inside each
        // replica's tp x cp ranks only ("When not using pp-last rank ordering, the data parallel size of the attention and
        // moe layers must be the same", megatron/core/parallel_state.py at d98e8a6)
        if (model.isMoe() && pp > 1 && order == RankOrder.DATA_OUTERMOST && (long) ep * etp != (long) tp * cp)
            throw error(file, p.rankOrder() != null ? "parallel.rank_order" : "parallel.ep", "ep*etp (" + ep + "*" + etp
                    + ") equal to tp*cp (" + tp + "*" + cp + ") with the ranks numbered " + order.key() + " ("
                    + (p.rankOrder() != null ? "as the run file says" : fw.label() + "'s order")
                    + ") and pp above 1: the experts fold inside each replica's tp x cp ranks; tp-cp-dp-pp folds them "
                    + "over the stage's tp x cp x dp");
        int zero = or(p.zeroStage(), 0);
        int zg = or(p.zeroGroupSize(), dp);
        if (dp % zg != 0) throw error(file, "parallel.zero_group_size", "a divisor of dp (" + dp + "), got " + zg);
        Framework.Stage stage = fw.stage(zero);
        if (stage == null)
            throw error(file, "parallel.zero_stage", "a ZeRO stage " + fw.label() + " runs, one of " + fw.zero().keySet()
                    + " (knowledge-base/frameworks/" + fw.key() + ".json), got " + zero);
        // the framework's defaults for what the file leaves out; the parameter switch is ZeRO 1-2's gather after the step
        boolean overlapGrad = p.overlapGradReduce() != null ? p.overlapGradReduce() : stage.gradients().overlapsByDefault();
        boolean overlapParam = p.overlapParamGather() != null ? p.overlapParamGather()
                : zero >= 1 && zero <= 2 && stage.parameters().overlapsByDefault();
        return new Parallel(tp, pp, dp, cp, ep, Boolean.TRUE.equals(p.sequenceParallel()), zero, zg, vs, overlapGrad,
                overlapParam, Boolean.TRUE.equals(p.overlapTpComm()), etp,
                p.bucketMb() != null ? p.bucketMb() : defaultBucketMb(fw, training.gradReducePrecision(), dp),
                p.gradReduceEveryMicroBatch(), p.moeDispatcher(), Boolean.TRUE.equals(p.moeA2aOverlap()), p.rankOrder());
    }

    /** What the GPU must have for the training: the precision's tensor cores, the attention kernel's architecture. */
    static void checkAgainstGpu(Cluster cluster, Training training, String file) {
        if (training.precision() == Precision.FP8 && !cluster.gpu().hasFp8())
            throw error(file, "training.precision", "a precision the GPU supports: " + cluster.gpu().key()
                    + " has no fp8 tensor cores");
        if (training.precision() == Precision.BF16 && cluster.gpu().peakTflops().get(Precision.BF16) == null)
            throw error(file, "training.precision", "a precision the GPU supports: " + cluster.gpu().key()
                    + " has no bf16 tensor cores (use fp16)");
        String arch = cluster.gpu().architecture();
        if (training.attentionKernel() == AttentionKernel.FA3 && !"Hopper".equals(arch))
            throw error(file, "training.attention_kernel", "a kernel the GPU runs: FlashAttention-3 needs a Hopper GPU, "
                    + cluster.gpu().key() + " is " + (arch == null || arch.isEmpty() ? "of unknown architecture" : arch));
        if (training.precision() == Precision.FP8 && training.fp8Recipe() == Fp8Recipe.MXFP8 && !"Blackwell".equals(arch))
            throw error(file, "training.fp8_recipe", "a recipe the GPU runs: MXFP8 needs Blackwell's block-scaled tensor cores, "
                    + cluster.gpu().key() + " is " + (arch == null || arch.isEmpty() ? "of unknown architecture" : arch));
    }
}
