package dev.trainadvisor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.assemble.RunFiles;
import dev.trainadvisor.report.Json;
import dev.trainadvisor.report.SearchReport;
import dev.trainadvisor.search.LayoutSearch;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.SpecReader;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

@Command(name = "search", mixinStandardHelpOptions = true, sortOptions = false, versionProvider = Version.class,
        customSynopsis = {"train-advisor search [SEARCH] [OUTPUT] RUN",
                "   or: train-advisor search --model MODEL --cluster CLUSTER --gpus N",
                "                            --global-batch-tokens TOKENS --seq-len TOKENS [SEARCH] [OUTPUT]"},
        description = "The fastest layouts of a run on its GPUs at the same global batch: tensor, pipeline, context, data "
                + "and expert parallelism, ZeRO, micro-batches and recomputation, each predicted by the step model.",
        exitCodeListHeading = ExitCodes.HEADING, exitCodeList = {ExitCodes.OK, ExitCodes.BAD_INPUT})
final class SearchCommand implements Callable<Integer> {
    enum Format { md, json, csv }

    enum Keep { global_batch, tokens }

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "RUN",
            description = "a run file whose layout to improve; or leave it out and describe the run with the options below")
    Path run;

    @ArgGroup(validate = false, order = 1, heading = "%nRun (instead of RUN):%n")
    Described described = new Described();

    @ArgGroup(validate = false, order = 2, heading = "%nSearch:%n")
    Knobs knobs = new Knobs();

    @ArgGroup(validate = false, order = 3, heading = "%nOutput:%n")
    Out output = new Out();

    /** A run without a run file. */
    static final class Described extends CommonOptions.FrameworkChoice {
        @ArgGroup(validate = false, exclusive = false)
        CommonOptions.ClusterAndModel run = new CommonOptions.ClusterAndModel();

        @Option(names = "--gpus", paramLabel = "N", order = 5,
                description = "how many GPUs, a multiple of the cluster's GPUs per node; required without RUN")
        Integer gpus;

        @Option(names = "--global-batch-tokens", paramLabel = "TOKENS", order = 6,
                description = "tokens per optimizer step, a multiple of --seq-len; required without RUN")
        Long batchTokens;

        @Option(names = "--seq-len", paramLabel = "TOKENS", order = 7, description = "tokens a sequence; required without RUN")
        Integer seqLen;
    }

    /** What the search varies and keeps. */
    static final class Knobs {
        @Option(names = "--top", paramLabel = "K", order = 10, defaultValue = "5",
                description = "layouts to list, best first (default: ${DEFAULT-VALUE})")
        int top = 5;

        @Option(names = "--keep", paramLabel = "WHAT", order = 11, defaultValue = "global-batch", converter = KeepConverter.class,
                completionCandidates = KeepCandidates.class,
                description = "what stays fixed: ${COMPLETION-CANDIDATES} (sequences, or tokens; the same while seq_len is "
                        + "kept; default: ${DEFAULT-VALUE})")
        Keep keep = Keep.global_batch;

        @Option(names = "--vary", split = ",", paramLabel = "KNOB", order = 12, completionCandidates = Candidates.Knobs.class,
                description = "the knobs to vary, comma-separated: ${COMPLETION-CANDIDATES} (offload: the optimizer's "
                        + "states on the host, at ZeRO 3 the parameters too, only where nothing fits without; fp8: GEMMs in "
                        + "fp8 where the GPU has it, which changes the numerics; rank_order: the ranks numbered the other "
                        + "way, for a framework with a switch for it, as Megatron's --use-tp-pp-dp-mapping; default: all "
                        + "but fp8 and rank_order)")
        List<String> vary;

        @Option(names = "--headroom", paramLabel = "SHARE", order = 13, defaultValue = "0.05",
                description = "the share of GPU memory a layout must leave free, 0 to 1 (default: ${DEFAULT-VALUE})")
        double headroom = 0.05;

        @Option(names = "--threads", paramLabel = "N", order = 14,
                description = "worker threads (default: the processors); the result does not depend on them")
        Integer threads;

        @Option(names = "--timing", order = 15, description = "also print how long the search took, on standard error (the "
                + "output itself stays the same for the same input; default: off)")
        boolean timing;
    }

    static final class Out extends CommonOptions.Out {
        @Option(names = "--format", paramLabel = "FORMAT", order = 90, defaultValue = "md",
                description = "${COMPLETION-CANDIDATES}: a Markdown table with the Pareto front, {\"layouts\": [...]}, or one "
                        + "row a layout (default: ${DEFAULT-VALUE})")
        Format format = Format.md;
    }

    static final class KeepCandidates implements Iterable<String> {
        @Override public java.util.Iterator<String> iterator() { return List.of("global-batch", "tokens").iterator(); }
    }

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
        Described d = described == null ? new Described() : described;
        Knobs k = knobs == null ? new Knobs() : knobs;
        Out o = output == null ? new Out() : output;
        if (run != null && (d.framework != null || d.frameworkVersion != null))
            throw new SpecException(d.framework != null ? "--framework" : "--framework-version", null,
                    "no framework option with a run file: it names its framework with training.framework");
        CommonOptions.ClusterAndModel cm = d.run == null ? new CommonOptions.ClusterAndModel() : d.run;
        if (run != null && (cm.model != null || cm.cluster != null || d.gpus != null || d.batchTokens != null || d.seqLen != null))
            throw new SpecException(run.toString(), null, "a run file or --model, --cluster, --gpus, --global-batch-tokens "
                    + "and --seq-len, not both: the run file gives its model, cluster and batch");
        RunSpec s = run != null ? RunFiles.read(run) : fromFlags(d, spec.commandLine().getErr());
        Set<String> knobNames = new LinkedHashSet<>(k.vary == null ? LayoutSearch.DEFAULT_KNOBS : k.vary);
        for (String x : knobNames)
            if (!LayoutSearch.KNOBS.contains(x))
                throw new SpecException("--vary", null, "knobs among " + String.join(", ", LayoutSearch.KNOBS) + ", got '" + x + "'");
        if (k.top < 1) throw new SpecException("--top", null, "at least 1, got " + k.top);
        if (k.headroom < 0 || k.headroom >= 1) throw new SpecException("--headroom", null, "a share from 0 to 1, got " + k.headroom);
        if (knobNames.contains("fp8") && !s.cluster().gpu().peakTflops().containsKey(dev.trainadvisor.spec.Precision.FP8))
            spec.commandLine().getErr().println("note: --vary fp8: the " + s.cluster().gpu().key()
                    + " has no fp8 tensor cores in the catalogue; fp8 is not searched");
        dev.trainadvisor.spec.Framework fw = s.run().training().framework();
        if (knobNames.contains("rank_order") && !fw.switchesRankOrder())
            spec.commandLine().getErr().println("note: --vary rank_order: " + fw.label() + " numbers its ranks "
                    + s.run().parallel().ranks(fw).key() + " with no switch for the other order (knowledge-base/frameworks/"
                    + fw.key() + ".json); rank_order is not searched");
        LayoutSearch.Options opts = new LayoutSearch.Options(k.top, k.headroom, Set.copyOf(knobNames),
                k.threads != null ? k.threads : Runtime.getRuntime().availableProcessors());
        LayoutSearch.Result r = LayoutSearch.search(s, opts);
        String text = switch (o.format) {
            case md -> SearchReport.markdown(s, r, opts, run != null);
            case json -> Json.of(SearchReport.view(r));
            case csv -> SearchReport.csv(r);
        };
        o.write(text, spec.commandLine().getOut());
        if (k.timing)
            spec.commandLine().getErr().printf(java.util.Locale.ROOT, "searched %d layouts in %.3f s: %.0f layouts a second, %d timed%n",
                    r.visited(), r.seconds(), r.visited() / Math.max(r.seconds(), 1e-9), r.predicted());
        return Main.OK;
    }

    /**
     * A base run from --model, --cluster, --gpus, --global-batch-tokens and --seq-len: as many data-parallel replicas as
     * the batch divides among the GPUs, tensor parallelism inside a node for the rest and pipeline parallelism beyond
     * it, micro-batch 1. It is where the search starts, not an answer.
     */
    private static RunSpec fromFlags(Described given, java.io.PrintWriter err) {
        CommonOptions.ClusterAndModel cm = given.run == null ? new CommonOptions.ClusterAndModel() : given.run;
        String model = cm.model, cluster = cm.cluster, framework = given.framework, frameworkVersion = given.frameworkVersion;
        Integer gpus = given.gpus, seqLen = given.seqLen;
        Long batchTokens = given.batchTokens;
        if (model == null || cluster == null || gpus == null || batchTokens == null || seqLen == null)
            throw new SpecException("search", null, "a run file (RUN), or all of --model, --cluster, --gpus, "
                    + "--global-batch-tokens and --seq-len");
        ObjectMapper j = new ObjectMapper();
        ObjectNode probe = j.createObjectNode();
        Map<String, String> options = new LinkedHashMap<>(), files = new LinkedHashMap<>();
        cm.putInto(probe, options, files);
        String name = (files.containsKey("model") ? BatchCommand.stem(Path.of(model)) : model) + "-on-" + gpus;
        probe.put("name", name);
        ObjectNode training = probe.putObject("training").put("seq_len", seqLen).put("micro_batch_size", 1);
        options.put("training.seq_len", "--seq-len");
        if (framework != null) training.put("framework", framework);
        if (frameworkVersion != null) training.put("framework_version", frameworkVersion);
        options.put("training.framework", "--framework");
        options.put("training.framework_version", "--framework-version");
        // a bad value names its option, or the file --cluster or --model named and its field
        dev.trainadvisor.assemble.Described by = dev.trainadvisor.assemble.Described.commandLine(options, files);
        RunSpec one;
        try {
            one = new SpecReader().read(probe, "search");
        } catch (SpecException e) {
            throw by.attribute(e, "search", probe, Set.of());
        }
        int perNode = one.cluster().gpusPerNode();
        if (gpus < 1 || gpus % perNode != 0)
            throw new SpecException("--gpus", null, "a multiple of the cluster's " + perNode + " GPUs per node, got " + gpus);
        if (gpus > dev.trainadvisor.spec.Bounds.GPUS)
            throw new SpecException("--gpus", null, "at most " + dev.trainadvisor.spec.Bounds.GPUS + " GPUs, got " + gpus);
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
        // the job is --gpus of the cluster: a cluster file's own node count is the whole cluster's, said where it differs
        JsonNode fileNodes = files.containsKey("cluster") ? probe.get("cluster").get("nodes") : null;
        if (fileNodes != null && fileNodes.asInt() != gpus / perNode)
            err.println("note: --gpus " + gpus + " is " + gpus / perNode + " node(s) of " + perNode + " GPUs; the search is for"
                    + " them, not for the " + fileNodes.asText() + " node(s) " + files.get("cluster") + " gives");
        ((ObjectNode) probe.get("cluster")).put("nodes", gpus / perNode);
        // from here the node count is --gpus's, not the cluster file's
        options.put("cluster.nodes", "--gpus");
        by = dev.trainadvisor.assemble.Described.commandLine(options, files);
        ((ObjectNode) probe.get("parallel") == null ? probe.putObject("parallel") : (ObjectNode) probe.get("parallel"))
                .put("tp", tp).put("pp", mp / tp).put("dp", dp);
        ((ObjectNode) probe.get("training")).put("micro_batches", seqs / dp);
        try {
            return new SpecReader().read(probe, name);
        } catch (SpecException e) {
            throw by.attribute(e, name, probe, Set.of());
        }
    }

    private static String gcdNote(long seqs, int gpus, int dp) {
        return "at most " + dp + " data-parallel replicas (the largest common divisor of " + seqs + " and " + gpus + ")";
    }

}
