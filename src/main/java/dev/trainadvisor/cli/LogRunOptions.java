package dev.trainadvisor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.ingest.LogFormats;
import dev.trainadvisor.ingest.ParsedLog;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.perf.MemoryEstimate;
import dev.trainadvisor.perf.StepModel;
import dev.trainadvisor.spec.Metric;
import dev.trainadvisor.spec.Names;
import dev.trainadvisor.spec.Presets;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A run described on the command line around a training log. Each run-file field comes from the command line if an
 * option gives it, else from the configuration the log prints, else it is derived (the micro-batches from the global
 * batch the log prints) or assumed, with a warning on standard error naming the field and the option that sets it.
 * A log that measures no training throughput (nccl-tests output, a topology matrix, a log without steps) is refused.
 */
final class LogRunOptions {
    @Option(names = "--log", paramLabel = "LOG", description = "a training log; its metrics (and the configuration it prints) join the run")
    Path log;

    @Option(names = "--cluster", paramLabel = "PRESET|FILE", description = "a cluster preset name, or a JSON/YAML file with the cluster's fields")
    String cluster;

    @Option(names = "--nodes", description = "nodes of the cluster")
    Integer nodes;

    @Option(names = "--model", paramLabel = "PRESET|FILE", description = "a model preset name, or a JSON/YAML file with the model's fields")
    String model;

    @Option(names = "--tp") Integer tp;
    @Option(names = "--pp") Integer pp;
    @Option(names = "--dp") Integer dp;
    @Option(names = "--cp") Integer cp;
    @Option(names = "--ep") Integer ep;
    @Option(names = "--zero-stage") Integer zeroStage;
    @Option(names = "--zero-group-size") Integer zeroGroupSize;
    @Option(names = "--sequence-parallel") Boolean sequenceParallel;
    @Option(names = "--virtual-stages") Integer virtualStages;
    @Option(names = "--seq-len") Integer seqLen;
    @Option(names = "--micro-batch-size") Integer microBatchSize;
    @Option(names = "--micro-batches") Integer microBatches;
    @Option(names = "--recompute", description = "none, selective or full") String recompute;
    @Option(names = "--precision", description = "bf16, fp16, fp8 or fp32") String precision;
    @Option(names = "--flash-attention", arity = "1", description = "true or false") Boolean flashAttention;
    @Option(names = "--attention-kernel", description = "with flash attention fa2, fa1, triton, fa3 or cudnn; without it unfused, math or eager") String attentionKernel;
    @Option(names = "--elementwise-kernels", description = "fused (hand-fused kernels), compiled (torch.compile) or eager (PyTorch without torch.compile)") String elementwiseKernels;
    @Option(names = "--cuda-graphs", arity = "1", description = "true when forward and backward replay CUDA graphs") Boolean cudaGraphs;
    @Option(names = "--optimizer-kernel", description = "fused (the default: AdamW(fused=True), the Trainer's adamw_torch_fused) or foreach (AdamW's default without fused, the Trainer's adamw_torch)") String optimizerKernel;
    @Option(names = "--framework", description = "the framework that ran it (a profile of knowledge-base/frameworks: megatron-core, deepspeed, pytorch, internevo, ...); default: the one the log's format names") String framework;
    @Option(names = "--framework-version", description = "its version, where the profile has several") String frameworkVersion;

    static final ObjectMapper JSON = new ObjectMapper();

    /** The configuration key of the global batch in sequences per optimizer step: not a run-file field, it gives the micro-batches. */
    static final String GLOBAL_BATCH = "training.global_batch_size";

    /** The run-file field each option sets, with the option's name: the command line's part of the run. */
    private Map<String, Object[]> given() {
        Map<String, Object[]> m = new LinkedHashMap<>();
        Object[][] all = {{"parallel.tp", "--tp", tp}, {"parallel.pp", "--pp", pp}, {"parallel.dp", "--dp", dp},
                {"parallel.cp", "--cp", cp}, {"parallel.ep", "--ep", ep}, {"parallel.zero_stage", "--zero-stage", zeroStage},
                {"parallel.zero_group_size", "--zero-group-size", zeroGroupSize},
                {"parallel.sequence_parallel", "--sequence-parallel", sequenceParallel},
                {"parallel.virtual_stages", "--virtual-stages", virtualStages}, {"training.seq_len", "--seq-len", seqLen},
                {"training.micro_batch_size", "--micro-batch-size", microBatchSize},
                {"training.micro_batches", "--micro-batches", microBatches}, {"training.recompute", "--recompute", recompute},
                {"training.precision", "--precision", precision}, {"training.flash_attention", "--flash-attention", flashAttention},
                {"training.attention_kernel", "--attention-kernel", attentionKernel},
                {"training.elementwise_kernels", "--elementwise-kernels", elementwiseKernels},
                {"training.cuda_graphs", "--cuda-graphs", cudaGraphs}, {"training.optimizer_kernel", "--optimizer-kernel", optimizerKernel},
                {"training.framework", "--framework", framework},
                {"training.framework_version", "--framework-version", frameworkVersion}};
        for (Object[] f : all) if (f[2] != null) m.put((String) f[0], new Object[]{f[1], f[2]});
        return m;
    }

