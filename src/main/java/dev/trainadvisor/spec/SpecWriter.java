package dev.trainadvisor.spec;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Map;

/**
 * Writes a run file's typed form ({@link RunFile}) as a run-file tree (without metrics): the advice's {@code run}, in
 * run-file terms. What a resolved run writes, and what it leaves to be derived again, is {@link RunFile#of}'s.
 */
public final class SpecWriter {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private SpecWriter() {}

    /** A resolved run written back as a run-file tree. */
    public static ObjectNode write(Cluster cluster, RunMetrics run) { return write(RunFile.of(cluster, run)); }

    public static ObjectNode write(RunFile f) {
        ObjectNode root = F.objectNode();
        root.put("name", f.name());
        root.set("cluster", cluster(f.cluster()));
        root.set("model", model(f.model()));
        root.set("parallel", parallel(f.parallel()));
        root.set("training", training(f.training()));
        return root;
    }

    static ObjectNode cluster(RunFile.ClusterPart c) {
        ObjectNode o = F.objectNode();
        if (c.name() != null) o.put("name", c.name());
        Gpu g = c.gpu();
        Catalog.Entry<Gpu> known = Catalog.builtIn().gpus().get(g.key());
        if (known != null && known.value().equals(g)) {
            o.put("gpu", g.key());
        } else {
            ObjectNode gpu = o.putObject("gpu");
            gpu.put("key", g.key());
            ObjectNode peak = gpu.putObject("peak_tflops");
            for (Map.Entry<Precision, Double> e : new java.util.TreeMap<>(g.peakTflops()).entrySet())
                peak.put(e.getKey().key(), e.getValue());
            gpu.put("hbm_gb", g.hbmGb());
            gpu.put("hbm_gbps", g.hbmGbps());
            if (!Double.isNaN(g.mamfTflopsBf16())) gpu.put("mamf_tflops_bf16", g.mamfTflopsBf16());
            if (!Double.isNaN(g.attentionFraction())) gpu.put("attention_fraction", g.attentionFraction());
            if (g.sms() > 0) gpu.put("sms", g.sms());
            if (!g.architecture().isEmpty()) gpu.put("architecture", g.architecture());
            gpu.put("source", g.source());
        }
        o.put("nodes", c.nodes());
        o.put("gpus_per_node", c.gpusPerNode());
        if (c.nvlinkDomain() != null) o.put("nvlink_domain", c.nvlinkDomain());
        RunFile.HostPart h = c.host();
        if (h != null) {
            if (h.key() != null) o.put("host", h.key());
            else if (h.cores() != null) {
                ObjectNode host = o.putObject("host");
                host.put("cores", h.cores());
                host.put("memory_bandwidth_gbps", h.memoryBandwidthGbps());
            }
            if (h.memoryGb() != null) o.put("host_memory_gb", h.memoryGb());
        }
        RunFile.IntraPart i = c.intraNode();
        if (i != null) {
            ObjectNode intra = o.putObject("intra_node");
            if (i.link() != null) intra.put("link", i.link());
            // what the run file said; defaults are derived again, so that a what-if on the link re-derives them
            if (i.sockets() != null) intra.put("sockets", i.sockets());
            if (i.transport() != null) intra.put("transport", i.transport().key());
            if (i.gpuPath() != null) intra.put("gpu_path", i.gpuPath());
            if (i.busbwGbps() != null) intra.put("busbw_gbps", i.busbwGbps());
        }
        RunFile.InterPart n = c.interNode();
        if (n != null) {
            ObjectNode inter = o.putObject("inter_node");
            if (n.link() != null) inter.put("link", n.link());
            if (n.nicsPerNode() != null) inter.put("nics_per_node", n.nicsPerNode());
            if (n.busbwGbps() != null) inter.put("busbw_gbps", n.busbwGbps());
            if (n.sharp() != null) inter.put("sharp", n.sharp());
        }
        return o;
    }

    /** An enum as the run file spells it. */
    public static String key(Enum<?> e) {
        // an order is written as its dimensions, innermost first ("tp-cp-pp-dp")
        return e instanceof RankOrder o ? o.key() : e.name().toLowerCase(java.util.Locale.ROOT);
    }

    static ObjectNode model(Model m) {
        ObjectNode o = F.objectNode();
        o.put("name", m.name());
        o.put("layers", m.layers());
        o.put("hidden", m.hidden());
        o.put("heads", m.heads());
        o.put("kv_heads", m.kvHeads());
        if (m.headDim() != m.hidden() / m.heads()) o.put("head_dim", m.headDim());
        o.put("ffn_hidden", m.ffnHidden());
        o.put("vocab", m.vocab());
        o.put("gated_mlp", m.gatedMlp());
        o.put("tied_embeddings", m.tiedEmbeddings());
        o.put("qkv_bias", m.qkvBias());
        o.put("mlp_ratio", m.mlpRatio());
        o.put("norm", key(m.norm()));
        o.put("position_embedding", key(m.positionEmbedding()));
        if (m.moe() != null) {
            ObjectNode moe = o.putObject("moe");
            moe.put("experts", m.moe().experts());
            moe.put("top_k", m.moe().topK());
            moe.put("ffn_hidden", m.moe().ffnHidden());
            moe.put("every", m.moe().every());
            if (m.moe().firstDense() > 0) moe.put("first_dense", m.moe().firstDense());
            if (m.moe().sharedExperts() > 0) {
                moe.put("shared_experts", m.moe().sharedExperts());
                moe.put("shared_ffn_hidden", m.moe().sharedFfnHidden());
            }
            if (m.moe().capacityFactor() > 0) moe.put("capacity_factor", m.moe().capacityFactor());
            if (m.moe().loadImbalance() != 1) moe.put("load_imbalance", m.moe().loadImbalance());
        }
        return o;
    }

