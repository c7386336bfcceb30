package dev.trainadvisor.api;

import dev.trainadvisor.assemble.Boundary;
import dev.trainadvisor.assemble.RunFiles;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.RunSpec;

import java.util.ArrayList;
import java.util.List;

/**
 * One training run, validated: where it trains (the cluster), what (the model), how it is split (the layout), what a
 * step processes (training) and what it measured. Immutable and safe to share between threads.
 *
 * <p>A run comes from a run file or a training log ({@link TrainAdvisor#readRunFile}, {@link TrainAdvisor#readLog}), or
 * from {@link #builder()}:
 *
 * <pre>{@code
 * Run run = Run.builder()
 *         .cluster(Run.Cluster.preset("a100-80gb-pcie-8x"))
 *         .model("internlm-7b")
 *         .layout(new Run.Layout().dp(8).zeroStage(1))
 *         .training(new Run.Training().seqLen(2048).microBatchSize(2).microBatches(4).framework("internevo", "2023"))
 *         .measurements(new Run.Measurements().tokensPerGpuPerS(2231.46))
 *         .build();
 * }</pre>
 *
 * Each builder method sets the run-file field its documentation names ({@code training.seq_len}); a value left unset is
 * left out, as a run file that does not write the key leaves it: to its documented default, or not measured. The
 * values are checked when {@link Builder#build()} is called, exactly as a run file's are, and a value that is not valid
 * is refused with an {@link InvalidInputException} naming the field and what was expected. The section builders
 * ({@link Cluster}, {@link Model}, {@link Layout}, {@link Training}, {@link Measurements}) and {@link Builder} are
 * mutable and meant for one thread; a section is copied when it is handed to the builder.
 */
public final class Run {
    private final RunSpec spec;
    private final List<String> notes;
    private final List<Assumption> assumptions;

    Run(RunSpec spec, List<String> notes) {
        this.spec = spec;
        this.notes = List.copyOf(notes);
        List<Assumption> a = new ArrayList<>();
        for (dev.trainadvisor.spec.Assumption x : spec.run().assumed())
            a.add(new Assumption(x.field(), String.valueOf(x.value()), x.why(), setter(x.field()), x.derived()));
        this.assumptions = List.copyOf(a);
    }

    /** The validated run as the advice reads it. */
    RunSpec spec() { return spec; }

    /** A builder of a run in code. */
    public static Builder builder() { return new Builder(); }

    /** The run's name: the one given, else the run file's or the log's name without its extension, else "run". */
    public String name() { return spec.name(); }

    /** The GPU's catalogue key ("A100-PCIe-80GB"), or the name given to a GPU described by its numbers. */
    public String gpu() { return spec.cluster().gpu().key(); }

    public int nodes() { return spec.cluster().nodes(); }

    public int gpusPerNode() { return spec.cluster().gpusPerNode(); }

    /** All the run's GPUs: nodes x GPUs per node. */
    public int gpus() { return spec.cluster().gpus(); }

    /** The model's name ("internlm-7b"). */
    public String model() { return spec.run().model().name(); }

    /** Tensor-parallel size. */
    public int tp() { return spec.run().parallel().tp(); }

    /** Pipeline stages. */
    public int pp() { return spec.run().parallel().pp(); }

    /** Data-parallel size. */
    public int dp() { return spec.run().parallel().dp(); }

    /** ZeRO stage, 0-3. */
    public int zeroStage() { return spec.run().parallel().zeroStage(); }

    /** Tokens a sequence. */
    public int seqLen() { return spec.run().training().seqLen(); }

    /** Sequences a micro-batch. */
    public int microBatchSize() { return spec.run().training().microBatchSize(); }

    /** Micro-batches accumulated a step. */
    public int microBatches() { return spec.run().training().microBatches(); }

    /** The GEMMs' precision ("bf16"). */
    public String precision() { return spec.run().training().precision().key(); }

    /** The framework that runs the step, by its key ("internevo"; "generic" when none was named). */
    public String framework() { return spec.run().training().framework().key(); }

    /**
     * The values that neither the caller nor the log gave, derived or assumed when a training log was read (empty for a
     * run file or a builder, whose unset fields take their documented defaults).
     */
    public List<Assumption> assumptions() { return assumptions; }

    /**
     * What reading said on the side, one line each: a log's warnings, values a log printed that the caller's replaced,
     * measurements a log's parser dropped. The command line writes these on standard error; the library never writes.
     */
    public List<String> notes() { return notes; }

