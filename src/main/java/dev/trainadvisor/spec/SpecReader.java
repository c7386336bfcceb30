package dev.trainadvisor.spec;

import dev.trainadvisor.input.InputFiles;
import dev.trainadvisor.input.SpecException;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads and validates a run file (JSON or YAML, snake_case keys, DESIGN.md section 3) into a
 * {@link RunSpec}. Every error names the file, the dotted field and what was expected.
 */
public final class SpecReader {
    /** For building run-file trees elsewhere (the batch command's runs.yaml). */
    public static final ObjectMapper JSON_MAPPER = new ObjectMapper();

    static final ObjectMapper JSON = new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private static final Set<String> TOP = Set.of("name", "cluster", "model", "parallel", "training", "metrics", "log",
            "nccl_tests", "topology", "config");
    private static final Set<String> CLUSTER = Set.of("preset", "name", "description", "source", "notes", "gpu", "nodes",
            "gpus_per_node", "intra_node", "inter_node", "nvlink_domain");
    private static final Set<String> INTRA = Set.of("link", "busbw_gbps", "nccl_tests", "sockets", "transport", "gpu_path");
    private static final Set<String> INTER = Set.of("link", "nics_per_node", "busbw_gbps", "nccl_tests", "sharp");
    private static final Set<String> GPU_INLINE = Set.of("key", "name", "peak_tflops", "hbm_gb", "hbm_gbps",
            "mamf_tflops_bf16", "attention_fraction", "sms", "source", "architecture");
    private static final Set<String> MODEL = Set.of("name", "display_name", "layers", "hidden", "heads", "kv_heads",
            "ffn_hidden", "vocab", "gated_mlp", "tied_embeddings", "qkv_bias", "moe", "mlp_ratio", "position_embedding",
            "norm", "max_seq_len", "params_b", "source", "notes", "head_dim");
    private static final Set<String> MOE = Set.of("experts", "top_k", "ffn_hidden", "every", "first_dense",
            "shared_experts", "shared_ffn_hidden", "capacity_factor", "load_imbalance");
    private static final Set<String> PARALLEL = Set.of("tp", "pp", "dp", "cp", "ep", "sequence_parallel",
            "zero_stage", "zero_group_size", "virtual_stages", "overlap_grad_reduce", "overlap_param_gather",
            "overlap_tp_comm", "etp", "bucket_mb");
    private static final Set<String> TRAINING = Set.of("seq_len", "micro_batch_size", "micro_batches", "recompute",
            "recompute_fraction", "precision", "grad_reduce_precision", "flash_attention", "attention_kernel",
            "elementwise_kernels", "cuda_graphs", "fp8_recipe");
    private static final Set<String> METRICS = Metric.keys();

    private final Catalog catalog;

    public SpecReader(Catalog catalog) { this.catalog = catalog; }

    public SpecReader() { this(Catalog.builtIn()); }

    /** Reads a run file; the format follows the extension (.json, or .yaml/.yml). */
    public RunSpec read(Path file) {
        return read(parse(file), file.toString());
    }

    /** Parses a JSON or YAML file into a tree, turning I/O and syntax errors into {@link SpecException}. */
    public static JsonNode parse(Path file) {
        String name = file.toString();
        String lower = name.toLowerCase(Locale.ROOT);
        ObjectMapper mapper = lower.endsWith(".yaml") || lower.endsWith(".yml") ? YAML : JSON;
        String text = InputFiles.readUtf8(file, "a JSON or YAML file");
        try {
            JsonNode tree = mapper.readTree(text);
            if (tree == null || tree.isMissingNode() || tree.isNull())
                throw new SpecException(name, null, "a run file with at least cluster, model and training; the file is empty");
            return tree;
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr()
                    + ", column " + e.getLocation().getColumnNr();
            if (e.getOriginalMessage().startsWith("Trailing token"))
                throw new SpecException(name, null, (mapper == YAML ? "a single YAML document; another document or value"
                        : "a single JSON object; more content") + " follows" + where);
            String what = mapper == YAML ? "valid YAML" : "valid JSON";
            throw new SpecException(name, fieldOf(e), what + ": " + e.getOriginalMessage() + where);
        }
    }