    /**
     * The run the options and the log describe, validated as a run file; the values it had to assume are each named
     * in a warning on {@code err}.
     */
    RunSpec run(SpecReader reader, PrintWriter err) {
        if (cluster == null) throw new SpecException("--cluster", null, "a cluster preset or file: the log does not say which cluster ran it");
        String file = log.toString();
        ParsedLog parsed = dev.trainadvisor.assemble.Logs.read(log);
        requireTrainingThroughput(parsed, file);
        for (String w : parsed.warnings()) err.println("note: " + file + ": " + w);
        ObjectNode tree = tree(parsed, err);
        Guess guess = new Guess(reader, tree, parsed, file, err);
        guess.layoutAndBatch();
        guess.zeroStage();
        err.flush();
        return reader.read(tree, file, false, parsed.format()).withHistory(parsed.history());
    }

    /** A log is advised for its measured throughput: nccl-tests output, a topology matrix or a log without it is refused. */
    static void requireTrainingThroughput(ParsedLog p, String file) {
        if (p.format().equals("nccl-tests"))
            throw new SpecException(file, null, "a training log to advise; this is nccl-tests output, which measures the "
                    + "links, not a training run: a run file names it with nccl_tests: (its bus bandwidth joins the cluster)");
        if (p.format().equals("nvidia-smi-topo"))
            throw new SpecException(file, null, "a training log to advise; this is the output of nvidia-smi topo -m, which "
                    + "shows how the GPUs connect, not a training run: a run file names it with topology:");
        if (p.steps() == 0)
            throw new SpecException(file, null, "a training log with training steps to advise; the " + p.format()
                    + " log has none");
        Map<String, Double> m = p.metrics();
        boolean measured = m.containsKey(Metric.TOKENS_PER_GPU_PER_S.key()) || m.containsKey(Metric.STEP_TIME_S.key())
                || m.containsKey(Metric.MFU.key()) || m.containsKey(Metric.TFLOPS_PER_GPU.key()) && p.tflopsConvention() != null;
        if (!measured)
            throw new SpecException(file, "metrics", "a training log that measures throughput (tokens per GPU per second, "
                    + "step time, TFLOPS or MFU); the " + p.format() + " log's " + p.steps() + " steps measure none of these");
    }

    /**
     * The run file: the command line's fields, then what the log prints where the command line says nothing (a
     * command-line value that differs from the log's is kept, with a note), then the log's metrics.
     */
    private ObjectNode tree(ParsedLog parsed, PrintWriter err) {
        ObjectNode root = JSON.createObjectNode();
        String stem = log.getFileName().toString();
        root.put("name", stem.contains(".") ? stem.substring(0, stem.lastIndexOf('.')) : stem);
        root.set("cluster", presetOrFile(cluster, "--cluster", true));
        if (nodes != null) ((ObjectNode) root.get("cluster")).put("nodes", nodes);
        if (model != null) root.set("model", presetOrFile(model, "--model", false));
        root.putObject("parallel");
        root.putObject("training");
        Map<String, Object[]> given = given();
        given.forEach((key, option) -> put(root, key, JSON.valueToTree(option[1])));
        String format = parsed.format();
        JsonNode modelFields = model == null ? null : root.get("model").isTextual() ? preset(root.get("model").asText()) : root.get("model");
        for (Map.Entry<String, Object> e : parsed.config().entrySet()) {
            String key = e.getKey();
            if (key.equals(GLOBAL_BATCH)) continue;
            JsonNode value = JSON.valueToTree(e.getValue());
            // --model names the model: the shape the log prints is only checked against it
            boolean ofModel = key.startsWith("model.") && model != null;
            JsonNode have = ofModel ? (modelFields == null ? null : at(modelFields, key.substring("model.".length()))) : at(root, key);
            if (have == null && !ofModel) put(root, key, value);
            else if (have != null && !same(have, value)) {
                String option = given.containsKey(key) ? (String) given.get(key)[0] + " " + have.asText()
                        : "--" + key.substring(0, key.indexOf('.')) + " (" + key + " " + have.asText() + ")";
                err.println("note: " + option + " replaces the " + format + " log's " + key + " " + value.asText());
            }
        }
        if (!root.has("model"))
            throw new SpecException("--model", null, "a model preset or file: the " + format + " log does not print the model's shape");
        if (at(root, "training.seq_len") == null)
            throw new SpecException(log.toString(), "training.seq_len", "the sequence length: the " + format
                    + " log does not print it; set --seq-len");
        ObjectNode metrics = root.putObject("metrics");
        parsed.metrics().forEach((k, v) -> {
            if (Metric.keys().contains(k) && !k.equals(Metric.TFLOPS_CONVENTION.key()) && v != null && !v.isNaN()) metrics.put(k, v);
        });
        // a TFLOPS figure whose FLOPs count is unknown cannot be compared
        if (parsed.tflopsConvention() != null && metrics.has(Metric.TFLOPS_PER_GPU.key()))
            metrics.put(Metric.TFLOPS_CONVENTION.key(), parsed.tflopsConvention());
        else metrics.remove(Metric.TFLOPS_PER_GPU.key());
        return root;
    }