    @Override
    public String toString() {
        return name() + " (" + model() + " on " + nodes() + " x " + gpusPerNode() + " " + gpu() + ", tp " + tp() + " pp "
                + pp() + " dp " + dp() + ")";
    }

    /**
     * A value of a run read from a training log that neither the caller nor the log gave.
     *
     * @param field   the dotted run-file field ("parallel.zero_stage")
     * @param value   the value taken, as text
     * @param why     derived from what the log prints ("derived: ..."), or assumed and why
     * @param setBy   the builder method that would set it ("Run.Layout.zeroStage")
     * @param derived true when the value follows from what the log prints, false when it was assumed
     */
    public record Assumption(String field, String value, String why, String setBy, boolean derived) {}

    /** The builder method that sets a run-file field: "parallel.zero_stage" is Run.Layout.zeroStage. */
    static String setter(String field) {
        if (field.equals("cluster") || field.equals("model")) return "Run.Builder." + field;
        if (field.equals("training.framework_version")) return "Run.Training.framework";
        int dot = field.indexOf('.');
        if (dot < 0) return "Run.Builder.set(\"" + field + "\", ...)";
        String section = switch (field.substring(0, dot)) {
            case "cluster" -> "Run.Cluster";
            case "model" -> "Run.Model";
            case "parallel" -> "Run.Layout";
            case "training" -> "Run.Training";
            case "metrics" -> "Run.Measurements";
            default -> null;
        };
        String rest = field.substring(dot + 1);
        if (section == null || rest.contains(".")) return "Run.Builder.set(\"" + field + "\", ...)";
        StringBuilder camel = new StringBuilder();
        boolean up = false;
        for (char c : rest.toCharArray()) {
            if (c == '_') up = true;
            else {
                camel.append(up ? Character.toUpperCase(c) : c);
                up = false;
            }
        }
        return section + "." + camel;
    }

    static InvalidInputException invalid(SpecException e) { return InvalidInputException.of(e); }

    // ------------------------------------------------------------------------------------------------ builders

    /** Builds a {@link Run}; each section replaces what an earlier call set for it. */
    public static final class Builder {
        final Values values = new Values();

        Builder() {}

        /** {@code name}: what the advice and the reports call the run. */
        public Builder name(String name) {
            values.put("name", name);
            return this;
        }

        /** {@code cluster: {preset: ...}}: a cluster of the catalogue ("a100-80gb-pcie-8x", "dgx-h100-8x", ...). */
        public Builder cluster(String preset) { return cluster(Cluster.preset(preset)); }

        /** {@code cluster}: where the run trains. */
        public Builder cluster(Cluster cluster) {
            values.replaceSection("cluster", cluster.values);
            return this;
        }

        /** {@code model}: a model of the catalogue ("internlm-7b", "llama-3-8b", ...). */
        public Builder model(String name) { return model(Model.named(name)); }

        /** {@code model}: what trains. */
        public Builder model(Model model) {
            values.replaceSection("model", model.values);
            return this;
        }

        /** {@code parallel}: how the run is split. */
        public Builder layout(Layout layout) {
            values.replaceSection("parallel", layout.values);
            return this;
        }

        /** {@code training}: what a step processes and which kernels run it. */
        public Builder training(Training training) {
            values.replaceSection("training", training.values);
            return this;
        }

        /** {@code metrics}: what the run measured; leave it out for a run that measured nothing (a prediction). */
        public Builder measurements(Measurements measurements) {
            values.replaceSection("metrics", measurements.values);
            return this;
        }

        /**
         * Any field of a run file by its dotted name ("training.offload.optimizer", "model.moe.experts",
         * "cluster.intra_node.gpu_path"), for the fields the section builders have no method for. The value is a
         * String, an Integer, a Long, a finite Double or a Boolean; an unknown field is refused at {@link #build()}
         * with the nearest known one.
         */
        public Builder set(String field, Object value) {
            if (field == null || field.isBlank())
                throw InvalidInputException.field(Values.BUILDER, null, "a dotted run-file field such as training.seq_len");
            values.put(field, value);
            return this;
        }

        /**
         * The run, validated as a run file with these fields is.
         *
         * @throws InvalidInputException naming the field and what was expected, when a value is missing or not valid
         */
        public Run build() {
            Values v = new Values();
            if (!values.any("name")) v.put("name", "run");
            v.putAll(values);
            List<String> notes = new ArrayList<>();
            try {
                return new Run(RunFiles.read(v.tree(), Values.BUILDER, notes::add, Boundary.NONE), notes);
            } catch (SpecException e) {
                throw invalid(e);
            }
        }
    }

