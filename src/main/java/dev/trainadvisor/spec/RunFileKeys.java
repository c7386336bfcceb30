package dev.trainadvisor.spec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * Every key a run file may hold, with the value it takes, its default, what it means and an example: the one table
 * {@link SpecReader} takes its key sets from (a key not here is refused as unknown, with the nearest known one), and
 * from which {@code docs/run-file.md} and the editors' JSON Schema {@code docs/run-file.schema.json} are generated
 * (RunFileDocs in the tests, which fail when the committed files differ from what the table gives now).
 *
 * <p>A key's path is dotted from the file's top: {@code cluster.intra_node.link}. Its section is the object it sits in
 * ("" for the top); a key whose value is an object of further keys ({@link Section}, {@link NameOr}) is itself a
 * section of the table.
 */
public final class RunFileKeys {
    private RunFileKeys() {}

    /** What a key's value may be. */
    public sealed interface Value permits Int, Num, Bool, Text, Version, OneOf, Pattern, Section, NameOr {}

    /** An integer from {@code min} to {@code max} (an integral float such as 2.0 reads as 2). */
    public record Int(long min, long max) implements Value {}

    /**
     * A number from {@code min} to {@code max}; {@code min} itself is excluded when {@code exclusiveMin} (a positive
     * quantity: above 0). {@code alsoZero}: 0 is taken as well, below {@code min} (capacity_factor: 0 or at least 1).
     */
    public record Num(double min, boolean exclusiveMin, double max, boolean alsoZero) implements Value {
        static Num positive() { return new Num(Bounds.ANY_MIN, false, Bounds.ANY_MAX, false); }
    }

    /** true or false. */
    public record Bool() implements Value {}

    /** Free text; {@code file}: a path, relative to the run file's folder. */
    public record Text(boolean file) implements Value {}

    /** A version string (a YAML number such as 0.12 reads as its text). */
    public record Version() implements Value {}

    /**
     * One of a set of words: a spec enum's keys, or the keys of a catalogue ({@code catalogue} names it). The reader
     * matches spec enums without regard to case, and catalogue keys also through their aliases and without regard to
     * case or punctuation; {@link #values} are the spellings the schema offers (the keys, then the aliases).
     */
    public record OneOf(Supplier<List<String>> values, String catalogue) implements Value {
        public List<String> list() { return values.get(); }
    }

    /** A word matching {@code regex}, as the reader normalises it; {@code shown} are its canonical forms. */
    public record Pattern(String regex, List<String> shown) implements Value {}

    /** An object of the keys of the section {@code path}; {@code nullable}: null is taken too (moe: null, a dense model). */
    public record Section(String path, boolean nullable) implements Value {}

    /** A catalogue or preset name, or an object of the keys of the section {@code path} (a GPU, a cluster, a model). */
    public record NameOr(OneOf name, String path) implements Value {}

    /**
     * One key of a run file.
     *
     * @param path     dotted from the top: "training.seq_len"
     * @param value    what it takes
     * @param required whether a run file that names no log or config must give it (in its section, where given)
     * @param dflt     what it is when left out
     * @param means    what it says, with its source where a number is one
     * @param example  a value as a run file writes it (YAML)
     * @param with     what else the example needs to be read, as dotted path: YAML value (empty when nothing)
     */
    public record Key(String path, Value value, boolean required, String dflt, String means, String example,
                      Map<String, String> with) {
        /** The section's path ("" for the top). */
        public String section() {
            int dot = path.lastIndexOf('.');
            return dot < 0 ? "" : path.substring(0, dot);
        }

        /** The key's own name: "seq_len". */
        public String name() { return path.substring(path.lastIndexOf('.') + 1); }
    }

    // ------------------------------------------------------------------ what the values are

    private static List<String> lower(Enum<?>[] values) {
        return Arrays.stream(values).map(e -> e.name().toLowerCase(Locale.ROOT)).toList();
    }

    private static OneOf words(Enum<?>... values) {
        List<String> l = lower(values);
        return new OneOf(() -> l, null);
    }

    private static OneOf words(String... values) {
        List<String> l = List.of(values);
        return new OneOf(() -> l, null);
    }

    /** Catalogue keys, then their aliases. */
    private static List<String> keysAndAliases(Map<String, ? extends Catalog.Entry<?>> entries) {
        Set<String> out = new LinkedHashSet<>(entries.keySet());
        for (Catalog.Entry<?> e : entries.values()) out.addAll(e.aliases());
        return List.copyOf(out);
    }

