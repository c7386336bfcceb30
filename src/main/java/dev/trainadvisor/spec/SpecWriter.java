package dev.trainadvisor.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Map;

/**
 * Writes a validated run back as a run-file tree (without metrics). A what-if edits this tree
 * with a change in run-file terms and reads it again, so every change goes through the same
 * validation as the user's own file.
 */
public final class SpecWriter {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private SpecWriter() {}

    public static ObjectNode write(Cluster cluster, RunMetrics run) {
        ObjectNode root = F.objectNode();
        root.put("name", run.name());
        root.set("cluster", cluster(cluster));
        root.set("model", model(run.model()));
        root.set("parallel", parallel(run.parallel()));
        root.set("training", training(run.training()));
        return root;
    }

    static ObjectNode cluster(Cluster c) {
        ObjectNode o = F.objectNode();
        o.put("name", c.name());
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
        if (c.nvlinkDomain() != c.gpusPerNode()) o.put("nvlink_domain", c.nvlinkDomain());
        if (!"none".equals(c.intraNode().key())) {
            ObjectNode intra = o.putObject("intra_node");
            intra.put("link", c.intraNode().key());
            HostPlacement h = c.intraNode().host();
            if (h != null) {
                // what the run file said; defaults are derived again, so that a what-if on the link re-derives them
                if (h.socketsGiven()) intra.put("sockets", h.sockets());
                if (h.transportGiven()) intra.put("transport", h.transport().key());
                if (h.gpuPath() != null) intra.put("gpu_path", h.gpuPath());
            }
            if (c.intraNode().busbwMeasured()) intra.put("busbw_gbps", c.intraNode().busbwGbps());
        }
        if (c.interNode() != null) {
            ObjectNode inter = o.putObject("inter_node");
            inter.put("link", c.interNode().key());
            inter.put("nics_per_node", c.interNode().nicsPerNode());
            if (!Double.isNaN(c.interNode().busbwGbps())) inter.put("busbw_gbps", c.interNode().busbwGbps());
            if (c.interNode().sharp()) inter.put("sharp", true);
        }
        return o;
    }

    /** An enum as the run file spells it. */
    public static String key(Enum<?> e) { return e.name().toLowerCase(java.util.Locale.ROOT); }

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

    static ObjectNode parallel(Parallel p) {
        ObjectNode o = F.objectNode();
        o.put("tp", p.tp());
        o.put("pp", p.pp());
        o.put("dp", p.dp());
        o.put("cp", p.cp());
        o.put("ep", p.ep());
        if (p.etp() != p.tp()) o.put("etp", p.etp());
        if (p.bucketMb() != Parallel.DEFAULT_BUCKET_MB) o.put("bucket_mb", p.bucketMb());
        o.put("sequence_parallel", p.sequenceParallel());
        o.put("zero_stage", p.zeroStage());
        o.put("zero_group_size", p.zeroGroupSize());
        o.put("virtual_stages", p.virtualStages());
        o.put("overlap_grad_reduce", p.overlapGradReduce());
        o.put("overlap_param_gather", p.overlapParamGather());
        o.put("overlap_tp_comm", p.overlapTpComm());
        return o;
    }

    static ObjectNode training(Training t) {
        ObjectNode o = F.objectNode();
        o.put("seq_len", t.seqLen());
        o.put("micro_batch_size", t.microBatchSize());
        o.put("micro_batches", t.microBatches());
        o.put("recompute", t.recompute().key());
        if (t.recompute() == Recompute.FULL && t.recomputeFraction() != 1.0) o.put("recompute_fraction", t.recomputeFraction());
        o.put("precision", t.precision().key());
        o.put("grad_reduce_precision", t.gradReducePrecision().key());
        o.put("flash_attention", t.flashAttention());
        if (t.flashAttention() && t.attentionKernel() != AttentionKernel.FA2
                || !t.flashAttention() && t.attentionKernel() == AttentionKernel.MATH) o.put("attention_kernel", key(t.attentionKernel()));
        if (t.elementwiseKernels() != ElementwiseKernels.FUSED) o.put("elementwise_kernels", key(t.elementwiseKernels()));
        if (t.cudaGraphs()) o.put("cuda_graphs", true);
        if (t.precision() == Precision.FP8 && t.fp8Recipe() != Fp8Recipe.DELAYED) o.put("fp8_recipe", key(t.fp8Recipe()));
        return o;
    }

    /**
     * Applies a change given as dotted run-file paths to values (null removes the field). A change to the
     * GPU count keeps dp derived: dp is dropped so that the reader derives it again.
     */
    /**
     * {@code change} without the removals of fields {@code tree} does not have: what applying it actually changes,
     * in its order. A remedy that clears a transport the run never named shows no such removal.
     */
    public static Map<String, Object> effective(ObjectNode tree, Map<String, Object> change) {
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, Object> e : change.entrySet()) {
            if (e.getValue() == null) {
                JsonNode node = tree;
                for (String part : e.getKey().split("\\.")) node = node == null ? null : node.get(part);
                if (node == null) continue;
            }
            out.put(e.getKey(), e.getValue());
        }
        return java.util.Collections.unmodifiableMap(out);
    }

    public static ObjectNode apply(ObjectNode tree, Map<String, Object> change) {
        ObjectNode out = tree.deepCopy();
        for (Map.Entry<String, Object> e : change.entrySet()) {
            String[] parts = e.getKey().split("\\.");
            ObjectNode node = out;
            for (int i = 0; i < parts.length - 1; i++) {
                JsonNode next = node.get(parts[i]);
                if (next == null || !next.isObject()) next = node.putObject(parts[i]);
                node = (ObjectNode) next;
            }
            String leaf = parts[parts.length - 1];
            if (e.getValue() == null) node.remove(leaf);
            else node.set(leaf, SpecReader.JSON.valueToTree(e.getValue()));
            if (e.getKey().equals("cluster.nodes") || e.getKey().equals("cluster.gpus_per_node")) {
                JsonNode par = out.get("parallel");
                if (par instanceof ObjectNode po && !change.containsKey("parallel.dp")) {
                    po.remove("dp");
                    if (!change.containsKey("parallel.zero_group_size")) po.remove("zero_group_size");
                }
            }
        }
        return out;
    }
}