    /** The dotted path where the parser stood when it failed, e.g. "parallel.tp", or null at the top. */
    private static String fieldOf(JsonProcessingException e) {
        if (!(e.getProcessor() instanceof JsonParser p)) return null;
        java.util.Deque<String> parts = new java.util.ArrayDeque<>();
        for (JsonStreamContext c = p.getParsingContext(); c != null; c = c.getParent()) {
            if (c.inObject() && c.getCurrentName() != null) parts.addFirst(c.getCurrentName());
            else if (c.inArray()) parts.addFirst("[" + Math.max(0, c.getCurrentIndex()) + "]");
        }
        return parts.isEmpty() ? null : String.join(".", parts).replace(".[", "[");
    }

    /** The keys by which a run file names other files; the assembling reader (RunFiles, one layer up) reads those. */
    public static final Set<String> NAMED_FILES = Set.of("log", "config", "nccl_tests", "topology");

    /**
     * Validates a parsed run file that names no other file (no log, config, nccl_tests or topology, which the
     * assembling reader, RunFiles one layer up, reads and merges in first); {@code file} is only used in error messages.
     */
    public RunSpec read(JsonNode tree, String file) {
        return read(tree, file, false);
    }

    /**
     * As {@link #read(JsonNode, String)}, for a tree the assembling reader built.
     *
     * @param gpuPathFromTopology the cluster's {@code intra_node.gpu_path} came from an {@code nvidia-smi topo -m} file:
     *                            a path of another kind than the link is then left to the assembling reader, whose
     *                            message names that file, rather than reported as a field the user wrote
     */
    public RunSpec read(JsonNode tree, String file, boolean gpuPathFromTopology) {
        Fields top = new Fields(file, "", tree);
        top.allowOnly(TOP);
        for (String key : new java.util.TreeSet<>(NAMED_FILES))
            if (top.has(key)) throw namesAFile(top, key);
        String name = top.string("name", null);
        if (!top.has("cluster")) throw top.error("cluster", "a cluster (a preset name or its fields) is required");
        if (!top.has("model")) throw top.error("model", "a model (a preset name or its fields) is required");
        if (!top.has("training")) throw top.error("training", "the training block (seq_len, micro_batch_size, ...) is required");
        Cluster cluster = cluster(top, gpuPathFromTopology);
        Model model = model(top);
        Training training = training(top.object("training"));
        Parallel parallel = parallel(top.object("parallel"), cluster, model, training);
        Measurements measured = metrics(top.object("metrics"));
        if (training.precision() == Precision.FP8 && !cluster.gpu().hasFp8())
            throw top.error("training.precision", "a precision the GPU supports: " + cluster.gpu().key()
                    + " has no fp8 tensor cores");
        if (training.precision() == Precision.BF16 && cluster.gpu().peakTflops().get(Precision.BF16) == null)
            throw top.error("training.precision", "a precision the GPU supports: " + cluster.gpu().key()
                    + " has no bf16 tensor cores (use fp16)");
        String arch = cluster.gpu().architecture();
        if (training.attentionKernel() == AttentionKernel.FA3 && !"Hopper".equals(arch))
            throw top.error("training.attention_kernel", "a kernel the GPU runs: FlashAttention-3 needs a Hopper GPU, "
                    + cluster.gpu().key() + " is " + (arch == null || arch.isEmpty() ? "of unknown architecture" : arch));
        if (training.precision() == Precision.FP8 && training.fp8Recipe() == Fp8Recipe.MXFP8 && !"Blackwell".equals(arch))
            throw top.error("training.fp8_recipe", "a recipe the GPU runs: MXFP8 needs Blackwell's block-scaled tensor cores, "
                    + cluster.gpu().key() + " is " + (arch == null || arch.isEmpty() ? "of unknown architecture" : arch));
        String runName = name != null ? name : stem(file);
        return new RunSpec(runName, cluster, new RunMetrics(runName, model, parallel, training, measured));
    }

    /** A file named in a tree that reached this reader unassembled: a caller's error, still reported as bad input. */
    private static SpecException namesAFile(Fields f, String key) {
        return f.error(key, "no file named here: this reader takes run files that name no log, config, nccl-tests output "
                + "or topology; read the run file with RunFiles (package assemble), which reads and merges them");
    }

    private static String stem(String file) {
        if (file == null) return "run";
        String n = Path.of(file).getFileName().toString();
        int dot = n.lastIndexOf('.');
        return dot > 0 ? n.substring(0, dot) : n;
    }

    // ---------------------------------------------------------------- cluster