    private static final OneOf GPUS = new OneOf(() -> keysAndAliases(Catalog.builtIn().gpus()), "knowledge-base/gpus.json");
    private static final OneOf LINKS = new OneOf(() -> keysAndAliases(Catalog.builtIn().links()), "knowledge-base/links.json");
    private static final OneOf NETWORKS = new OneOf(() -> keysAndAliases(Catalog.builtIn().networks()),
            "knowledge-base/networks.json");
    private static final OneOf HOSTS = new OneOf(() -> {
        Set<String> out = new LinkedHashSet<>(Hosts.builtIn().hosts().keySet());
        out.addAll(Hosts.builtIn().aliases().keySet());
        return List.copyOf(out);
    }, "knowledge-base/hosts.json");
    private static final OneOf HOST_OPTIMIZERS = new OneOf(() -> List.copyOf(Hosts.builtIn().optimizers().keySet()),
            "knowledge-base/hosts.json (host_optimizers)");
    private static final OneOf CLUSTER_PRESETS = new OneOf(() -> List.copyOf(new TreeSet<>(Presets.clusters().keySet())),
            "knowledge-base/clusters/");
    private static final OneOf MODEL_PRESETS = new OneOf(() -> List.copyOf(new TreeSet<>(Presets.models().keySet())),
            "model/");
    private static final OneOf FRAMEWORKS = new OneOf(() -> {
        Set<String> out = new TreeSet<>(Frameworks.builtIn().profiles().keySet());
        Set<String> aliases = new TreeSet<>();
        for (Frameworks.Profile p : Frameworks.builtIn().profiles().values()) aliases.addAll(p.aliases());
        List<String> l = new ArrayList<>(out);
        for (String a : aliases) if (!out.contains(a)) l.add(a);
        return List.copyOf(l);
    }, "knowledge-base/frameworks/");
    private static final OneOf ARCHITECTURES = new OneOf(() -> {
        Set<String> out = new TreeSet<>();
        for (Catalog.Entry<Gpu> e : Catalog.builtIn().gpus().values()) out.add(e.value().architecture());
        out.remove("");
        return List.copyOf(out);
    }, "knowledge-base/gpus.json (architecture)");
    private static final OneOf CONVENTIONS = new OneOf(FlopsConvention::keys, null);
    private static final OneOf TIERS = words(Offload.Tier.values());
    private static final OneOf CPU_TIERS = words("none", "cpu");

    private static final Int GPU_COUNT = new Int(1, Bounds.GPUS);
    private static final Num POSITIVE = Num.positive();
    private static final Num FRACTION = new Num(0, true, 1, false);
    private static final Num TIME = new Num(Bounds.TIME_MIN_S, false, Bounds.TIME_MAX_S, false);
    private static final Num NON_NEGATIVE = new Num(0, false, Bounds.ANY_MAX, false);
    private static final Text TEXT = new Text(false);
    private static final Text FILE = new Text(true);
    private static final Bool BOOL = new Bool();

    // ------------------------------------------------------------------ the table

    private static final List<Key> KEYS = new ArrayList<>();

    private static void key(String path, Value value, String dflt, String means, String example, String... with) {
        add(path, value, false, dflt, means, example, with);
    }

    private static void required(String path, Value value, String means, String example, String... with) {
        add(path, value, true, "required", means, example, with);
    }

    private static void add(String path, Value value, boolean required, String dflt, String means, String example,
                            String... with) {
        Map<String, String> w = new LinkedHashMap<>();
        for (int i = 0; i < with.length; i += 2) w.put(with[i], with[i + 1]);
        KEYS.add(new Key(path, value, required, dflt, means, example, Collections.unmodifiableMap(w)));
    }