    /** {@code cluster}: the GPU, how many, what joins them. */
    public static final class Cluster {
        final Values values = new Values();

        private Cluster() {}

        /** A cluster of the catalogue by its preset name ("a100-80gb-pcie-8x"); its fields can then be overridden. */
        public static Cluster preset(String preset) {
            Cluster c = new Cluster();
            c.values.put("cluster.preset", preset);
            return c;
        }

        /**
         * A cluster of {@code gpusPerNode} GPUs a node of a catalogue GPU ("A100-SXM4-80GB", "H100-SXM5-80GB"); a node
         * of more than one GPU needs {@link #intraNodeLink}, and more than one node {@link #interNodeLink}.
         */
        public static Cluster of(String gpu, int gpusPerNode) {
            Cluster c = new Cluster();
            c.values.put("cluster.gpu", gpu);
            c.values.put("cluster.gpus_per_node", gpusPerNode);
            return c;
        }

        /** {@code cluster.name}. */
        public Cluster name(String name) { return set("name", name); }

        /** {@code cluster.gpu}: a GPU of the catalogue by its key. */
        public Cluster gpu(String gpu) { return set("gpu", gpu); }

        /**
         * {@code cluster.gpu} given by its numbers: a GPU the catalogue does not hold.
         *
         * @param name       what to call it
         * @param bf16Tflops its dense bf16 (or fp16) peak, TFLOPS
         * @param hbmGb      its memory, GB
         * @param hbmGbps    its memory bandwidth, GB/s
         */
        public Cluster gpu(String name, double bf16Tflops, double hbmGb, double hbmGbps) {
            values.replaceSection("cluster.gpu", new Values());
            set("gpu.key", name);
            set("gpu.peak_tflops.bf16", bf16Tflops);
            set("gpu.hbm_gb", hbmGb);
            return set("gpu.hbm_gbps", hbmGbps);
        }

        /** {@code cluster.nodes} (1 unless set). */
        public Cluster nodes(int nodes) { return set("nodes", nodes); }

        /** {@code cluster.gpus_per_node}. */
        public Cluster gpusPerNode(int gpus) { return set("gpus_per_node", gpus); }

        /** {@code cluster.intra_node.link}: what joins a node's GPUs ("NVLink3", "PCIe4", ...). */
        public Cluster intraNodeLink(String link) { return set("intra_node.link", link); }

        /** {@code cluster.intra_node.busbw_gbps}: the all-reduce bus bandwidth inside a node as nccl-tests measured it. */
        public Cluster intraNodeBusbwGbps(double gbps) { return set("intra_node.busbw_gbps", gbps); }

        /** {@code cluster.inter_node.link}: the network between nodes ("IB-HDR200", "RoCE-100G", ...). */
        public Cluster interNodeLink(String link) { return set("inter_node.link", link); }

        /** {@code cluster.inter_node.nics_per_node}. */
        public Cluster nicsPerNode(int nics) { return set("inter_node.nics_per_node", nics); }

        /** {@code cluster.inter_node.busbw_gbps}: the all-reduce bus bandwidth across nodes as nccl-tests measured it. */
        public Cluster interNodeBusbwGbps(double gbps) { return set("inter_node.busbw_gbps", gbps); }

        /** {@code cluster.nvlink_domain}: GPUs joined by one NVLink fabric across nodes (72 for a GB200 NVL72 rack). */
        public Cluster nvlinkDomain(int gpus) { return set("nvlink_domain", gpus); }

        /** {@code cluster.host}: a node's host by its catalogue key. */
        public Cluster host(String host) { return set("host", host); }

        /** {@code cluster.host_memory_gb}. */
        public Cluster hostMemoryGb(double gb) { return set("host_memory_gb", gb); }

        private Cluster set(String key, Object value) {
            values.put("cluster." + key, value);
            return this;
        }
    }

    /** {@code model}: a model of the catalogue by name, or a decoder-only transformer by its shape. */
    public static final class Model {
        final Values values = new Values();
        private final boolean named;

        private Model(boolean named) { this.named = named; }

        /** A model of the catalogue ("internlm-7b", "llama-3-8b", "mixtral-8x7b", ...). */
        public static Model named(String name) {
            Model m = new Model(true);
            m.values.put("model", name);
            return m;
        }

