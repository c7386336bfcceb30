package dev.trainadvisor.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.assemble.Described;
import dev.trainadvisor.assemble.RunFiles;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.Assumption;
import dev.trainadvisor.spec.JsonTrees;
import dev.trainadvisor.spec.RunSpec;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A run described on the command line around a training log, in three groups of options (the log and what ran it,
 * the run's training settings, its layout): the options as run-file fields, read by the one assembly of a log
 * (assemble.RunFiles#aroundLog, which batch and the library use too). Each run-file field comes from the command line
 * if an option gives it, else from the configuration the log prints, else it is derived (the micro-batches from the
 * global batch the log prints) or assumed, with a warning on standard error naming the field and the option that sets
 * it; the advice lists them too. A log that measures no training throughput (nccl-tests output, a topology matrix, a
 * log without steps) is refused. Only the picocli side lives here: what is guessed, and how, is assemble's.
 */
final class LogRunOptions {
    private LogRunOptions() {}

    /** The log and what ran it. */
    static final class Log extends CommonOptions.ClusterAndModel {
        @Option(names = "--log", paramLabel = "LOG", order = 1, description = "a training log (a file, or a folder of one log per "
                + "rank), its format recognised by content; advised instead of RUN (required without RUN)")
        Path log;

        @Option(names = "--nodes", paramLabel = "N", order = 3,
                description = "nodes of the cluster (default: the preset's or the file's)")
        Integer nodes;
    }

    /** The training settings: what a step processes and which kernels run it. */
    static final class Run extends CommonOptions.FrameworkChoice {
        @Option(names = "--seq-len", paramLabel = "TOKENS", order = 10,
                description = "tokens a sequence (default: the log's, else the one its printed TFLOPS were counted at; "
                        + "required where it gives neither)")
        Integer seqLen;

        @Option(names = "--micro-batch-size", paramLabel = "N", order = 11, description = "sequences a micro-batch (default: "
                + "the log's, else global batch / (micro-batches x dp), else 1, assumed)")
        Integer microBatchSize;

        @Option(names = "--micro-batches", paramLabel = "N", order = 12, description = "micro-batches accumulated a step "
                + "(default: the log's, else the global batch it prints / (micro-batch size x dp), else 1, assumed)")
        Integer microBatches;

        @Option(names = "--recompute", paramLabel = "MODE", order = 13, completionCandidates = Candidates.Recomputes.class,
                description = "activation recomputation: ${COMPLETION-CANDIDATES} (default: the log's, else none, assumed)")
        String recompute;

        @Option(names = "--precision", paramLabel = "DTYPE", order = 14, completionCandidates = Candidates.Precisions.class,
                description = "the GEMMs' precision: ${COMPLETION-CANDIDATES} (default: the log's, else bf16, or fp16 on a GPU "
                        + "without bf16, assumed)")
        String precision;

        @Option(names = "--flash-attention", paramLabel = "BOOL", arity = "1", order = 15,
                completionCandidates = Candidates.Booleans.class,
                description = "fused (flash) attention: ${COMPLETION-CANDIDATES} (default: the log's, else the framework's)")
        Boolean flashAttention;

        @Option(names = "--attention-kernel", paramLabel = "KERNEL", order = 16, completionCandidates = Candidates.AttentionKernels.class,
                description = "the attention kernel: ${COMPLETION-CANDIDATES}; fa2, fa1, triton, fa3 and cudnn are flash "
                        + "kernels, unfused, math and eager are not (default: the framework's, else fa2 with flash, unfused "
                        + "without)")
        String attentionKernel;

        @Option(names = "--elementwise-kernels", paramLabel = "ELEMENTWISE", order = 17, completionCandidates = Candidates.Elementwise.class,
                description = "norms, activations and rotary: ${COMPLETION-CANDIDATES} (hand-fused, torch.compile's, PyTorch "
                        + "eager ops, eager ops with a fused RMSNorm; default: the framework's, else fused)")
        String elementwiseKernels;

        @Option(names = "--cuda-graphs", paramLabel = "BOOL", arity = "1", order = 18, completionCandidates = Candidates.Booleans.class,
                description = "forward and backward replayed from CUDA graphs: ${COMPLETION-CANDIDATES} (default: false)")
        Boolean cudaGraphs;

        @Option(names = "--optimizer-kernel", paramLabel = "OPTIMIZER", order = 19, completionCandidates = Candidates.OptimizerKernels.class,
                description = "AdamW's kernel: ${COMPLETION-CANDIDATES} (fused: AdamW(fused=True), the Trainer's "
                        + "adamw_torch_fused; foreach: its default without, the Trainer's adamw_torch; default: fused)")
        String optimizerKernel;
    }

    /** The parallel layout. */
    static final class Layout {
        @Option(names = "--tp", paramLabel = "N", order = 30,
                description = "tensor-parallel size (default: the log's, else 1, assumed)")
        Integer tp;

        @Option(names = "--pp", paramLabel = "N", order = 31,
                description = "pipeline stages (default: the log's, else 1, assumed)")
        Integer pp;

        @Option(names = "--dp", paramLabel = "N", order = 32,
                description = "data-parallel size (default: the log's, else GPUs / (tp x pp x cp))")
        Integer dp;

        @Option(names = "--cp", paramLabel = "N", order = 33, description = "context-parallel size (default: the log's, else 1)")
        Integer cp;

        @Option(names = "--ep", paramLabel = "N", order = 34,
                description = "expert-parallel size of an MoE (default: the log's, else 1, assumed)")
        Integer ep;

        @Option(names = "--zero-stage", paramLabel = "STAGE", order = 35, description = "ZeRO stage, 0-3 (3: FSDP full shard; "
                + "default: the log's, else the stage at which the run fits whose predicted peak memory is nearest the "
                + "peak the log measured, else the lowest that fits, assumed)")
        Integer zeroStage;

        @Option(names = "--zero-group-size", paramLabel = "N", order = 36,
                description = "ranks that shard the ZeRO states (default: the log's, else dp)")
        Integer zeroGroupSize;

        @Option(names = "--sequence-parallel", order = 37,
                description = "sequence parallelism with tensor parallelism (default: the log's, else off)")
        Boolean sequenceParallel;

        @Option(names = "--virtual-stages", paramLabel = "N", order = 38,
                description = "interleaved pipeline stages a GPU holds (default: the log's, else 1)")
        Integer virtualStages;

        @Option(names = "--rank-order", paramLabel = "ORDER", order = 39, completionCandidates = Candidates.RankOrders.class,
                description = "how ranks are numbered, innermost first: ${COMPLETION-CANDIDATES} (tp-cp-pp-dp: Megatron's "
                        + "--use-tp-pp-dp-mapping; default: the log's, else the framework's)")
        String rankOrder;
    }

    static final ObjectMapper JSON = new ObjectMapper();

    /** The run-file field each option sets, with its value where given: the command line's part of the run. */
    static Map<String, Object> given(Run r, Layout l) {
        Object[][] all = {{"parallel.tp", l.tp}, {"parallel.pp", l.pp}, {"parallel.dp", l.dp}, {"parallel.cp", l.cp},
                {"parallel.ep", l.ep}, {"parallel.zero_stage", l.zeroStage}, {"parallel.zero_group_size", l.zeroGroupSize},
                {"parallel.sequence_parallel", l.sequenceParallel}, {"parallel.virtual_stages", l.virtualStages},
                {"parallel.rank_order", l.rankOrder},
                {"training.seq_len", r.seqLen}, {"training.micro_batch_size", r.microBatchSize},
                {"training.micro_batches", r.microBatches}, {"training.recompute", r.recompute}, {"training.precision", r.precision},
                {"training.flash_attention", r.flashAttention}, {"training.attention_kernel", r.attentionKernel},
                {"training.elementwise_kernels", r.elementwiseKernels}, {"training.cuda_graphs", r.cudaGraphs},
                {"training.optimizer_kernel", r.optimizerKernel}, {"training.framework", r.framework},
                {"training.framework_version", r.frameworkVersion}};
        Map<String, Object> m = new LinkedHashMap<>();
        for (Object[] f : all) if (f[1] != null) m.put((String) f[0], f[1]);
        return m;
    }

    /** Whether any option of the run's or the layout's group was given (they describe a log: without --log, an error). */
    static boolean any(Run r, Layout l) { return !given(r, l).isEmpty(); }

    /**
     * The run the options and the log describe, read as a run file that names its log is (assemble.RunFiles#aroundLog):
     * the notes and the values it had to assume, each with the option that sets it, are written on {@code err}.
     */
    static RunSpec run(Log log, Run r, Layout l, PrintWriter err) {
        if (log.cluster == null)
            throw new SpecException("--cluster", null, "a cluster preset or file: the log does not say which cluster ran it");
        ObjectNode root = JSON.createObjectNode();
        Map<String, String> options = new LinkedHashMap<>(), files = new LinkedHashMap<>();
        log.putInto(root, options, files);
        if (log.nodes != null) {
            ((ObjectNode) root.get("cluster")).put("nodes", log.nodes);
            options.put("cluster.nodes", "--nodes");
        }
        given(r, l).forEach((key, value) -> {
            JsonTrees.put(root, key, JSON.valueToTree(value));
            options.put(key, RunFiles.LOG_OPTIONS.get(key));
        });
        RunSpec s = RunFiles.aroundLog(root, log.log, Described.commandLine(options, files), err::println);
        for (Assumption a : s.run().assumed()) err.println(a.line());
        err.flush();
        return s;
    }
}
