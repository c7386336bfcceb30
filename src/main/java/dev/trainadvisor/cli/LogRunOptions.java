package dev.trainadvisor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.SpecReader;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A run described on the command line around a training log: what the log does not say (the cluster, and
 * the model, layout and batch when the log prints no configuration) comes from these options. They become
 * a run file with {@code log:}, validated like any other.
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
    @Option(names = "--attention-kernel", description = "fa2, fa1, triton or fa3") String attentionKernel;
    @Option(names = "--elementwise-kernels", description = "fused (hand-fused kernels), compiled (torch.compile) or eager (PyTorch without torch.compile)") String elementwiseKernels;
    @Option(names = "--cuda-graphs", arity = "1", description = "true when forward and backward replay CUDA graphs") Boolean cudaGraphs;

    static final ObjectMapper JSON = new ObjectMapper();

    /** The run file these options describe. */
    ObjectNode tree() {
        if (cluster == null) throw new SpecException("--cluster", null, "a cluster preset or file: the log does not say which cluster ran it");
        ObjectNode root = JSON.createObjectNode();
        String stem = log.getFileName().toString();
        root.put("name", stem.contains(".") ? stem.substring(0, stem.lastIndexOf('.')) : stem);
        root.set("cluster", presetOrFile(cluster, "--cluster", true));
        if (nodes != null) ((ObjectNode) root.get("cluster")).put("nodes", nodes);
        if (model != null) root.set("model", presetOrFile(model, "--model", false));
        ObjectNode p = root.putObject("parallel");
        if (tp != null) p.put("tp", tp);
        if (pp != null) p.put("pp", pp);
        if (dp != null) p.put("dp", dp);
        if (cp != null) p.put("cp", cp);
        if (ep != null) p.put("ep", ep);
        if (zeroStage != null) p.put("zero_stage", zeroStage);
        if (zeroGroupSize != null) p.put("zero_group_size", zeroGroupSize);
        if (sequenceParallel != null) p.put("sequence_parallel", sequenceParallel);
        if (virtualStages != null) p.put("virtual_stages", virtualStages);
        ObjectNode t = root.putObject("training");
        if (seqLen != null) t.put("seq_len", seqLen);
        if (microBatchSize != null) t.put("micro_batch_size", microBatchSize);
        if (microBatches != null) t.put("micro_batches", microBatches);
        if (recompute != null) t.put("recompute", recompute);
        if (precision != null) t.put("precision", precision);
        if (flashAttention != null) t.put("flash_attention", flashAttention);
        if (attentionKernel != null) t.put("attention_kernel", attentionKernel);
        if (elementwiseKernels != null) t.put("elementwise_kernels", elementwiseKernels);
        if (cudaGraphs != null) t.put("cuda_graphs", cudaGraphs);
        root.put("log", log.toAbsolutePath().toString());
        return root;
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