        /** A model by its shape; kv heads equal heads, a gated MLP, RMSNorm and rotary embeddings unless set. */
        public static Model of(int layers, int hidden, int heads, int ffnHidden, int vocab) {
            Model m = new Model(false);
            m.set("layers", layers);
            m.set("hidden", hidden);
            m.set("heads", heads);
            m.set("ffn_hidden", ffnHidden);
            return m.set("vocab", vocab);
        }

        /** {@code model.name}. */
        public Model name(String name) { return set("name", name); }

        /** {@code model.kv_heads}: grouped-query attention's key and value heads. */
        public Model kvHeads(int kvHeads) { return set("kv_heads", kvHeads); }

        /** {@code model.head_dim}, where it is not hidden / heads. */
        public Model headDim(int headDim) { return set("head_dim", headDim); }

        /** {@code model.gated_mlp} (true unless set: SwiGLU). */
        public Model gatedMlp(boolean gated) { return set("gated_mlp", gated); }

        /** {@code model.tied_embeddings}. */
        public Model tiedEmbeddings(boolean tied) { return set("tied_embeddings", tied); }

        /** {@code model.qkv_bias}. */
        public Model qkvBias(boolean bias) { return set("qkv_bias", bias); }

        /** {@code model.norm}: rmsnorm or layernorm. */
        public Model norm(String norm) { return set("norm", norm); }

        /** {@code model.position_embedding}: rope, or another the run-file guide lists. */
        public Model positionEmbedding(String embedding) { return set("position_embedding", embedding); }

        /** {@code model.moe}: a mixture of experts in every layer, {@code topK} of {@code experts} routed a token. */
        public Model moe(int experts, int topK, int expertFfnHidden) {
            set("moe.experts", experts);
            set("moe.top_k", topK);
            return set("moe.ffn_hidden", expertFfnHidden);
        }

        private Model set(String key, Object value) {
            if (named)
                throw InvalidInputException.field(Values.BUILDER, "model." + key, "either a model of the catalogue "
                        + "(Run.Model.named) or a model by its shape (Run.Model.of), not both");
            values.put("model." + key, value);
            return this;
        }
    }

    /** {@code parallel}: how the run is split (ranks TP innermost, then CP, then DP and PP in the framework's order). */
    public static final class Layout {
        final Values values = new Values();

        /** A layout whose every field takes its default: tp, pp, cp, ep 1, dp the GPUs left over, ZeRO 0. */
        public Layout() {}

        /** {@code parallel.tp}. */
        public Layout tp(int tp) { return set("tp", tp); }

        /** {@code parallel.pp}. */
        public Layout pp(int pp) { return set("pp", pp); }

        /** {@code parallel.dp}: GPUs / (tp x pp x cp) unless set. */
        public Layout dp(int dp) { return set("dp", dp); }

        /** {@code parallel.cp}: context parallelism. */
        public Layout cp(int cp) { return set("cp", cp); }

        /** {@code parallel.ep}: expert parallelism of an MoE. */
        public Layout ep(int ep) { return set("ep", ep); }

        /** {@code parallel.sequence_parallel}. */
        public Layout sequenceParallel(boolean on) { return set("sequence_parallel", on); }

        /** {@code parallel.zero_stage}: 0-3 (3 is FSDP's full shard). */
        public Layout zeroStage(int stage) { return set("zero_stage", stage); }

        /**
         * {@code parallel.zero_group_size}: data-parallel ranks that shard the ZeRO states (with cp, each with its
         * context-parallel ranks).
         */
        public Layout zeroGroupSize(int ranks) { return set("zero_group_size", ranks); }

        /** {@code parallel.virtual_stages}: interleaved pipeline stages a GPU holds. */
        public Layout virtualStages(int stages) { return set("virtual_stages", stages); }

        /** {@code parallel.overlap_grad_reduce}. */
        public Layout overlapGradReduce(boolean on) { return set("overlap_grad_reduce", on); }

        /** {@code parallel.overlap_param_gather}. */
        public Layout overlapParamGather(boolean on) { return set("overlap_param_gather", on); }

        /** {@code parallel.overlap_tp_comm}. */
        public Layout overlapTpComm(boolean on) { return set("overlap_tp_comm", on); }

        /** {@code parallel.bucket_mb}: megabytes of gradients a data-parallel bucket. */
        public Layout bucketMb(double mb) { return set("bucket_mb", mb); }

        private Layout set(String key, Object value) {
            values.put("parallel." + key, value);
            return this;
        }
    }

    /** {@code training}: what a step processes and which kernels run it. */
    public static final class Training {
        final Values values = new Values();

