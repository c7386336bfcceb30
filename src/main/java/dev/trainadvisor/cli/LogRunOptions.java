package dev.trainadvisor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.assemble.RunFiles;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.Assumption;
import dev.trainadvisor.spec.JsonTrees;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A run described on the command line around a training log: the options as run-file fields, read by the one assembly
 * of a log (assemble.RunFiles#aroundLog, which batch and the library use too). Each run-file field comes from the
 * command line if an option gives it, else from the configuration the log prints, else it is derived (the micro-batches
 * from the global batch the log prints) or assumed, with a warning on standard error naming the field and the option
 * that sets it. A log that measures no training throughput (nccl-tests output, a topology matrix, a log without steps)
 * is refused.
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

    /** The run-file field each option sets, with its value where given: the command line's part of the run. */
    private Map<String, Object> given() {
        Object[][] all = {{"parallel.tp", tp}, {"parallel.pp", pp}, {"parallel.dp", dp}, {"parallel.cp", cp}, {"parallel.ep", ep},
                {"parallel.zero_stage", zeroStage}, {"parallel.zero_group_size", zeroGroupSize},
                {"parallel.sequence_parallel", sequenceParallel}, {"parallel.virtual_stages", virtualStages},
                {"training.seq_len", seqLen}, {"training.micro_batch_size", microBatchSize},
                {"training.micro_batches", microBatches}, {"training.recompute", recompute}, {"training.precision", precision},
                {"training.flash_attention", flashAttention}, {"training.attention_kernel", attentionKernel},
                {"training.elementwise_kernels", elementwiseKernels}, {"training.cuda_graphs", cudaGraphs},
                {"training.optimizer_kernel", optimizerKernel}, {"training.framework", framework},
                {"training.framework_version", frameworkVersion}};
        Map<String, Object> m = new LinkedHashMap<>();
        for (Object[] f : all) if (f[1] != null) m.put((String) f[0], f[1]);
        return m;
    }

    /**
     * The run the options and the log describe, read as a run file that names its log is (assemble.RunFiles#aroundLog):
     * the notes and the values it had to assume, each with the option that sets it, are written on {@code err}.
     */
    RunSpec run(PrintWriter err) {
        if (cluster == null) throw new SpecException("--cluster", null, "a cluster preset or file: the log does not say which cluster ran it");
        ObjectNode root = JSON.createObjectNode();
        Map<String, String> options = new LinkedHashMap<>();
        root.set("cluster", presetOrFile(cluster, "--cluster", true));
        options.put("cluster", "--cluster");
        if (nodes != null) {
            ((ObjectNode) root.get("cluster")).put("nodes", nodes);
            options.put("cluster.nodes", "--nodes");
        }
        if (model != null) {
            root.set("model", presetOrFile(model, "--model", false));
            options.put("model", "--model");
        }
        given().forEach((key, value) -> {
            JsonTrees.put(root, key, JSON.valueToTree(value));
            options.put(key, RunFiles.LOG_OPTIONS.get(key));
        });
        RunSpec s = RunFiles.aroundLog(root, log, options, err::println);
        for (Assumption a : s.run().assumed()) err.println(a.line());
        err.flush();
        return s;
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
}