    static {
        // ---------------------------------------------------------------- top
        key("name", TEXT, "the file's name without its extension", "the run's name in reports", "llama-7b-run-42");
        required("cluster", new NameOr(CLUSTER_PRESETS, "cluster"), "the hardware: a cluster preset by name, or its fields",
                "dgx-h100");
        required("model", new NameOr(MODEL_PRESETS, "model"), "the model: a preset by name, or its shape", "llama-2-7b");
        key("parallel", new Section("parallel", false), "no parallelism beyond data parallelism over every GPU",
                "the layout: how the GPUs split the model and the batch", "{tp: 2, pp: 1, zero_stage: 1}");
        required("training", new Section("training", false), "how the step runs: sequence, micro-batches, precision, kernels",
                "{seq_len: 4096, micro_batch_size: 1, micro_batches: 8}");
        key("metrics", new Section("metrics", false), "none: the run is predicted, not fitted",
                "what the run measured; the advice fits the model to it", "{step_time_s: 7.34}");
        key("log", FILE, "none", "a training log (a file, or a folder of one log per rank) whose steady-state metrics and "
                + "printed configuration fill what the file leaves out; a value both give differently is an error; its "
                + "format is recognised by content (docs/logs.md)", "train.log");
        key("config", FILE, "none", "an InternEvo configs/*.py file, read as data (never executed), filling the model, "
                + "parallel and training keys it sets", "configs/7B_sft.py");
        key("nccl_tests", FILE, "none", "an nccl-tests output measured on one node: its bus bandwidth at the largest size "
                + "becomes cluster.intra_node.busbw_gbps", "all_reduce_perf.log");
        key("topology", FILE, "none", "the output of nvidia-smi topo -m: GPUs per node and the worst path between two GPUs "
                + "(cluster.intra_node.gpu_path); the link kind must agree", "topo.txt");

        // ---------------------------------------------------------------- cluster
        key("cluster.preset", CLUSTER_PRESETS, "none", "a cluster preset whose fields the file's own override "
                + "(knowledge-base/clusters/)", "dgx-a100-80gb");
        key("cluster.name", TEXT, "the GPU and its count", "the cluster's name in reports", "our-a100-pool");
        key("cluster.description", TEXT, "none", "free text (the presets describe themselves)", "two racks in building 4");
        key("cluster.source", TEXT, "none", "where the cluster's figures come from", "the vendor's spec sheet");
        key("cluster.notes", TEXT, "none", "free text", "NICs re-cabled 2024-05");
        required("cluster.gpu", new NameOr(GPUS, "cluster.gpu"), "the GPU: a catalogue key (matched without regard to "
                + "case or punctuation, or by an alias), or its datasheet figures", "H100-SXM5-80GB");
        key("cluster.nodes", GPU_COUNT, "1", "nodes; nodes x gpus_per_node is at most " + Bounds.GPUS + " GPUs", "4",
                "cluster.inter_node", "{link: IB-HDR}");
        required("cluster.gpus_per_node", new Int(1, Bounds.GPUS_PER_NODE), "GPUs in each node", "8");
        key("cluster.intra_node", new Section("cluster.intra_node", false), "none (required when a node holds more than "
                + "one GPU)", "the link between a node's GPUs", "{link: NVLink4}");
        key("cluster.inter_node", new Section("cluster.inter_node", false), "none (required when nodes > 1)",
                "the network between nodes", "{link: IB-NDR, nics_per_node: 8}");
        key("cluster.nvlink_domain", GPU_COUNT, "gpus_per_node", "GPUs one NVLink fabric joins across nodes (72 on a GB200 "
                + "NVL72 rack); a multiple of gpus_per_node, on an NVLink link; groups inside it run on NVLink", "72",
                "cluster.gpu", "GB200", "cluster.gpus_per_node", "4", "cluster.intra_node", "{link: NVLink5}",
                "cluster.nodes", "18", "cluster.inter_node", "{link: IB-NDR}");
        key("cluster.host", new NameOr(HOSTS, "cluster.host"), "the H200 machine's host (16 cores, 84.7 GB/s), said in the "
                + "explanation", "the node's host, for offload: a host of knowledge-base/hosts.json, or its cores and "
                + "memory bandwidth", "dgx-h100");
        key("cluster.host_memory_gb", new Num(Bounds.ANY_MIN, false, Bounds.HOST_MEMORY_GB, false), "unknown (not checked)",
                "the node's host memory in GB: offloaded state beyond it is host-memory-overflow", "2048");

        key("cluster.host.name", TEXT, "none", "the host's name in reports", "our-epyc-node");
        required("cluster.host.cores", new Int(1, Bounds.HOST_CORES), "the node's CPU cores", "64");
        required("cluster.host.memory_bandwidth_gbps", new Num(Bounds.ANY_MIN, false, Bounds.HOST_MEMORY_GBPS, false),
                "the node's host memory bandwidth in GB/s as a STREAM triad measures it (or the datasheet's channels x "
                        + "MT/s x 8 bytes x the triad share of knowledge-base/hosts.json)", "300");
        key("cluster.host.source", TEXT, "none", "where the figures come from", "STREAM triad, 64 threads");
        key("cluster.host.notes", TEXT, "none", "free text", "2 x EPYC 9354");

        key("cluster.gpu.key", TEXT, "name, else custom-gpu", "the GPU's key in reports", "my-gpu");
        key("cluster.gpu.name", TEXT, "custom-gpu", "the GPU's name", "Acme X1");
        required("cluster.gpu.peak_tflops", new Section("cluster.gpu.peak_tflops", false), "dense peak TFLOPS by "
                + "precision; bf16 or fp16 is required", "{bf16: 989, fp8: 1979}");
        required("cluster.gpu.hbm_gb", POSITIVE, "the GPU's memory in GB", "80");
        required("cluster.gpu.hbm_gbps", POSITIVE, "its memory bandwidth in GB/s", "3350");
        key("cluster.gpu.mamf_tflops_bf16", POSITIVE, "the datasheet peak x the catalogue's usual share",
                "the maximum achievable bf16 matmul TFLOPS as Bekman's mamf-finder measures it", "750");
        key("cluster.gpu.attention_fraction", FRACTION, "the model's default FlashAttention-2 fraction of peak",
                "FlashAttention-2's share of the bf16 peak, where its architecture has no measured curve", "0.4");
        key("cluster.gpu.sms", new Int(1, Bounds.SMALL_COUNT), "unknown (no wave quantization)", "streaming "
                + "multiprocessors, for the GEMMs' wave quantization", "132");
        key("cluster.gpu.source", TEXT, "given in the run file", "where the figures come from", "vendor datasheet, 2024");
        key("cluster.gpu.architecture", ARCHITECTURES, "none (no measured attention curve applies)", "the architecture "
                + "whose measured attention curves apply", "Hopper");
        for (Precision p : Precision.values())
            key("cluster.gpu.peak_tflops." + p.key(), POSITIVE, "none", "dense " + p.key() + " TFLOPS",
                    switch (p) { case FP32 -> "67"; case TF32 -> "494"; case BF16, FP16 -> "989"; case FP8 -> "1979"; });

        // ---------------------------------------------------------------- links
        required("cluster.intra_node.link", LINKS, "the intra-node link, a key of knowledge-base/links.json", "NVLink4");
        key("cluster.intra_node.busbw_gbps", POSITIVE, "the catalogue's, placed on the host", "the link's measured bus "
                + "bandwidth in GB/s, as nccl-tests reports it for an all-reduce; at most twice the fastest catalogue "
                + "link's one-way rate", "370");
        key("cluster.intra_node.nccl_tests", FILE, "none", "an nccl-tests output whose bus bandwidth at the largest size "
                + "becomes busbw_gbps (not with it)", "all_reduce_perf.log");
        key("cluster.intra_node.sockets", new Int(1, 2), "2 for 8 or more PCIe GPUs per node, else 1; from gpu_path when "
                + "given", "CPU sockets the node's GPUs are split over", "2", "cluster.intra_node.link", "PCIe4");
        key("cluster.intra_node.transport", words(Transport.values()), "NVLink: p2p; PCIe: shm across sockets, past PXB "
                + "or on GeForce cards (no peer-to-peer), else p2p", "how NCCL moves data between the node's GPUs: "
                + "peer-to-peer, host shared memory, or sockets (knowledge-base/transports.json)", "shm",
                "cluster.intra_node.link", "PCIe4");
        key("cluster.intra_node.gpu_path", new Pattern("^(?:[Nn][Vv][0-9]*|PIX|PXB|PHB|NODE|SYS|SOC|pix|pxb|phb|node|sys|soc)$",
                        HostPlacement.PATHS), "from a topology: file", "the worst path between two GPUs as nvidia-smi "
                        + "topo -m prints it (NV# is NV, SOC is SYS); of the link's kind", "SYS",
                "cluster.intra_node.link", "PCIe4");
        required("cluster.inter_node.link", NETWORKS, "the network, a key of knowledge-base/networks.json", "IB-NDR");
        key("cluster.inter_node.nics_per_node", new Int(1, Bounds.SMALL_COUNT), "the network's default",
                "NICs a node has on it", "8");
        key("cluster.inter_node.busbw_gbps", POSITIVE, "the catalogue's", "the network's measured bus bandwidth in GB/s "
                + "(nccl-tests across nodes)", "45");
        key("cluster.inter_node.nccl_tests", FILE, "none", "an nccl-tests output across nodes whose bus bandwidth at the "
                + "largest size becomes busbw_gbps", "all_reduce_2nodes.log");
        key("cluster.inter_node.sharp", BOOL, "false", "the InfiniBand switches reduce (NCCL's CollNet): an all-reduce "
                + "bound by the network moves its bytes through it once each way", "true");

        // ---------------------------------------------------------------- model
        key("model.name", TEXT, "the preset's name, else custom-model", "the model's name in reports", "my-7b");
        key("model.display_name", TEXT, "none", "a longer name (the presets carry one)", "Llama 2 7B");
        required("model.layers", new Int(1, Bounds.LAYERS), "transformer layers", "32");
        required("model.hidden", new Int(1, Bounds.HIDDEN), "the hidden size", "4096");
        required("model.heads", new Int(1, Bounds.HEADS), "attention heads; a divisor of hidden unless head_dim is given",
                "32");
        key("model.kv_heads", new Int(1, Bounds.HEADS), "heads (no grouped-query attention)", "key-value heads "
                + "(grouped-query attention); a divisor of heads", "8");
        required("model.ffn_hidden", new Int(1, Bounds.FFN_HIDDEN), "the MLP's inner size", "11008");
        required("model.vocab", new Int(1, Bounds.VOCAB), "the vocabulary", "32000");
        key("model.gated_mlp", BOOL, "true", "a gated MLP (SwiGLU: three matrices) rather than two", "false");
        key("model.tied_embeddings", BOOL, "false", "the output head shares the input embedding", "true");
        key("model.qkv_bias", BOOL, "false", "the query, key and value projections have biases", "true");
        key("model.moe", new Section("model.moe", true), "none: a dense model", "mixture of experts: the MLP of some "
                + "layers is routed to experts", "{experts: 8, top_k: 2}");
        key("model.mlp_ratio", POSITIVE, "ffn_hidden / hidden", "ffn_hidden over hidden, as the presets record it",
                "2.6875");
        key("model.position_embedding", words(PositionEmbedding.values()), "rope", "position embedding: only rope adds a "
                + "rotary pass", "learned");
        key("model.norm", words(Norm.values()), "rmsnorm", "the layers' norm", "layernorm");
        key("model.max_seq_len", new Int(1, Bounds.SEQ_LEN), "none", "the context the model was trained for "
                + "(informational: the run's is training.seq_len)", "4096");
        key("model.params_b", POSITIVE, "none", "billions of parameters as published (informational: the model counts "
                + "its own)", "6.74");
        key("model.source", TEXT, "none", "where the shape comes from", "its config.json");
        key("model.notes", TEXT, "none", "free text", "untied, no biases");
        key("model.head_dim", new Int(1, Bounds.HEADS), "hidden / heads", "each head's width where it is its own "
                + "(Qwen3: 128 over a hidden of 2048): queries and the attention output are heads x head_dim wide", "128");

        required("model.moe.experts", new Int(1, Bounds.EXPERTS), "routed experts per MoE layer", "8");
        required("model.moe.top_k", new Int(1, Bounds.EXPERTS), "experts each token is routed to; at most experts", "2");
        key("model.moe.ffn_hidden", new Int(1, Bounds.FFN_HIDDEN), "the model's ffn_hidden", "an expert's MLP inner size",
                "1408");
        key("model.moe.every", new Int(1, Bounds.LAYERS), "1", "every how many layers is an MoE layer", "2");
        key("model.moe.first_dense", new Int(0, Bounds.LAYERS - 1), "0", "leading dense layers (DeepSeek's "
                + "first_k_dense_replace); fewer than layers", "1");
        key("model.moe.shared_experts", new Int(0, Bounds.EXPERTS), "0", "experts every token passes, beside the routed "
                + "ones; at most experts", "2");
        key("model.moe.shared_ffn_hidden", new Int(1, Bounds.FFN_HIDDEN), "the experts' ffn_hidden", "a shared expert's "
                + "MLP inner size", "2816");
        key("model.moe.capacity_factor", new Num(1, false, Bounds.ANY_MAX, true), "0: dropless routing", "tokens padded "
                + "to capacity: each expert takes its share of the tokens times this, the rest dropped; 0 or at least 1",
                "1.25");
        key("model.moe.load_imbalance", new Num(1, false, Bounds.ANY_MAX, false), "1: balanced", "dropless: the busiest "
                + "expert-parallel rank's routed tokens over the mean; at least 1, and 1 with a capacity factor", "1.06");

        // ---------------------------------------------------------------- parallel
        key("parallel.tp", GPU_COUNT, "1", "tensor-parallel size: a divisor of the heads, and of the GPUs with pp and cp",
                "2");
        key("parallel.pp", GPU_COUNT, "1", "pipeline stages; pp x virtual_stages at most the layers", "4");
        key("parallel.dp", GPU_COUNT, "GPUs / (tp x pp x cp)", "data-parallel size; tp x pp x cp x dp is the GPUs", "8");
        key("parallel.cp", GPU_COUNT, "1", "context-parallel size (ring attention); a divisor of seq_len. Its ranks "
                + "sum their gradients with the data-parallel ones", "2");
        key("parallel.ep", GPU_COUNT, "1", "expert-parallel size of an MoE; a divisor of the experts, ep x etp a divisor "
                + "of tp x cp x dp", "8", "model", "mixtral-8x7b");
        key("parallel.sequence_parallel", BOOL, "false", "sequence parallelism with tensor parallelism (Megatron's "
                + "--sequence-parallel)", "true");
        key("parallel.zero_stage", new Int(0, 3), "0", "ZeRO stage: 1 shards the optimizer states, 2 the gradients too, "
                + "3 the weights (FSDP); the framework must run it", "1");
        key("parallel.zero_group_size", GPU_COUNT, "dp", "data-parallel ranks that shard the ZeRO states (hierarchical "
                + "sharding below dp); a divisor of dp. With cp, each with its context-parallel ranks, which hold the same "
                + "weights: ZeRO shards over zero_group_size x cp GPUs, as Megatron-Core and torchtitan do", "8");
        key("parallel.virtual_stages", new Int(1, Bounds.VIRTUAL_STAGES), "1", "interleaved pipeline stages a GPU holds; "
                + "1 when pp is 1", "2", "parallel.pp", "4");
        key("parallel.overlap_grad_reduce", BOOL, "the framework's, at the ZeRO stage", "the gradient reduction runs "
                + "behind the backward (Megatron's --overlap-grad-reduce, DeepSpeed's overlap_comm)", "false");
        key("parallel.overlap_param_gather", BOOL, "the framework's at ZeRO 1-2, else false", "ZeRO 1-2's gather of the "
                + "updated parameters runs behind the next forward (--overlap-param-gather)", "true");
        key("parallel.overlap_tp_comm", BOOL, "false", "tensor-parallel collectives pipelined with their GEMMs "
                + "(Megatron's --tp-comm-overlap)", "true");
        key("parallel.etp", GPU_COUNT, "tp", "expert tensor parallelism: the expert layers fold ep x etp over the "
                + "attention's tp x cp x dp ranks (Megatron-Core's MoE parallel folding); tp for a dense model", "1",
                "model", "mixtral-8x7b");
        key("parallel.bucket_mb", POSITIVE, "the framework's bucket (Megatron-Core: max(40M, 1M x dp) parameters), else "
                + Parallel.DEFAULT_BUCKET_MB + " (PyTorch DDP's)", "megabytes of gradients per data-parallel bucket, one "
                + "collective call each", "40");
        key("parallel.grad_reduce_every_micro_batch", BOOL, "the framework's loop", "the loop reduces gradients after "
                + "every micro-batch, as DDP without no_sync does", "true");
        key("parallel.moe_dispatcher", words(MoeDispatcher.values()), "alltoall", "how an MoE's tokens move: NCCL "
                + "all-to-all, or DeepEP's or HybridEP's kernels (a token crosses the network once per node holding any "
                + "of its experts)", "deepep", "model", "mixtral-8x7b");
        key("parallel.moe_a2a_overlap", BOOL, "false", "the expert all-to-alls hide behind another micro-batch's compute "
                + "(Megatron-Core's --overlap-moe-expert-parallel-comm)", "true", "model", "mixtral-8x7b");
        key("parallel.rank_order", words(RankOrder.keys().toArray(String[]::new)), "the framework's (rank_order of its "
                + "profile; tp-cp-dp-pp where it says none)", "how ranks are numbered, innermost first: whether the "
                + "pipeline stages (tp-cp-dp-pp, Megatron-LM's default) or the data-parallel replicas (tp-cp-pp-dp, "
                + "Megatron-LM's --use-tp-pp-dp-mapping) are outermost, which decides the groups a node's GPUs hold",
                "tp-cp-pp-dp", "parallel.pp", "2");

        // ---------------------------------------------------------------- training
        required("training.seq_len", new Int(1, Bounds.SEQ_LEN), "tokens a sequence", "4096");
        required("training.micro_batch_size", new Int(1, Bounds.MICRO_BATCH_SIZE), "sequences a micro-batch", "2");
        key("training.micro_batches", new Int(1, Bounds.MICRO_BATCHES), "1", "micro-batches accumulated a step (global "
                + "batch = micro_batch_size x micro_batches x dp)", "8");
        key("training.recompute", words(Recompute.values()), "none", "activation recomputation: selective is the "
                + "attention core (Korthikanti et al. 2022), full the whole layer", "selective");
        key("training.recompute_fraction", FRACTION, "1", "with recompute: full, the share of layers that recompute "
                + "(InternEvo's checkpoint=0.5, torchtitan's every other layer)", "0.5", "training.recompute", "full");
        key("training.precision", words(Precision.values()), "bf16", "the GEMMs' precision; the GPU must have it",
                "fp16");
        key("training.grad_reduce_precision", words(Precision.values()), "the framework's at the ZeRO stage, else the "
                + "precision (bf16 for fp8)", "the dtype gradients are reduced in (--grad-reduce-in-bf16)", "fp32");
        key("training.flash_attention", BOOL, "true, unless the framework's kernel is not a flash one", "fused (flash) "
                + "attention; false with unfused, math or eager", "false");
        key("training.attention_kernel", words(AttentionKernel.values()), "the framework's on the GPU, else fa2 with "
                + "flash and unfused without", "the attention kernel: fa2, fa1, triton, flex, fa3 (Hopper), cudnn with "
                + "flash_attention true; unfused, math, eager without (docs/model.md)", "cudnn",
                "cluster", "dgx-h100");
        key("training.elementwise_kernels", words(ElementwiseKernels.values()), "the framework's, else fused",
                "norms, activations and rotary: hand-fused, torch.compile's Inductor kernels, PyTorch eager ops, or eager "
                        + "ops beside one fused RMSNorm kernel (torchtitan's norm_type fused_rmsnorm)",
                "compiled");
        key("training.cuda_graphs", BOOL, "false", "forward and backward replayed from CUDA graphs (torch.compile's "
                + "reduce-overhead, Megatron's --enable-cuda-graph)", "true");
        key("training.fp8_recipe", words(Fp8Recipe.values()), "delayed", "with precision: fp8, how fp8 tensors are scaled: "
                + "Transformer Engine's delayed scaling, current (torchao's Float8), DeepSeek-V3's blockwise 1 x 128, "
                + "mxfp8 (Blackwell)", "current", "training.precision", "fp8", "cluster", "dgx-h100");
        key("training.framework", FRAMEWORKS, "the one the log's format or metrics.tflops_convention names, else generic",
                "the framework that runs the step, a profile of knowledge-base/frameworks/: which collectives a ZeRO "
                        + "stage takes, in which dtype, hidden behind what", "megatron-core");
        key("training.framework_version", new Version(), "the profile's default; beside a log printed before it began, the "
                + "version current on the log's day", "the framework's version where its "
                + "behaviour changed (the profile lists them; docs/model.md); needs framework", "\"0.11\"",
                "training.framework", "megatron-core");
        key("training.offload", new Section("training.offload", false), "nothing offloaded", "what the run keeps off the "
                + "GPU (docs/model.md, Offload)", "{optimizer: cpu}", "training.framework", "deepspeed");
        key("training.optimizer_kernel", words(OptimizerKernel.values()), "fused", "AdamW's kernel: fused "
                + "(AdamW(fused=True), the Trainer's adamw_torch_fused, Apex's and Transformer Engine's FusedAdam) or "
                + "foreach (PyTorch's multi-tensor path, the Trainer's adamw_torch)", "foreach");

        String ds = "training.framework";
        key("training.offload.optimizer", TIERS, "none", "where the optimizer states and step go", "cpu", ds, "deepspeed");
        key("training.offload.master_weights", CPU_TIERS, "none", "the fp32 master weights, with the optimizer", "cpu",
                ds, "deepspeed", "training.offload.optimizer", "cpu");
        key("training.offload.gradients", CPU_TIERS, "none", "the gradients, with the optimizer", "cpu",
                ds, "deepspeed", "training.offload.optimizer", "cpu");
        key("training.offload.parameters", TIERS, "none", "the parameters; needs ZeRO 3", "cpu", ds, "deepspeed",
                "parallel.zero_stage", "3");
        key("training.offload.activations", CPU_TIERS, "none", "the activations", "cpu", ds, "deepspeed");
        key("training.offload.ratio", FRACTION, "1", "the share of the optimizer the host runs, where the framework "
                + "keeps part on the GPU (DeepSpeed: ZeRO 3)", "0.5", ds, "deepspeed", "training.offload.optimizer", "cpu",
                "parallel.zero_stage", "3");
        key("training.offload.nvme_path", TEXT, "none (required with an nvme tier)", "the NVMe tier's path "
                + "(DeepSpeed's nvme_path)", "/local_nvme", ds, "deepspeed", "training.offload.optimizer", "nvme");
        key("training.offload.host_optimizer", HOST_OPTIMIZERS, "the framework's", "the host's optimizer "
                + "implementation", "torch-adamw-fused", ds, "deepspeed", "training.offload.optimizer", "cpu");
        key("training.offload.host_threads", new Int(1, Bounds.HOST_CORES), "what the launcher leaves each rank",
                "threads each rank's host optimizer runs on", "8", ds, "deepspeed", "training.offload.optimizer", "cpu");
        key("training.offload.bind_cores", BOOL, "the launcher's", "each rank bound to its own cores", "true",
                ds, "deepspeed", "training.offload.optimizer", "cpu");

        // ---------------------------------------------------------------- metrics
        key("metrics.tflops_per_gpu", POSITIVE, "none", "the TFLOPS per GPU the framework printed; needs "
                + "tflops_convention unless the framework has one", "99.1", "metrics.tflops_convention", "internevo");
        key("metrics.tflops_convention", CONVENTIONS, "the framework's", "how the framework counted its printed TFLOPS "
                + "(the advice reports one house count and how the printed figure relates to it)", "megatron");
        key("metrics.tokens_per_gpu_per_s", POSITIVE, "none", "tokens per GPU per second", "2231.46");
        key("metrics.step_time_s", TIME, "none", "seconds a step (steady state)", "7.34");
        key("metrics.fwd_bwd_time_s", TIME, "none", "seconds of a step's forward and backward passes", "5.76");
        key("metrics.forward_time_s", TIME, "none", "seconds of a step's forward passes, timed apart (DeepSpeed's fwd "
                + "timer, CUDA events)", "1.9");
        key("metrics.backward_time_s", TIME, "none", "seconds of a step's backward passes, timed apart", "3.8");
        key("metrics.optimizer_time_s", TIME, "none", "seconds of the optimizer step", "0.4");
        key("metrics.mfu", FRACTION, "none", "model FLOPs utilisation as a fraction (0.42 for 42%)", "0.42");
        key("metrics.peak_memory_gb", POSITIVE, "none", "the peak GPU memory measured, GB", "61.9");
        key("metrics.steps", NON_NEGATIVE, "none", "steps the measurements cover", "1000");
        key("metrics.skipped_steps", NON_NEGATIVE, "none", "steps skipped for overflow (fp16); at most steps", "30",
                "metrics.steps", "1000");
        key("metrics.loss_scale", POSITIVE, "none", "the fp16 loss scale at the end", "65536");
    }

    private static final List<Key> ALL = List.copyOf(KEYS);

    /** Every key, in the table's order (each section's keys together, the sections in reading order). */
    public static List<Key> all() { return ALL; }

    /** The key names of a section ("" for the top): what the reader takes there, and nothing else. */
    public static Set<String> keysOf(String section) {
        Set<String> out = new LinkedHashSet<>();
        for (Key k : ALL) if (k.section().equals(section)) out.add(k.name());
        if (out.isEmpty()) throw new IllegalArgumentException("no section '" + section + "' in the run-file keys");
        return Collections.unmodifiableSet(out);
    }

    /** The key at a dotted path, or null. */
    public static Key at(String path) {
        for (Key k : ALL) if (k.path().equals(path)) return k;
        return null;
    }
}