    static ObjectNode parallel(RunFile.ParallelPart p) {
        ObjectNode o = F.objectNode();
        putInt(o, "tp", p.tp());
        putInt(o, "pp", p.pp());
        putInt(o, "dp", p.dp());
        putInt(o, "cp", p.cp());
        putInt(o, "ep", p.ep());
        putInt(o, "etp", p.etp());
        if (p.bucketMb() != null) o.put("bucket_mb", p.bucketMb());
        putBool(o, "sequence_parallel", p.sequenceParallel());
        putInt(o, "zero_stage", p.zeroStage());
        putInt(o, "zero_group_size", p.zeroGroupSize());
        putInt(o, "virtual_stages", p.virtualStages());
        putBool(o, "overlap_grad_reduce", p.overlapGradReduce());
        putBool(o, "overlap_param_gather", p.overlapParamGather());
        putBool(o, "overlap_tp_comm", p.overlapTpComm());
        putBool(o, "grad_reduce_every_micro_batch", p.gradReduceEveryMicroBatch());
        if (p.moeDispatcher() != null) o.put("moe_dispatcher", p.moeDispatcher().key());
        putBool(o, "moe_a2a_overlap", p.moeA2aOverlap());
        if (p.rankOrder() != null) o.put("rank_order", p.rankOrder().key());
        return o;
    }

    static ObjectNode training(RunFile.TrainingPart t) {
        ObjectNode o = F.objectNode();
        putInt(o, "seq_len", t.seqLen());
        putInt(o, "micro_batch_size", t.microBatchSize());
        putInt(o, "micro_batches", t.microBatches());
        if (t.recompute() != null) o.put("recompute", t.recompute().key());
        if (t.recomputeFraction() != null) o.put("recompute_fraction", t.recomputeFraction());
        if (t.precision() != null) o.put("precision", t.precision().key());
        if (t.gradReducePrecision() != null) o.put("grad_reduce_precision", t.gradReducePrecision().key());
        putBool(o, "flash_attention", t.flashAttention());
        if (t.attentionKernel() != null) o.put("attention_kernel", key(t.attentionKernel()));
        if (t.elementwiseKernels() != null) o.put("elementwise_kernels", key(t.elementwiseKernels()));
        putBool(o, "cuda_graphs", t.cudaGraphs());
        if (t.fp8Recipe() != null) o.put("fp8_recipe", key(t.fp8Recipe()));
        if (t.optimizerKernel() != null) o.put("optimizer_kernel", key(t.optimizerKernel()));
        Offload off = t.offload();
        if (off != null && off.any()) o.set("offload", offload(off));
        Implementation i = t.implementation();
        if (i != null && !i.framework().key().equals(Frameworks.DEFAULT)) {
            o.put("framework", i.framework().key());
            if (i.framework().version() != null) o.put("framework_version", i.framework().version());
        }
        return o;
    }

    /** training.offload as the run file writes it: the tiers that are not none, the ratio and path when set. */
    public static ObjectNode offload(Offload off) {
        ObjectNode x = F.objectNode();
        if (off.optimizer() != Offload.Tier.NONE) x.put("optimizer", off.optimizer().key());
        if (off.masterWeights() != Offload.Tier.NONE) x.put("master_weights", off.masterWeights().key());
        if (off.gradients() != Offload.Tier.NONE) x.put("gradients", off.gradients().key());
        if (off.parameters() != Offload.Tier.NONE) x.put("parameters", off.parameters().key());
        if (off.activations() != Offload.Tier.NONE) x.put("activations", off.activations().key());
        if (off.ratio() != 1.0) x.put("ratio", off.ratio());
        if (off.nvmePath() != null) x.put("nvme_path", off.nvmePath());
        if (off.hostOptimizer() != null) x.put("host_optimizer", off.hostOptimizer());
        if (off.hostThreads() != null) x.put("host_threads", off.hostThreads());
        if (off.bindCores() != null) x.put("bind_cores", off.bindCores());
        return x;
    }

    private static void putInt(ObjectNode o, String key, Integer v) { if (v != null) o.put(key, v); }

    private static void putBool(ObjectNode o, String key, Boolean v) { if (v != null) o.put(key, v); }
}
