package dev.trainadvisor.assemble;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.ingest.NcclTests;
import dev.trainadvisor.ingest.ParsedLog;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Fields;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;

import dev.trainadvisor.spec.Assumption;
import dev.trainadvisor.spec.Metric;
import dev.trainadvisor.spec.RunMetrics;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Reads a run file and every file it names, and merges them into one {@link RunSpec}: a training log ({@code log:},
 * its steady-state metrics, printed configuration and per-step history), an InternEvo config ({@code config:}),
 * nccl-tests outputs ({@code nccl_tests:} at the top or in {@code cluster.intra_node} / {@code cluster.inter_node})
 * and an {@code nvidia-smi topo -m} matrix ({@code topology:}). Relative names are relative to the run file. What a
 * named file says and the run file contradict is an error naming both; every error is a {@link SpecException} naming
 * the file and field.
 *
 * <p>This layer sits above {@code spec} (which validates a run file that names no other file) and {@code ingest}
 * (which reads logs), so that neither of those needs the other.
 */
public final class RunFiles {
    private RunFiles() {}

    /**
     * The option of {@code advise --log} that sets each run-file field: how the command line names the fields it gives
     * and the values the advice assumed.
     */
    public static final Map<String, String> LOG_OPTIONS = LogInference.OPTIONS;

    /** A run file (JSON, or YAML by its extension) with the files it names. */
    public static RunSpec read(Path file) {
        return read(SpecReader.parse(file), file.toString());
    }

    /**
     * As {@link #read(Path)}; what the named log's parser dropped as no measurement (a nan, infinite, zero or negative
     * step time, with its steps) goes to {@code warnings}, one line each, naming the run file and the log.
     */
    public static RunSpec read(Path file, java.util.function.Consumer<String> warnings) {
        return read(SpecReader.parse(file), file.toString(), warnings, Boundary.NONE);
    }

    /** A parsed run file with the files it names; {@code file} names it in messages and anchors relative names. */
    public static RunSpec read(JsonNode tree, String file) {
        return read(tree, file, path -> Logs.read(path));
    }

    /**
     * As {@link #read(JsonNode, String)}, with the log's dropped values told to {@code warnings}, and every file the run file names (and every file of a
     * folder of per-rank logs) read only when it is inside {@code boundary}: one that leads outside is refused, unread.
     */
    public static RunSpec read(JsonNode tree, String file, java.util.function.Consumer<String> warnings, Boundary boundary) {
        return read(tree, file, path -> {
            ParsedLog log = Logs.read(path, boundary);
            for (String w : log.droppedWarnings()) warnings.accept(file + ": log " + path + ": " + w);
            return log;
        }, boundary);
    }

    /** As {@link #read(JsonNode, String)}, each named log read by {@code logs} (tests give it a log of their own). */
    static RunSpec read(JsonNode tree, String file, Function<Path, ParsedLog> logs) {
        return read(tree, file, logs, Boundary.NONE);
    }

    static RunSpec read(JsonNode tree, String file, Function<Path, ParsedLog> logs, Boundary boundary) {
        if (!(tree instanceof ObjectNode)) return new SpecReader().read(tree, file);   // reports what was expected
        ObjectNode t = tree.deepCopy();
        ParsedLog log = null;
        if (given(t, "log")) {
            log = NamedFiles.log(file, "log", fields(t, file).requireString("log"), "a training log", logs, boundary);
            requireTrainingLog(log, NamedFiles.resolve(file, t.get("log").asText()).toString(), measuresThroughput(t));
        }
        return assemble(t, file, log, logs, Described.FILE, note -> {}, boundary);
    }

    /**
     * A run described around a training log on the command line ({@code advise --log}) or in code: {@code given} holds
     * the run-file fields the user gave, {@code by} the option (or setter) that gave each. What the log prints fills the
     * rest (an option wins over the log, with a note), and what neither gives is derived or assumed as for a run file
     * that names its log (LogInference): the run's {@link RunMetrics#assumed()} lists each. Notes (the log's warnings, an
     * option replacing what the log prints) go to {@code notes}. A log that measures no training throughput (nccl-tests
     * output, a topology matrix, a log without steps) is refused. A bad value the user gave is reported as theirs, not
     * the log's ({@link Described#attribute}).
     */
    public static RunSpec aroundLog(ObjectNode given, Path log, Described by, Consumer<String> notes) {
        String file = log.toString();
        ParsedLog parsed = Logs.read(log);
        requireTrainingLog(parsed, file, false);
        for (String w : parsed.warnings()) notes.accept("note: " + file + ": " + w);
        ObjectNode t = given.deepCopy();
        if (!t.has("name")) {
            String stem = log.getFileName().toString();
            t.put("name", stem.contains(".") ? stem.substring(0, stem.lastIndexOf('.')) : stem);
        }
        try {
            return assemble(t, file, parsed, Logs::read, by, notes, Boundary.NONE);
        } catch (SpecException e) {
            throw by.attribute(e, file, given, parsed.config().keySet());
        }
    }

