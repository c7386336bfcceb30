package dev.trainadvisor.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.assemble.RunFiles;
import dev.trainadvisor.report.Json;
import dev.trainadvisor.report.SearchReport;
import dev.trainadvisor.search.LayoutSearch;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.SpecReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

@Command(name = "search", mixinStandardHelpOptions = true,
        description = "The fastest layouts of a run on its GPUs at the same global batch: tensor, pipeline, context, data "
                + "and expert parallelism, ZeRO, micro-batches and recomputation, each predicted by the step model.")
final class SearchCommand implements Callable<Integer> {
    enum Format { md, json, csv }

    enum Keep { global_batch, tokens }

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "RUN", description = "a run file whose layout to improve")
    Path run;

    @Option(names = "--top", defaultValue = "5", description = "layouts to list (default 5)")
    int top;

    @Option(names = "--keep", defaultValue = "global-batch", converter = KeepConverter.class,
            description = "what stays fixed: global-batch (sequences) or tokens; the same while seq_len is kept")
    Keep keep;

    @Option(names = "--vary", split = ",", paramLabel = "KNOB",
            description = "knobs to vary (default all but fp8): tp, pp, virtual_stages, cp, ep, etp, sequence_parallel, zero_stage, micro_batch_size, recompute, offload (the optimizer's states on the host, at ZeRO 3 the parameters too, only where nothing fits without), fp8 (GEMMs in fp8 where the GPU has it; changes the numerics)")
    List<String> vary;

    @Option(names = "--headroom", defaultValue = "0.05", description = "share of GPU memory a layout must leave free (default 0.05)")
    double headroom;
    @Option(names = "--threads", description = "worker threads (default: the processors)") Integer threads;
    @Option(names = "--format", defaultValue = "md", description = "md (default), json or csv") Format format;

    @Option(names = "--timing", description = "also print how long the search took, on standard error (the output itself "
            + "stays the same for the same input)")
    boolean timing;

    @Option(names = "--model", description = "without RUN: a model preset or file") String model;
    @Option(names = "--cluster", description = "without RUN: a cluster preset or file") String cluster;
    @Option(names = "--gpus", description = "without RUN: how many GPUs") Integer gpus;
    @Option(names = "--global-batch-tokens", description = "without RUN: tokens per optimizer step") Long batchTokens;
    @Option(names = "--seq-len", description = "without RUN: the sequence length") Integer seqLen;
    @Option(names = "--framework", description = "without RUN: the framework that runs the layouts (a profile of "
            + "knowledge-base/frameworks: megatron-core, deepspeed, pytorch, ...; default generic)") String framework;
    @Option(names = "--framework-version", description = "without RUN: its version, where the profile has several")
    String frameworkVersion;

    @Mixin
    CommonOptions common;

    static final class KeepConverter implements picocli.CommandLine.ITypeConverter<Keep> {
        @Override
        public Keep convert(String v) {
            return switch (v) {
                case "global-batch" -> Keep.global_batch;
                case "tokens" -> Keep.tokens;
                default -> throw new picocli.CommandLine.TypeConversionException("global-batch or tokens, got '" + v + "'");
            };
        }
    }

    @Override
    public Integer call() {
        if (run != null && (framework != null || frameworkVersion != null))
            throw new SpecException(framework != null ? "--framework" : "--framework-version", null,
                    "no framework option with a run file: it names its framework with training.framework");
        RunSpec s = run != null ? RunFiles.read(run) : fromFlags();
        Set<String> knobs = new LinkedHashSet<>(vary == null ? LayoutSearch.DEFAULT_KNOBS : vary);
        for (String k : knobs)
            if (!LayoutSearch.KNOBS.contains(k))
                throw new SpecException("--vary", null, "knobs among " + String.join(", ", LayoutSearch.KNOBS) + ", got '" + k + "'");
        if (top < 1) throw new SpecException("--top", null, "at least 1, got " + top);
        if (headroom < 0 || headroom >= 1) throw new SpecException("--headroom", null, "a share from 0 to 1, got " + headroom);
        if (knobs.contains("fp8") && !s.cluster().gpu().peakTflops().containsKey(dev.trainadvisor.spec.Precision.FP8))
            spec.commandLine().getErr().println("note: --vary fp8: the " + s.cluster().gpu().key()
                    + " has no fp8 tensor cores in the catalogue; fp8 is not searched");
        LayoutSearch.Options o = new LayoutSearch.Options(top, headroom, Set.copyOf(knobs),
                threads != null ? threads : Runtime.getRuntime().availableProcessors());
        LayoutSearch.Result r = LayoutSearch.search(s, o);
        String text = switch (format) {
            case md -> SearchReport.markdown(s, r, o, run != null);
            case json -> Json.of(SearchReport.view(r));
            case csv -> SearchReport.csv(r);
        };
        common.write(text, spec.commandLine().getOut());
        if (timing)
            spec.commandLine().getErr().printf(java.util.Locale.ROOT, "searched %d layouts in %.3f s: %.0f layouts a second, %d timed%n",
                    r.visited(), r.seconds(), r.visited() / Math.max(r.seconds(), 1e-9), r.predicted());
        return Main.OK;
    }

    /**
     * A base run from --model, --cluster, --gpus, --global-batch-tokens and --seq-len: as many data-parallel replicas as
     * the batch divides among the GPUs, tensor parallelism inside a node for the rest and pipeline parallelism beyond
     * it, micro-batch 1. It is where the search starts, not an answer.
     */
    private RunSpec fromFlags() {
        if (model == null || cluster == null || gpus == null || batchTokens == null || seqLen == null)
            throw new SpecException("search", null, "a run file (RUN), or all of --model, --cluster, --gpus, "
                    + "--global-batch-tokens and --seq-len");
        ObjectMapper j = new ObjectMapper();
        ObjectNode probe = j.createObjectNode();
        probe.put("name", model + "-on-" + gpus);
        probe.putObject("cluster").put("preset", cluster);
        probe.put("model", model);
        ObjectNode training = probe.putObject("training").put("seq_len", seqLen).put("micro_batch_size", 1);
        if (framework != null) training.put("framework", framework);
        if (frameworkVersion != null) training.put("framework_version", frameworkVersion);
        RunSpec one = new SpecReader().read(probe, "search");
        int perNode = one.cluster().gpusPerNode();
        if (gpus < 1 || gpus % perNode != 0)
            throw new SpecException("--gpus", null, "a multiple of the cluster's " + perNode + " GPUs per node, got " + gpus);
        long seqs = batchTokens / seqLen;
        if (seqs < 1 || seqs * seqLen != batchTokens)
            throw new SpecException("--global-batch-tokens", null, "a multiple of --seq-len (" + seqLen + "), got " + batchTokens);
        int dp = (int) java.math.BigInteger.valueOf(seqs).gcd(java.math.BigInteger.valueOf(gpus)).longValue();
        int mp = gpus / dp, heads = one.run().model().heads(), tp = 1;
        for (int d = 1; d <= Math.min(mp, perNode); d++) if (mp % d == 0 && heads % d == 0) tp = d;
        if (mp / tp > one.run().model().layers())
            throw new SpecException("--gpus", null, "GPUs among which the batch of " + seqs + " sequences divides: "
                    + gcdNote(seqs, gpus, dp) + ", leaving " + mp + " GPUs a replica, more than tensor (" + tp
                    + ") and pipeline parallelism over the model's " + one.run().model().layers() + " layers can use; got " + gpus);
        ((ObjectNode) probe.get("cluster")).put("nodes", gpus / perNode);
        ((ObjectNode) probe.get("parallel") == null ? probe.putObject("parallel") : (ObjectNode) probe.get("parallel"))
                .put("tp", tp).put("pp", mp / tp).put("dp", dp);
        ((ObjectNode) probe.get("training")).put("micro_batches", seqs / dp);
        return new SpecReader().read(probe, model + "-on-" + gpus);
    }

    private static String gcdNote(long seqs, int gpus, int dp) {
        return "at most " + dp + " data-parallel replicas (the largest common divisor of " + seqs + " and " + gpus + ")";
    }

}