    private Cluster cluster(Fields top, boolean fromTopology) {
        JsonNode raw = top.raw("cluster");
        JsonNode merged;
        if (raw.isTextual()) {
            merged = Presets.find(Presets.clusters(), raw.asText(), "cluster", top.file(), "cluster");
        } else if (raw.isObject()) {
            merged = raw;
            if (raw.has("preset")) {
                if (!raw.get("preset").isTextual()) throw top.error("cluster.preset", "a cluster preset name");
                JsonNode preset = Presets.find(Presets.clusters(), raw.get("preset").asText(), "cluster",
                        top.file(), "cluster.preset");
                merged = JsonTrees.deepMerge((ObjectNode) preset.deepCopy(), raw);
                ((ObjectNode) merged).remove("preset");
            }
        } else {
            throw top.error("cluster", "a preset name or an object, got " + Fields.describe(raw));
        }
        Fields c = new Fields(top.file(), "cluster", merged);
        c.allowOnly(CLUSTER);
        Gpu gpu = gpu(c);
        int nodes = c.positiveInt("nodes", 1, Bounds.GPUS);
        int perNode = c.requirePositiveInt("gpus_per_node", Bounds.GPUS_PER_NODE);
        if ((long) nodes * perNode > Bounds.GPUS)
            throw c.error("nodes", "nodes x gpus_per_node at most " + Bounds.GPUS + " GPUs, got " + nodes + " x " + perNode
                    + " = " + (long) nodes * perNode);
        Fields intra = c.object("intra_node");
        intra.allowOnly(INTRA);
        IntraNodeLink link;
        if (perNode == 1 && !intra.has("link")) {
            link = new IntraNodeLink("none", LinkKind.NONE, 0, Double.POSITIVE_INFINITY, 0, false, "single GPU per node",
                    HostPlacement.CATALOGUE);
        } else {
            if (!intra.has("link")) throw intra.error("link", "the intra-node link (" + String.join(", ",
                    catalog.links().keySet()) + ") is required when a node holds more than one GPU");
            link = place(catalog.link(intra.requireString("link"), c.file(), "cluster.intra_node.link"), intra, gpu, perNode,
                    fromTopology);
            double measured = measuredBusbw(intra);
            if (!Double.isNaN(measured)) link = link.withMeasuredBusbw(measured);
        }
        Fields inter = c.object("inter_node");
        inter.allowOnly(INTER);
        Network network = null;
        if (inter.present() && inter.has("link")) {
            Catalog.NetworkEntry n = catalog.network(inter.requireString("link"), c.file(), "cluster.inter_node.link");
            int nics = inter.positiveInt("nics_per_node", n.defaultNicsPerNode(), Bounds.SMALL_COUNT);
            double busbw = measuredBusbw(inter);
            network = new Network(n.key(), n.lineRateGbitS(), n.efficiency(), n.alphaUs(), nics, busbw, n.source(),
                    inter.bool("sharp", false));
        }
        if (nodes > 1 && network == null)
            throw c.error("inter_node.link", "the network between nodes (" + String.join(", ",
                    catalog.networks().keySet()) + ") is required when nodes > 1");
        String name = c.string("name", gpu.key() + " x" + nodes * perNode);
        int domain = c.positiveInt("nvlink_domain", perNode, Bounds.GPUS);
        if (domain != perNode) {
            if (domain % perNode != 0)
                throw c.error("nvlink_domain", "a multiple of gpus_per_node (" + perNode + "): the GPUs of whole nodes joined by"
                        + " one NVLink fabric, got " + domain);
            if (!link.isNvlink())
                throw c.error("nvlink_domain", "an NVLink intra-node link to join nodes: " + link.key() + " is "
                        + link.kind().key() + ", which stays inside a node");
        }
        return new Cluster(name, gpu, nodes, perNode, link, network, domain);
    }

    private static final java.util.regex.Pattern PCIE_GEN = java.util.regex.Pattern.compile("PCIe(\\d)");