    /** The values neither the command line nor the log gives: derived where the log allows, else assumed with a warning. */
    private record Guess(SpecReader reader, ObjectNode tree, ParsedLog parsed, String file, PrintWriter err) {
        private void assume(String key, Object value, String option, String why) {
            put(tree, key, JSON.valueToTree(value));
            err.println("warning: " + key + " not printed by the log; assumed " + value + (why.isEmpty() ? "" : ", " + why)
                    + " (set " + option + ")");
        }

        private boolean has(String key) { return at(tree, key) != null; }

        /** The layout, the precision and the micro-batches. */
        void layoutAndBatch() {
            if (!has("parallel.tp")) assume("parallel.tp", 1, "--tp", "");
            if (!has("parallel.pp")) assume("parallel.pp", 1, "--pp", "");
            ObjectNode draft = tree.deepCopy();
            // a first reading of the run with stand-ins, for the cluster's GPUs and the data-parallel ranks
            if (!has("training.micro_batch_size")) put(draft, "training.micro_batch_size", JSON.valueToTree(1));
            if (!has("training.precision")) put(draft, "training.precision", JSON.valueToTree("fp16"));
            RunSpec first = reader.read(draft, file, false, parsed.format());
            if (first.run().model().isMoe() && !has("parallel.ep")) assume("parallel.ep", 1, "--ep", "");
            if (!has("training.recompute")) assume("training.recompute", "none", "--recompute", "");
            if (!has("training.precision")) {
                boolean bf16 = first.cluster().gpu().peakTflops().get(Precision.BF16) != null;
                assume("training.precision", bf16 ? "bf16" : "fp16", "--precision", bf16 ? ""
                        : "as " + first.cluster().gpu().key() + " has no bf16 tensor cores");
            }
            microBatches(first.run().parallel().dp(), first.run().training().seqLen());
        }

        /**
         * Micro-batches from the global batch the log prints, in sequences per optimizer step: global batch =
         * micro_batch_size x micro_batches x dp (log-formats.md).
         */
        private void microBatches(int dp, int seqLen) {
            GlobalBatch global = globalBatch(parsed, seqLen);
            boolean size = has("training.micro_batch_size"), count = has("training.micro_batches");
            if (global == null) {
                if (!size) assume("training.micro_batch_size", 1, "--micro-batch-size", "");
                if (!count) assume("training.micro_batches", 1, "--micro-batches", "the log prints no global batch size");
                return;
            }
            if (!size && count) {
                int mb = at(tree, "training.micro_batches").asInt();
                derive("training.micro_batch_size", "sequences per micro-batch", global, mb, "micro_batches", dp,
                        "--micro-batch-size or --micro-batches");
                return;
            }
            if (!size) assume("training.micro_batch_size", 1, "--micro-batch-size", "");
            int mbs = at(tree, "training.micro_batch_size").asInt();
            if (!count) {
                derive("training.micro_batches", "micro-batches per step", global, mbs, "micro_batch_size", dp,
                        "--micro-batch-size, the layout (--tp, --pp, --cp, --dp) or --micro-batches");
                return;
            }
            long mb = at(tree, "training.micro_batches").asLong();
            if (mbs * mb * dp != global.sequences())
                err.println("warning: micro_batch_size x micro_batches x dp = " + mbs + " x " + mb + " x " + dp + " = "
                        + mbs * mb * dp + " sequences a step, but " + global.said());
        }

        /** {@code key} = global batch / (the other factor x dp), a whole number or an error naming {@code key}. */
        private void derive(String key, String noun, GlobalBatch global, int other, String otherKey, int dp, String options) {
            long per = (long) other * dp;
            if (global.sequences() % per != 0)
                throw new SpecException(file, key, "a whole number of " + noun + ": " + global.said() + " is not a multiple of "
                        + otherKey + " x dp = " + other + " x " + dp + " = " + per + "; set " + options);
            long value = global.sequences() / per;
            put(tree, key, JSON.valueToTree(value));
            err.println("note: " + key + " " + value + " = " + global.said() + " / (" + otherKey + " " + other + " x dp " + dp + ")");
        }