        /** Training settings; seq_len and micro_batch_size are required, the rest take their defaults. */
        public Training() {}

        /** {@code training.seq_len}: tokens a sequence (required). */
        public Training seqLen(int tokens) { return set("seq_len", tokens); }

        /** {@code training.micro_batch_size}: sequences a micro-batch (required). */
        public Training microBatchSize(int sequences) { return set("micro_batch_size", sequences); }

        /** {@code training.micro_batches}: micro-batches accumulated a step (1 unless set). */
        public Training microBatches(int n) { return set("micro_batches", n); }

        /** {@code training.recompute}: none, selective or full. */
        public Training recompute(String mode) { return set("recompute", mode); }

        /** {@code training.precision}: bf16, fp16, fp8 or fp32. */
        public Training precision(String precision) { return set("precision", precision); }

        /** {@code training.flash_attention}. */
        public Training flashAttention(boolean on) { return set("flash_attention", on); }

        /** {@code training.attention_kernel}: fa2, fa1, fa3, triton, cudnn, unfused, math or eager. */
        public Training attentionKernel(String kernel) { return set("attention_kernel", kernel); }

        /** {@code training.elementwise_kernels}: fused, compiled, eager or eager_fused_norm. */
        public Training elementwiseKernels(String kernels) { return set("elementwise_kernels", kernels); }

        /** {@code training.cuda_graphs}. */
        public Training cudaGraphs(boolean on) { return set("cuda_graphs", on); }

        /** {@code training.optimizer_kernel}: fused or foreach. */
        public Training optimizerKernel(String kernel) { return set("optimizer_kernel", kernel); }

        /** {@code training.framework}: the framework that runs the step ("megatron", "deepspeed", "internevo", ...). */
        public Training framework(String framework) { return set("framework", framework); }

        /** {@code training.framework} at {@code training.framework_version}. */
        public Training framework(String framework, String version) {
            set("framework", framework);
            return set("framework_version", version);
        }

        private Training set(String key, Object value) {
            values.put("training." + key, value);
            return this;
        }
    }

    /**
     * {@code metrics}: what the run measured, each value optional: a value not measured is left unset (never NaN). The
     * fit needs one of tokens per GPU per second, step time, MFU, or TFLOPS with the convention they were counted by.
     */
    public static final class Measurements {
        final Values values = new Values();

        /** No measurement yet. */
        public Measurements() {}

        /** {@code metrics.tokens_per_gpu_per_s}. */
        public Measurements tokensPerGpuPerS(double tokens) { return set("tokens_per_gpu_per_s", tokens); }

        /** {@code metrics.step_time_s}: seconds an optimizer step. */
        public Measurements stepTimeS(double seconds) { return set("step_time_s", seconds); }

        /** {@code metrics.fwd_bwd_time_s}: forward and backward of every micro-batch of a step. */
        public Measurements fwdBwdTimeS(double seconds) { return set("fwd_bwd_time_s", seconds); }

        /** {@code metrics.forward_time_s}. */
        public Measurements forwardTimeS(double seconds) { return set("forward_time_s", seconds); }

        /** {@code metrics.backward_time_s}. */
        public Measurements backwardTimeS(double seconds) { return set("backward_time_s", seconds); }

        /** {@code metrics.optimizer_time_s}. */
        public Measurements optimizerTimeS(double seconds) { return set("optimizer_time_s", seconds); }

        /** {@code metrics.tflops_per_gpu}, counted as the run's framework prints them (it must print them). */
        public Measurements tflopsPerGpu(double tflops) { return set("tflops_per_gpu", tflops); }

        /**
         * {@code metrics.tflops_per_gpu} with {@code metrics.tflops_convention}: how the printed TFLOPS were counted
         * ("megatron", "internevo", "6nd", ...).
         */
        public Measurements tflopsPerGpu(double tflops, String convention) {
            set("tflops_per_gpu", tflops);
            return set("tflops_convention", convention);
        }

        /** {@code metrics.mfu}: a fraction between 0 and 1. */
        public Measurements mfu(double mfu) { return set("mfu", mfu); }

        /** {@code metrics.peak_memory_gb}: the peak GPU memory allocated. */
        public Measurements peakMemoryGb(double gb) { return set("peak_memory_gb", gb); }

        /** {@code metrics.steps}: steps measured. */
        public Measurements steps(long steps) { return set("steps", steps); }

        private Measurements set(String key, Object value) {
            values.put("metrics." + key, value);
            return this;
        }
    }
}