    /**
     * The link placed on the host: CPU sockets, the worst path between two GPUs, the transport NCCL uses, and the bus
     * bandwidth that follows (knowledge-base/transports.json). What the run file says wins; else the path
     * {@code nvidia-smi topo -m} shows ({@code gpu_path}, which a {@code topology:} file fills); else the default a
     * user expects: a node of 8 or more PCIe GPUs is a dual-socket server with four under each socket, rings cross the
     * socket link, and NCCL does not use peer-to-peer across it.
     */
    private IntraNodeLink place(IntraNodeLink link, Fields intra, Gpu gpu, int perNode, boolean fromTopology) {
        String path = null;
        if (intra.has("gpu_path")) {
            String p = intra.requireString("gpu_path").toUpperCase(Locale.ROOT);
            if (p.equals("SOC")) p = "SYS";
            if (p.matches("NV\\d+")) p = "NV";
            if (!HostPlacement.PATHS.contains(p))
                throw intra.error("gpu_path", "the worst path between two GPUs as nvidia-smi topo -m prints it, one of "
                        + HostPlacement.PATHS + ", got '" + intra.requireString("gpu_path") + "'");
            if (p.equals("NV") != link.isNvlink()) {
                // from a topology: file, checkTopology names the file's matrix; from the run file, say it here
                if (!fromTopology) throw intra.error("gpu_path", "a path of the link's kind: " + link.key() + " is "
                        + link.kind().key() + ", and gpu_path " + p + (p.equals("NV") ? " is NVLink" : " is PCIe"));
            } else {
                path = p;
            }
        }
        boolean pcie = link.kind() == LinkKind.PCIE;
        String why;
        int sockets;
        if (intra.has("sockets")) {
            sockets = intra.positiveInt("sockets", 1);
            if (sockets > 2) throw intra.error("sockets", "1 or 2 CPU sockets, got " + sockets);
            why = "sockets from the run file";
        } else if (path != null) {
            sockets = path.equals("SYS") ? 2 : 1;
            why = "gpu_path " + path;
        } else {
            sockets = pcie && perNode >= 8 ? 2 : 1;
            why = sockets == 2 ? "default: 8 or more PCIe GPUs sit under 2 CPU sockets" : "default: one CPU socket";
        }
        Transport transport;
        if (intra.has("transport")) {
            transport = intra.choice("transport", Transport.P2P, Transport.class);
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
        return link.on(new HostPlacement(sockets, path, transport, t.interference().getOrDefault(transport, 0.0), why,
                intra.has("sockets"), intra.has("transport"), busbw), busbw);
    }

    /**
     * A link's measured bus bandwidth, {@code busbw_gbps}; NaN when not given. (An nccl-tests output named by {@code
     * nccl_tests} has become {@code busbw_gbps} in the assembling reader.)
     */
    private static double measuredBusbw(Fields f) {
        if (f.has("nccl_tests")) throw namesAFile(f, "nccl_tests");
        if (f.has("busbw_gbps")) return f.positiveDouble("busbw_gbps", 0);
        return Double.NaN;
    }

    private Gpu gpu(Fields c) {
        if (!c.has("gpu")) throw c.error("gpu", "a GPU (a catalogue key such as " + String.join(", ",
                catalog.gpus().keySet()) + ", or {peak_tflops: {bf16: ..}, hbm_gb, hbm_gbps}) is required");
        JsonNode g = c.raw("gpu");
        if (g.isTextual()) return catalog.gpu(g.asText(), c.file(), "cluster.gpu");
        if (!g.isObject()) throw c.error("gpu", "a catalogue key or an object, got " + Fields.describe(g));
        Fields f = c.object("gpu");
        f.allowOnly(GPU_INLINE);
        Fields peak = f.object("peak_tflops");
        if (!peak.present()) throw f.error("peak_tflops", "an object of dense peaks per precision, e.g. {bf16: 312}");
        Map<Precision, Double> peaks = new EnumMap<>(Precision.class);
        for (Precision p : Precision.values()) {
            if (peak.has(p.key())) peaks.put(p, peak.positiveDouble(p.key(), 0));
        }
        Set<String> precisions = new java.util.HashSet<>();
        for (Precision p : Precision.values()) precisions.add(p.key());
        peak.allowOnly(precisions);
        if (!peaks.containsKey(Precision.BF16) && !peaks.containsKey(Precision.FP16))
            throw peak.error("bf16", "a positive number (dense bf16 or fp16 TFLOPS) is required");
        double hbmGb = f.positiveDouble("hbm_gb", Double.NaN);
        if (Double.isNaN(hbmGb)) throw f.error("hbm_gb", "the GPU memory in GB is required");
        double hbmGbps = f.positiveDouble("hbm_gbps", Double.NaN);
        if (Double.isNaN(hbmGbps)) throw f.error("hbm_gbps", "the memory bandwidth in GB/s is required");
        String key = f.string("key", f.string("name", "custom-gpu"));
        double attention = f.positiveDouble("attention_fraction", Double.NaN);
        if (attention > 1) throw f.error("attention_fraction", "a fraction of peak between 0 and 1, got " + attention);
        String arch = f.string("architecture", "");
        java.util.Set<String> known = new java.util.TreeSet<>();
        for (Catalog.Entry<Gpu> e : Catalog.builtIn().gpus().values()) known.add(e.value().architecture());
        known.remove("");
        if (!arch.isEmpty() && !known.contains(arch))
            throw f.error("architecture", "one of " + String.join(", ", known) + " (as gpus.json names them), got '"
                    + arch + "'");
        return new Gpu(key, peaks, hbmGb, hbmGbps, f.positiveDouble("mamf_tflops_bf16", Double.NaN), attention,
                f.positiveInt("sms", 0, Bounds.SMALL_COUNT), arch, null, f.string("source", "given in " + c.file()), 0, true);
    }

    // ---------------------------------------------------------------- model

    private Model model(Fields top) {
        JsonNode raw = top.raw("model");
        Fields m;
        if (raw.isTextual()) {
            JsonNode preset = Presets.find(Presets.models(), raw.asText(), "model", top.file(), "model");
            m = new Fields(top.file(), "model", preset);
        } else if (raw.isObject()) {
            m = top.object("model");
        } else {
            throw top.error("model", "a preset name (" + String.join(", ", Presets.models().keySet())
                    + ") or an object, got " + Fields.describe(raw));
        }
        m.allowOnly(MODEL, Set.of("moe"));
        // bounded before anything loops over layers or multiplies sizes (Bounds says why each is generous)
        int layers = m.requirePositiveInt("layers", Bounds.LAYERS);
        int hidden = m.requirePositiveInt("hidden", Bounds.HIDDEN);
        int heads = m.requirePositiveInt("heads", Bounds.HEADS);
        int kvHeads = m.positiveInt("kv_heads", heads, Bounds.HEADS);
        int ffn = m.requirePositiveInt("ffn_hidden", Bounds.FFN_HIDDEN);
        int vocab = m.requirePositiveInt("vocab", Bounds.VOCAB);
        if (!m.has("head_dim") && hidden % heads != 0)
            throw m.error("heads", "a divisor of hidden (" + hidden + "), or head_dim set, got " + heads);
        int headDim = m.positiveInt("head_dim", hidden / heads, Bounds.HEADS);
        if (heads % kvHeads != 0) throw m.error("kv_heads", "a divisor of heads (" + heads + "), got " + kvHeads);
        Moe moe = null;
        if (m.has("moe")) {
            Fields f = m.object("moe");
            f.allowOnly(MOE);
            int experts = f.requirePositiveInt("experts", Bounds.EXPERTS);
            int topK = f.requirePositiveInt("top_k", Bounds.EXPERTS);
            if (topK > experts) throw f.error("top_k", "at most experts (" + experts + "), got " + topK);
            int firstDense = f.nonNegativeInt("first_dense", 0, layers - 1);
            int shared = f.nonNegativeInt("shared_experts", 0, experts);
            int sharedFfn = f.positiveInt("shared_ffn_hidden", f.positiveInt("ffn_hidden", ffn, Bounds.FFN_HIDDEN),
                    Bounds.FFN_HIDDEN);
            double capacity = f.nonNegativeDouble("capacity_factor", 0);
            if (capacity > 0 && capacity < 1)
                throw f.error("capacity_factor", "at least 1 (each expert's share of the tokens times it), or 0 for "
                        + "dropless routing, got " + capacity);
            double imbalance = f.positiveDouble("load_imbalance", 1.0);
            if (imbalance < 1)
                throw f.error("load_imbalance", "at least 1 (the busiest rank's routed tokens over the mean), got " + imbalance);
            if (imbalance > 1 && capacity > 0)
                throw f.error("load_imbalance", "1 with capacity_factor " + capacity + " (a capacity drops what exceeds it), got "
                        + imbalance);
            moe = new Moe(experts, topK, f.positiveInt("ffn_hidden", ffn, Bounds.FFN_HIDDEN),
                    f.positiveInt("every", 1, Bounds.LAYERS), firstDense,
                    shared, sharedFfn, capacity, imbalance);
        }
        String name = m.string("name", raw.isTextual() ? raw.asText() : "custom-model");
        return new Model(name, layers, hidden, heads, kvHeads, ffn, vocab, m.bool("gated_mlp", true),
                m.bool("tied_embeddings", false), m.bool("qkv_bias", false), moe,
                m.positiveDouble("mlp_ratio", (double) ffn / hidden),
                m.choice("norm", Norm.RMSNORM, Norm.class),
                m.choice("position_embedding", PositionEmbedding.ROPE, PositionEmbedding.class), headDim);
    }

    // ---------------------------------------------------------------- training and parallel

    private Training training(Fields t) {
        t.allowOnly(TRAINING);
        int seq = t.requirePositiveInt("seq_len", Bounds.SEQ_LEN);
        int mbs = t.requirePositiveInt("micro_batch_size", Bounds.MICRO_BATCH_SIZE);
        int mb = t.positiveInt("micro_batches", 1, Bounds.MICRO_BATCHES);
        Recompute rc = t.choice("recompute", Recompute.NONE, Recompute.class, Recompute::parse);
        Precision p = t.choice("precision", Precision.BF16, Precision.class, Precision::parse);
        Precision gr = t.choice("grad_reduce_precision", p == Precision.FP8 ? Precision.BF16 : p,
                Precision.class, Precision::parse);
        double fraction = t.positiveDouble("recompute_fraction", 1.0);
        if (fraction > 1) throw t.error("recompute_fraction", "the share of layers that recompute, from 0 to 1, got " + fraction);
        if (t.has("recompute_fraction") && rc != Recompute.FULL)
            throw t.error("recompute_fraction", "recompute: full with it (the share of layers that recompute in full); recompute is "
                    + rc.key());
        boolean flash = t.bool("flash_attention", true);
        AttentionKernel kernel = t.choice("attention_kernel", flash ? AttentionKernel.FA2 : AttentionKernel.UNFUSED,
                AttentionKernel.class);
        if (kernel.flash() != flash)
            throw t.error("attention_kernel", flash
                    ? "a fused kernel (fa2, fa1, triton, fa3, cudnn) with flash_attention true; " + kernel.name().toLowerCase(Locale.ROOT)
                            + " is attention without flash: flash_attention false with it"
                    : "unfused or math with flash_attention false (the kernel of fused attention needs flash_attention: true)");
        Fp8Recipe recipe = t.choice("fp8_recipe", Fp8Recipe.DELAYED, Fp8Recipe.class);
        if (t.has("fp8_recipe") && p != Precision.FP8)
            throw t.error("fp8_recipe", "precision: fp8 with it (the recipe scales fp8 tensors); precision is " + p.key());
        return new Training(seq, mbs, mb, rc, p, gr, flash, fraction, kernel,
                t.choice("elementwise_kernels", ElementwiseKernels.FUSED, ElementwiseKernels.class),
                t.bool("cuda_graphs", false), recipe);
    }

    private Parallel parallel(Fields p, Cluster cluster, Model model, Training training) {
        p.allowOnly(PARALLEL);
        int gpus = cluster.gpus();
        // every degree divides the GPUs, so none exceeds their bound; products are formed in long
        int tp = p.positiveInt("tp", 1, Bounds.GPUS);
        int pp = p.positiveInt("pp", 1, Bounds.GPUS);
        int cp = p.positiveInt("cp", 1, Bounds.GPUS);
        int ep = p.positiveInt("ep", 1, Bounds.GPUS);
        long mp = (long) tp * pp * cp;
        if (gpus % mp != 0)
            throw p.error("tp", "tp*pp*cp (" + tp + "*" + pp + "*" + cp + "=" + mp + ") to divide the cluster's "
                    + gpus + " GPUs");
        int dp;
        if (p.has("dp")) {
            dp = p.positiveInt("dp", 0, Bounds.GPUS);
            if (dp * mp != gpus)
                throw p.error("dp", "tp*pp*cp*dp to equal the cluster's " + gpus + " GPUs (" + cluster.nodes()
                        + " nodes x " + cluster.gpusPerNode() + "), so dp=" + gpus / mp + "; got dp=" + dp);
        } else {
            dp = (int) (gpus / mp);
        }
        if (model.heads() % tp != 0)
            throw p.error("tp", "a divisor of the model's " + model.heads() + " attention heads, got tp=" + tp);
        if (model.kvHeads() % tp != 0 && tp % model.kvHeads() != 0)
            throw p.error("tp", "a divisor or multiple of the model's " + model.kvHeads() + " KV heads, got tp=" + tp);
        int vs = p.positiveInt("virtual_stages", 1, Bounds.VIRTUAL_STAGES);
        if (vs > 1 && pp == 1) throw p.error("virtual_stages", "1 when pp is 1 (interleaving needs a pipeline)");
        if (model.layers() < (long) pp * vs)
            throw p.error("pp", "pp*virtual_stages at most the model's " + model.layers() + " layers, got "
                    + pp + "*" + vs);
        if (training.seqLen() % cp != 0)
            throw p.error("cp", "a divisor of seq_len (" + training.seqLen() + "), got cp=" + cp);
        int etp = p.positiveInt("etp", tp, Bounds.GPUS);
        if (!model.isMoe() && p.has("etp") && etp != tp)
            throw p.error("etp", "tp (" + tp + ") for a dense model (expert tensor parallelism needs moe), got " + etp);
        if (ep > 1 && !model.isMoe()) throw p.error("ep", "1 for a dense model (expert parallelism needs moe), got " + ep);
        if (model.isMoe()) {
            if (model.moe().experts() % ep != 0)
                throw p.error("ep", "a divisor of the " + model.moe().experts() + " experts, got " + ep);
            if (model.moe().ffnHidden() % etp != 0)
                throw p.error("etp", "a divisor of the experts' ffn_hidden (" + model.moe().ffnHidden() + "), got " + etp);
            // Megatron-Core folds the experts' ETP x EP over the attention's TP x CP x DP ranks of a stage
            if (((long) tp * cp * dp) % ((long) ep * etp) != 0)
                throw p.error(p.has("etp") ? "etp" : "ep", "ep*etp (" + ep + "*" + etp + "=" + (long) ep * etp
                        + ") to divide tp*cp*dp (" + (long) tp * cp * dp + "): the expert layers fold their ranks over the "
                        + "attention's (MoE parallel folding; etp defaults to tp)");
        }
        int zero = p.nonNegativeInt("zero_stage", 0, 3);
        int zg = p.positiveInt("zero_group_size", dp, Bounds.GPUS);
        if (dp % zg != 0) throw p.error("zero_group_size", "a divisor of dp (" + dp + "), got " + zg);
        return new Parallel(tp, pp, dp, cp, ep, p.bool("sequence_parallel", false), zero, zg, vs,
                p.bool("overlap_grad_reduce", true), p.bool("overlap_param_gather", false), p.bool("overlap_tp_comm", false),
                etp, p.positiveDouble("bucket_mb", Parallel.DEFAULT_BUCKET_MB));
    }

    private Measurements metrics(Fields m) {
        if (!m.present()) return Measurements.NONE;
        m.allowOnly(METRICS);
        double mfu = m.positiveDouble("mfu", Double.NaN);
        if (mfu > 1) throw m.error("mfu", "a fraction between 0 and 1 (e.g. 0.42 for 42%), got " + mfu);
        String conv = m.string("tflops_convention", null);
        if (conv != null && FlopsConvention.parse(conv) == null)
            throw m.error("tflops_convention", "one of " + FlopsConvention.keys() + ", got '" + conv + "'");
        if (m.has("tflops_per_gpu") && conv == null)
            throw m.error("tflops_convention", "how the framework counted the printed TFLOPS (one of "
                    + FlopsConvention.keys() + ") whenever tflops_per_gpu is given");
        double steps = m.nonNegativeDouble("steps", Double.NaN);
        double skipped = m.nonNegativeDouble("skipped_steps", Double.NaN);
        if (!Double.isNaN(steps) && !Double.isNaN(skipped) && skipped > steps)
            throw m.error("skipped_steps", "at most steps (" + steps + "), got " + skipped);
        return new Measurements(m.positiveDouble("tflops_per_gpu", Double.NaN), conv,
                m.positiveDouble("tokens_per_gpu_per_s", Double.NaN), m.positiveDouble("step_time_s", Double.NaN),
                m.positiveDouble("fwd_bwd_time_s", Double.NaN), m.positiveDouble("forward_time_s", Double.NaN),
                m.positiveDouble("backward_time_s", Double.NaN), m.positiveDouble("optimizer_time_s", Double.NaN),
                mfu, m.positiveDouble("peak_memory_gb", Double.NaN), steps, skipped,
                m.positiveDouble("loss_scale", Double.NaN));
    }
}