    /**
     * The one assembly of a run: the log's metrics and configuration merged into the user's fields, then the config,
     * nccl-tests outputs and topology the fields name, then, around a log, what neither gives derived or assumed
     * (LogInference), then validated as one run file.
     */
    private static RunSpec assemble(ObjectNode t, String file, ParsedLog log, Function<Path, ParsedLog> logs, Described by,
                                    Consumer<String> notes, Boundary boundary) {
        if (log != null) {
            // the log's metrics and configuration join the run file, then everything is validated as one
            t = LogMerge.merge(t, log, file, by, notes);
        }
        if (given(t, "config")) {
            // an InternEvo configs/*.py: its model, parallel and training settings fill what the run file leaves out
            t = LogMerge.merge(t, NamedFiles.config(file, fields(t, file).requireString("config"), boundary), file);
            t.remove("config");
            dropEmptyMetrics(t);
        }
        if (given(t, "nccl_tests")) {
            // a top-level nccl-tests output measures the link inside the node
            t = LogMerge.moveInto(t, "nccl_tests", "cluster.intra_node.nccl_tests", file);
        }
        ParsedLog topology = null;
        if (given(t, "topology")) {
            topology = NamedFiles.log(file, "topology", fields(t, file).requireString("topology"),
                    "the output of nvidia-smi topo -m", logs, boundary);
            if (!topology.format().equals("nvidia-smi-topo"))
                throw new SpecException(file, "topology", "the output of nvidia-smi topo -m; the file reads as a "
                        + topology.format() + " log");
            t = LogMerge.merge(t, topology, file);
            t.remove("topology");
            dropEmptyMetrics(t);
        }
        measuredLink(t, "intra_node", file, boundary);
        measuredLink(t, "inter_node", file, boundary);
        List<Assumption> assumed = log == null ? List.of()
                : LogInference.infer(t, log, file, topology != null, by, notes);
        RunSpec spec = new SpecReader().read(t, file, topology != null, log == null ? null : log.format(),
                log == null ? null : log.printedOn(), log == null ? null : log.release());
        if (topology != null) checkTopology(topology, spec.cluster(), file);
        return log == null ? spec : spec.withHistory(log.history()).withAssumed(assumed);
    }

    /** Whether a run file's own metrics measure its throughput (then its log may be there for its history alone). */
    private static boolean measuresThroughput(ObjectNode t) {
        JsonNode m = t.get("metrics");
        if (m == null || !m.isObject()) return false;
        return m.has(Metric.TOKENS_PER_GPU_PER_S.key()) || m.has(Metric.STEP_TIME_S.key()) || m.has(Metric.MFU.key())
                || m.has(Metric.TFLOPS_PER_GPU.key()) && m.has(Metric.TFLOPS_CONVENTION.key());
    }

    /**
     * A log is advised for its measured throughput: nccl-tests output and a topology matrix are refused (each has its
     * own run-file key), and so is a log without steps or a measured throughput, unless the run's own metrics measure it.
     */
    static void requireTrainingLog(ParsedLog p, String file, boolean runMeasures) {
        if (p.format().equals("nccl-tests"))
            throw new SpecException(file, null, "a training log to advise; this is nccl-tests output, which measures the "
                    + "links, not a training run: a run file names it with nccl_tests: (its bus bandwidth joins the cluster)");
        if (p.format().equals("nvidia-smi-topo"))
            throw new SpecException(file, null, "a training log to advise; this is the output of nvidia-smi topo -m, which "
                    + "shows how the GPUs connect, not a training run: a run file names it with topology:");
        if (runMeasures) return;
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

    /** A key given a value (a key written as null is left to the reader, which takes the default). */
    private static boolean given(JsonNode t, String key) {
        return t.has(key) && !t.get(key).isNull();
    }

    private static Fields fields(ObjectNode t, String file) {
        return new Fields(file, "", t);
    }

    private static void dropEmptyMetrics(ObjectNode t) {
        if (t.path("metrics").isObject() && t.path("metrics").isEmpty()) t.remove("metrics");
    }

    /**
     * {@code cluster.<link>.nccl_tests: FILE} becomes the link's measured {@code busbw_gbps}: the bus bandwidth at the
     * largest size the nccl-tests output lists.
     */
    private static void measuredLink(ObjectNode t, String link, String file, Boundary boundary) {
        if (!(t.get("cluster") instanceof ObjectNode cluster) || !(cluster.get(link) instanceof ObjectNode l)
                || !given(l, "nccl_tests")) return;
        Fields f = new Fields(file, "cluster." + link, l);
        if (f.has("busbw_gbps")) throw f.error("nccl_tests", "either busbw_gbps or nccl_tests, not both");
        String field = "cluster." + link + ".nccl_tests";
        NamedFiles.Text out = NamedFiles.text(file, field, f.requireString("nccl_tests"), "an nccl-tests output", boundary);
        NcclTests tests = NcclTests.parse(out.text());
        double busbw = tests.busbwAtLargestGbps();
        if (tests.rows().isEmpty() || !(busbw > 0) || Double.isInfinite(busbw))
            throw f.error("nccl_tests", "an nccl-tests output with at least one result row with a positive busbw; "
                    + out.path() + " has none");
        l.remove("nccl_tests");
        l.put("busbw_gbps", busbw);
    }

    /** The link the run file names must be of the kind nvidia-smi shows between the node's GPUs. */
    private static void checkTopology(ParsedLog topology, Cluster cluster, String file) {
        Object kind = topology.extra().get("intra_node");
        if (kind == null || "mixed".equals(kind)) return;
        boolean nvlink = "NVLink".equals(kind);
        if (nvlink != cluster.intraNode().isNvlink())
            throw new SpecException(file, "cluster.intra_node.link", "a link of the kind the topology shows: nvidia-smi topo -m shows "
                    + (nvlink ? "NVLink (NV" + topology.extra().getOrDefault("nvlink_links", "#") + ")" : "PCIe only")
                    + " between the GPUs, but the run file says " + cluster.intraNode().key());
    }
}