        /**
         * ZeRO stage, when neither the command line nor the log says: a run that ran fit its GPUs' memory, so of the
         * stages at which it fits, the one whose predicted peak is nearest the peak the log measured, or else the
         * lowest; 0 when none fits.
         */
        void zeroStage() {
            if (has("parallel.zero_stage")) return;
            Double measured = parsed.metrics().get(Metric.PEAK_MEMORY_GB.key());
            int best = -1;
            double bestDistance = Double.POSITIVE_INFINITY;
            String seen = "";
            for (int stage = 0; stage <= 3; stage++) {
                ObjectNode t = tree.deepCopy();
                put(t, "parallel.zero_stage", JSON.valueToTree(stage));
                RunSpec s;
                try {
                    s = reader.read(t, file, false, parsed.format());
                } catch (SpecException e) {
                    if ("parallel.zero_stage".equals(e.field())) continue;   // a stage the framework does not run
                    throw e;
                }
                MemoryEstimate m = StepModel.predict(s.cluster(), s.run()).memory();
                if (m.totalGb() > m.capacityGb()) continue;
                double distance = measured == null ? stage : Math.abs(m.totalGb() - measured);
                if (distance < bestDistance) {
                    best = stage;
                    bestDistance = distance;
                    seen = String.format(Locale.ROOT, "%.1f", m.totalGb());
                }
            }
            if (best < 0) assume("parallel.zero_stage", 0, "--zero-stage", "though the run fits the GPUs' memory at no stage as laid out");
            else if (measured == null) assume("parallel.zero_stage", best, "--zero-stage", best == 0 ? ""
                    : "the lowest stage at which the run fits the GPUs' memory");
            else assume("parallel.zero_stage", best, "--zero-stage", String.format(Locale.ROOT, "the stage at which the run fits "
                    + "and its predicted peak (%s GB) is nearest the %.1f GB the log measured", seen, measured));
        }
    }

    /** A global batch in sequences per optimizer step, and how the log gave it. */
    record GlobalBatch(long sequences, String said) {}

    /**
     * The global batch the log prints: its configuration's, else the global_batch_size it logs per step, else its
     * tokens per step over the sequence length; null when it gives none.
     */
    static GlobalBatch globalBatch(ParsedLog p, int seqLen) {
        Object v = p.config().get(GLOBAL_BATCH);
        if (v == null) v = p.extra().get("global_batch_size");
        if (v instanceof Number n && n.doubleValue() >= 1 && n.doubleValue() == Math.rint(n.doubleValue()))
            return new GlobalBatch(n.longValue(), "the log's global batch of " + n.longValue() + " sequences");
        if (p.extra().get("tokens_per_step") instanceof Number t && seqLen > 0) {
            double sequences = t.doubleValue() / seqLen;
            if (sequences >= 1 && sequences == Math.rint(sequences))
                return new GlobalBatch((long) sequences, "the log's " + t.longValue() + " tokens a step = "
                        + (long) sequences + " sequences of " + seqLen);
        }
        return null;
    }

    /** A model preset's fields, or null when the name is none (the reader then says so). */
    private static JsonNode preset(String name) {
        for (Map.Entry<String, JsonNode> e : Presets.models().entrySet())
            if (Names.normalize(e.getKey()).equals(Names.normalize(name))) return e.getValue();
        return null;
    }

    /** A preset name stays a name (the reader resolves it); an existing file is read as the object itself. */
    private static JsonNode presetOrFile(String value, String option, boolean cluster) {
        Path p = Path.of(value);
        if (Files.isRegularFile(p)) {
            JsonNode n = SpecReader.parse(p);
            if (!n.isObject()) throw new SpecException(value, null, "an object with the " + (cluster ? "cluster" : "model") + "'s fields");
            return n;
        }
        if (cluster) return JSON.createObjectNode().put("preset", value);
        return JSON.getNodeFactory().textNode(value);
    }

    /** The value at a dotted run-file field ("training.seq_len"), or null. */
    static JsonNode at(JsonNode root, String dotted) {
        JsonNode n = root.at("/" + dotted.replace('.', '/'));
        return n.isMissingNode() || n.isNull() ? null : n;
    }

    static void put(ObjectNode root, String dotted, JsonNode value) {
        int dot = dotted.lastIndexOf('.');
        ObjectNode parent = dot < 0 ? root : root.withObject("/" + dotted.substring(0, dot).replace('.', '/'));
        parent.set(dotted.substring(dot + 1), value);
    }

    static boolean same(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) return a.asDouble() == b.asDouble();
        if (a.isTextual() && b.isTextual()) return a.asText().equalsIgnoreCase(b.asText());
        return a.equals(b);
    }
}
