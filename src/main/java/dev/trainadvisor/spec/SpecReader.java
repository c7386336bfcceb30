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
 * Reads and validates a run file (JSON or YAML, snake_case keys; every key in {@link RunFileKeys}, docs/run-file.md)
 * into a {@link RunSpec}. Every error names the file, the dotted field and what was expected.
 */
public final class SpecReader {
    /** For building run-file trees elsewhere (the batch command's runs.yaml). */
    public static final ObjectMapper JSON_MAPPER = new ObjectMapper();

    /**
     * Jackson's own limits lifted to the file's size (a file is at most {@link #MAX_FILE_BYTES}), so that a long key or
     * string meets the reader's refusal, which names the field and the limit, rather than the parser's.
     */
    private static final com.fasterxml.jackson.core.StreamReadConstraints READ = com.fasterxml.jackson.core.StreamReadConstraints
            .builder().maxNameLength(1 << 21).maxStringLength(1 << 21).build();

    static final ObjectMapper JSON = new ObjectMapper(com.fasterxml.jackson.core.JsonFactory.builder().streamReadConstraints(READ).build())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    static final ObjectMapper YAML = new ObjectMapper(YAMLFactory.builder().streamReadConstraints(READ).build())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    // the keys each section takes: the one table of run-file keys, from which docs/run-file.md is generated
    private static final Set<String> TOP = RunFileKeys.keysOf("");
    private static final Set<String> CLUSTER = RunFileKeys.keysOf("cluster");
    private static final Set<String> HOST = RunFileKeys.keysOf("cluster.host");
    private static final Set<String> INTRA = RunFileKeys.keysOf("cluster.intra_node");
    private static final Set<String> INTER = RunFileKeys.keysOf("cluster.inter_node");
    private static final Set<String> GPU_INLINE = RunFileKeys.keysOf("cluster.gpu");
    private static final Set<String> PEAKS = RunFileKeys.keysOf("cluster.gpu.peak_tflops");
    private static final Set<String> MODEL = RunFileKeys.keysOf("model");
    private static final Set<String> MOE = RunFileKeys.keysOf("model.moe");
    private static final Set<String> PARALLEL = RunFileKeys.keysOf("parallel");
    private static final Set<String> TRAINING = RunFileKeys.keysOf("training");
    private static final Set<String> OFFLOAD = RunFileKeys.keysOf("training.offload");
    private static final Set<String> METRICS = RunFileKeys.keysOf("metrics");

    private final Catalog catalog;
    private final Frameworks frameworks;

    /** The most a measured bus bandwidth may be: twice the fastest catalogue link's one-way rate (NVLink5: 1800 GB/s). */
    private final double maxBusbwGbps;
    private final IntraNodeLink fastest;

    public SpecReader(Catalog catalog, Frameworks frameworks) {
        this.catalog = catalog;
        this.frameworks = frameworks;
        IntraNodeLink fastest = null;
        for (Catalog.Entry<IntraNodeLink> e : catalog.links().values())
            if (fastest == null || e.value().unidirectionalGbps() > fastest.unidirectionalGbps()) fastest = e.value();
        this.maxBusbwGbps = fastest == null ? Bounds.ANY_MAX : 2 * fastest.unidirectionalGbps();
        this.fastest = fastest;
    }

    /** The fastest catalogue link as a message names it; written only for a run that gives a bus bandwidth. */
    private String fastestLink() {
        return fastest == null ? "none" : fastest.key() + " at " + Bounds.show(fastest.unidirectionalGbps()) + " GB/s";
    }

    public SpecReader(Catalog catalog) { this(catalog, Frameworks.builtIn()); }

    public SpecReader() { this(Catalog.builtIn()); }

    /** Reads a run file; the format follows the extension (.json, or .yaml/.yml). */
    public RunSpec read(Path file) {
        return read(parse(file), file.toString());
    }

    /**
     * A run file (and a model, cluster or runs.yaml file) is read whole: at most 1 MB, refused by its size before a byte
     * is read. The largest run files written so far are a few KB; a run with a 1,000-layer inline model is 100 KB.
     */
    public static final long MAX_FILE_BYTES = 1L << 20;

    /**
     * A key of a run file: at most 1,024 characters (the longest known is 30), checked before its name is compared with
     * the known ones.
     */
    public static final int MAX_KEY_CHARS = 1024;

    /**
     * A string of a run file: at most 8,192 characters (the longest written so far, a model preset's notes, is 1,300;
     * a run name or a path is under 300).
     */
    public static final int MAX_STRING_CHARS = 8192;

    /**
     * A line of a YAML file: at most 16,384 characters (twice the longest string). SnakeYAML takes seconds and hundreds
     * of MB on one line of a megabyte, so a longer line is refused before it is parsed.
     */
    public static final int MAX_YAML_LINE_CHARS = 2 * MAX_STRING_CHARS;

    private static void checkLines(String text, String file) {
        int line = 1, start = 0;
        for (int i = 0; i <= text.length(); i++) {
            if (i == text.length() || text.charAt(i) == '\n') {
                if (i - start > MAX_YAML_LINE_CHARS)
                    throw new SpecException(file, null, "YAML lines of at most " + String.format(Locale.ROOT, "%,d", MAX_YAML_LINE_CHARS)
                            + " characters (a key or a string is at most " + String.format(Locale.ROOT, "%,d", MAX_STRING_CHARS)
                            + "); line " + line + " has " + String.format(Locale.ROOT, "%,d", i - start) + ": '"
                            + dev.trainadvisor.input.Excerpt.of(text.substring(start, start + 40), 40) + "...'");
                line++;
                start = i + 1;
            }
        }
    }

    /** What an empty file (or one of comments only) was expected to be. */
    public static final String EMPTY = "a run file with at least cluster, model and training; the file is empty";

    /** Parses a JSON or YAML file of at most {@link #MAX_FILE_BYTES} into a tree (see {@link #parse(Path, long)}). */
    public static JsonNode parse(Path file) { return parse(file, MAX_FILE_BYTES); }

    /**
     * Parses a JSON or YAML file into a tree, turning I/O and syntax errors into {@link SpecException}: a file over
     * {@code maxBytes}, a key or string over {@link #MAX_KEY_CHARS} or {@link #MAX_STRING_CHARS}, and a YAML alias
     * (which Jackson would read as its anchor's name) are refused; a syntax error quotes a bounded excerpt of the line.
     */
    public static JsonNode parse(Path file, long maxBytes) {
        String name = file.toString();
        String lower = name.toLowerCase(Locale.ROOT);
        ObjectMapper mapper = lower.endsWith(".yaml") || lower.endsWith(".yml") ? YAML : JSON;
        String text = InputFiles.readUtf8(file, "a JSON or YAML file", maxBytes);
        if (mapper == YAML) checkLines(text, name);
        try {
            JsonNode tree = mapper.readTree(text);
            if (tree == null || tree.isMissingNode() || tree.isNull()) throw new SpecException(name, null, EMPTY);
            if (mapper == YAML) YamlAliases.refuse(YAML, text, name);
            checkSizes(tree, name, "");
            return tree;
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr()
                    + ", column " + e.getLocation().getColumnNr();
            if (e.getOriginalMessage().startsWith("Trailing token"))
                throw new SpecException(name, null, (mapper == YAML ? "a single YAML document; another document or value"
                        : "a single JSON object; more content") + " follows" + where);
            String what = mapper == YAML ? "valid YAML" : "valid JSON";
            throw new SpecException(name, fieldOf(e), what + ": " + problem(e.getOriginalMessage()) + where
                    + (e.getLocation() == null ? "" : lineExcerpt(text, e.getLocation().getLineNr(), e.getLocation().getColumnNr())));
        }
    }

    /**
     * The parser's words without the excerpts it adds (SnakeYAML quotes the lines it stood on, whole): its sentences on
     * one line, each bounded.
     */
    static String problem(String message) {
        if (message == null) return "unreadable";
        java.util.List<String> parts = new java.util.ArrayList<>();
        for (String line : message.split("\\R")) {
            String l = line.strip();
            java.util.regex.Matcher mark = MARK.matcher(l);
            if (mark.matches() && !parts.isEmpty()) {
                // where the parser was when it began the construct the sentence names: "while parsing a flow mapping"
                parts.set(parts.size() - 1, parts.get(parts.size() - 1) + " (line " + mark.group(1) + ", column " + mark.group(2) + ")");
                continue;
            }
            if (l.isEmpty() || line.startsWith(" ") || line.startsWith("\t") || l.startsWith("in 'reader'") || l.equals("^")) continue;
            parts.add(dev.trainadvisor.input.Excerpt.of(l, 120));
        }
        return parts.isEmpty() ? dev.trainadvisor.input.Excerpt.of(message.strip(), 120) : String.join("; ", parts);
    }

    private static final java.util.regex.Pattern MARK = java.util.regex.Pattern.compile("in 'reader', line (\\d+), column (\\d+):");

    /** ": 'the line'" around the column, at most 80 characters of the user's own line, control characters escaped. */
    static String lineExcerpt(String text, int lineNr, int column) {
        if (lineNr < 1) return "";
        int start = 0;
        for (int l = 1; l < lineNr && start >= 0; l++) {
            int nl = text.indexOf('\n', start);
            start = nl < 0 ? -1 : nl + 1;
        }
        if (start < 0 || start > text.length()) return "";
        int end = text.indexOf('\n', start);
        String line = text.substring(start, end < 0 ? text.length() : end).stripTrailing();
        if (line.isBlank()) return "";
        int from = Math.max(0, Math.min(line.length(), column - 1) - 40);
        String cut = line.substring(from, Math.min(line.length(), from + 80));
        return ": '" + (from > 0 ? "..." : "") + dev.trainadvisor.input.Excerpt.of(cut, 80) + (from + 80 < line.length() ? "..." : "") + "'";
    }

    /** Refuses a key or a string beyond {@link #MAX_KEY_CHARS} or {@link #MAX_STRING_CHARS}, naming where it is. */
    static void checkSizes(JsonNode n, String file, String path) {
        if (n.isObject()) {
            java.util.Iterator<Map.Entry<String, JsonNode>> it = n.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                String key = e.getKey();
                if (key.length() > MAX_KEY_CHARS)
                    throw new SpecException(file, path.isEmpty() ? null : path, "keys of at most " + MAX_KEY_CHARS
                            + " characters; one has " + String.format(Locale.ROOT, "%,d", key.length()) + ": '"
                            + dev.trainadvisor.input.Excerpt.of(key, 40) + "'");
                checkSizes(e.getValue(), file, path.isEmpty() ? key : path + "." + key);
            }
        } else if (n.isArray()) {
            for (int i = 0; i < n.size(); i++) checkSizes(n.get(i), file, path + "[" + i + "]");
        } else if (n.isTextual() && n.asText().length() > MAX_STRING_CHARS) {
            throw new SpecException(file, path.isEmpty() ? null : path, "a string of at most " + String.format(Locale.ROOT, "%,d",
                    MAX_STRING_CHARS) + " characters; this one has " + String.format(Locale.ROOT, "%,d", n.asText().length())
                    + ": '" + dev.trainadvisor.input.Excerpt.of(n.asText(), 40) + "'");
        }
    }

    /** The dotted path where the parser stood when it failed, e.g. "parallel.tp", or null at the top. */
    private static String fieldOf(JsonProcessingException e) {
        return e.getProcessor() instanceof JsonParser p ? fieldAt(p) : null;
    }

    /** The dotted path where a parser stands, or null at the top. */
    static String fieldAt(JsonParser p) {
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
        return read(tree, file, gpuPathFromTopology, null);
    }

    /**
     * As {@link #read(JsonNode, String, boolean)}, for a tree merged with a log of {@code logFormat} (ingest's key), whose
     * framework the run takes when the run file names none.
     */
    public RunSpec read(JsonNode tree, String file, boolean gpuPathFromTopology, String logFormat) {
        return read(tree, file, gpuPathFromTopology, logFormat, null);
    }

    /**
     * As {@link #read(JsonNode, String, boolean, String)}, for a log printed on {@code logDate} (null: undated), which
     * chooses the version of the log's framework where its profile's default began later.
     */
    public RunSpec read(JsonNode tree, String file, boolean gpuPathFromTopology, String logFormat,
                        java.time.LocalDate logDate) {
        return read(tree, file, gpuPathFromTopology, logFormat, logDate, null);
    }

    /**
     * As {@link #read(JsonNode, String, boolean, String, java.time.LocalDate)}, for a log that states the release of
     * its framework's package ({@code logRelease}, DeepSpeed's), which chooses the version where the profile tells
     * its versions apart by release.
     */
    public RunSpec read(JsonNode tree, String file, boolean gpuPathFromTopology, String logFormat,
                        java.time.LocalDate logDate, String logRelease) {
        Fields top = new Fields(file, "", tree);
        top.allowOnly(TOP);
        for (String key : new java.util.TreeSet<>(NAMED_FILES))
            if (top.has(key)) throw namesAFile(top, key);
        String name = top.string("name", null);
        if (!top.has("cluster")) throw top.error("cluster", "a cluster (a preset name or its fields) is required");
        if (!top.has("model")) throw top.error("model", "a model (a preset name or its fields) is required");
        if (!top.has("training")) throw top.error("training", "the training block (seq_len, micro_batch_size, ...) is required");
        RunFile.ClusterPart clusterPart = cluster(top);
        Cluster cluster = RunResolver.cluster(clusterPart, catalog, file, gpuPathFromTopology);
        Model model = model(top);
        Fields t = top.object("training");
        RunFile.TrainingPart trainingPart = training(t);
        Implementation impl = implementation(t, top.object("metrics"), logFormat, logDate, logRelease);
        trainingPart = trainingPart.with(impl);
        Measurements measured = metrics(top.object("metrics"), impl.framework());
        RunFile.ParallelPart parallelPart = parallel(top.object("parallel"));
        Training training = RunResolver.training(trainingPart, parallelPart, cluster.gpu(), file);
        Parallel parallel = RunResolver.parallel(parallelPart, file, cluster, model, training);
        RunResolver.checkAgainstGpu(cluster, training, file);
        String runName = name != null ? name : stem(file);
        return new RunSpec(runName, cluster, new RunMetrics(runName, model, parallel, training, measured));
    }

    /**
     * The framework that runs the step: the one {@code training.framework} names (at {@code framework_version}); else
     * the one whose logs are of the merged log's format (at the version its date allows); else the one whose printed TFLOPS follow
     * {@code metrics.tflops_convention}; else the default, with the origin saying which.
     */
    private Implementation implementation(Fields t, Fields metrics, String logFormat, java.time.LocalDate logDate,
                                          String logRelease) {
        Frameworks known = frameworks;
        String version = t.string("framework_version", null);
        if (t.has("framework")) {
            Framework named = known.find(t.requireString("framework"), version, t.file(), "training.framework");
            if (version != null || named.version() == null) return new Implementation(named, Implementation.GIVEN);
            // named without its version: the one the run's log says, else the default
            // the versions the log's format runs under where the profile's versions differ in it (a NeMo 2.0 log)
            Frameworks.Profile whole = known.profiles().get(named.key()), byItsLog = known.profileOfLogFormat(logFormat);
            Frameworks.Profile p = byItsLog != null && byItsLog.key().equals(whole.key()) ? byItsLog : whole;
            boolean ofTheLogs = !p.defaultVersion().equals(whole.defaultVersion());
            return atTheLogsVersion(p, Implementation.GIVEN, ofTheLogs ? Implementation.GIVEN_AT_LOGS_NEWEST
                    : Implementation.GIVEN_AT_DEFAULT_VERSION, logDate, logRelease, ofTheLogs);
        }
        if (version != null)
            throw t.error("framework_version", "training.framework with it (the version of which framework?)");
        Frameworks.Profile byLog = known.profileOfLogFormat(logFormat);
        if (byLog != null) {
            String origin = Implementation.byLogFormat(logFormat);
            boolean ofTheLogs = !byLog.defaultVersion().equals(known.profiles().get(byLog.key()).defaultVersion());
            return atTheLogsVersion(byLog, origin, ofTheLogs ? origin + Implementation.AT_LOGS_NEWEST : origin, logDate,
                    logRelease, ofTheLogs);
        }
        String conv = metrics.present() ? metrics.string("tflops_convention", null) : null;
        Framework byConvention = known.byConvention(FlopsConvention.parse(conv));
        if (byConvention != null)
            return new Implementation(byConvention, "metrics.tflops_convention (" + conv + ")");
        return new Implementation(known.generic(), Implementation.DEFAULT_ORIGIN);
    }

    /**
     * {@code p} at the version its log says: the release the log states, where the profile tells versions apart by
     * release; else the default, unless the log was printed before it began (then the version current on the log's
     * day). {@code origin} is what named the framework; {@code atDefault} the origin of the default version.
     */
    private static Implementation atTheLogsVersion(Frameworks.Profile p, String origin, String atDefault,
                                                   java.time.LocalDate logDate, String logRelease, boolean ofTheLogs) {
        String released = p.versionOfRelease(logRelease, logDate);
        if (released != null) return new Implementation(p.at(released), origin + Implementation.byRelease(logRelease)
                + (p.sharesRelease(released) ? (logDate == null ? ", the earliest of the versions it runs under (the log is "
                + "undated)" : " and its date, " + logDate) : ""));
        String v = p.versionOn(logDate);
        if (java.util.Objects.equals(v, p.defaultVersion())) return new Implementation(p.at(v), atDefault);
        return new Implementation(p.at(v), origin + Implementation.byDate(logDate, p.defaultVersion(),
                p.since().get(p.defaultVersion()), ofTheLogs));
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

    /** The cluster section as the file gives it, a preset merged under the file's own fields. */
    private RunFile.ClusterPart cluster(Fields top) {
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
        RunFile.IntraPart intraPart = null;
        if (intra.has("link")) {
            String link = catalog.link(intra.requireString("link"), c.file(), "cluster.intra_node.link").key();
            intraPart = new RunFile.IntraPart(link, sockets(intra), intra.has("transport")
                    ? intra.choice("transport", Transport.P2P, Transport.class) : null, gpuPath(intra), measuredBusbw(intra));
        } else if (perNode > 1) {
            throw intra.error("link", "the intra-node link (" + String.join(", ", catalog.links().keySet())
                    + ") is required when a node holds more than one GPU");
        }
        Fields inter = c.object("inter_node");
        inter.allowOnly(INTER);
        RunFile.InterPart interPart = null;
        if (inter.present() && inter.has("link")) {
            Catalog.NetworkEntry n = catalog.network(inter.requireString("link"), c.file(), "cluster.inter_node.link");
            interPart = new RunFile.InterPart(n.key(), inter.given("nics_per_node")
                    ? inter.positiveInt("nics_per_node", 1, Bounds.SMALL_COUNT) : null, measuredBusbw(inter),
                    inter.bool("sharp", false) ? Boolean.TRUE : null);
        }
        String name = c.string("name", null);
        Integer domain = c.given("nvlink_domain") ? c.positiveInt("nvlink_domain", perNode, Bounds.GPUS) : null;
        return new RunFile.ClusterPart(name, gpu, nodes, perNode, intraPart, interPart, domain, host(c));
    }

    /**
     * {@code cluster.host}: a host of knowledge-base/hosts.json by key, or {@code {cores, memory_bandwidth_gbps}} (the
     * node's CPU cores and its host memory bandwidth as a STREAM triad measures it); {@code cluster.host_memory_gb}: the
     * node's host memory. Null when the file says neither.
     */
    private static RunFile.HostPart host(Fields c) {
        Double memory = c.given("host_memory_gb") ? c.positiveDouble("host_memory_gb", 0) : null;
        if (memory != null && memory > Bounds.HOST_MEMORY_GB)
            throw c.error("host_memory_gb", "at most " + (long) Bounds.HOST_MEMORY_GB + " GB of host memory a node, got "
                    + memory);
        if (!c.given("host")) return memory == null ? null : new RunFile.HostPart(null, null, null, memory);
        JsonNode raw = c.raw("host");
        if (raw.isTextual())
            return new RunFile.HostPart(Hosts.builtIn().host(raw.asText(), c.file(), "cluster.host").key(), null, null,
                    memory);
        if (!raw.isObject())
            throw c.error("host", "a host of knowledge-base/hosts.json (" + String.join(", ", Hosts.builtIn().hosts()
                    .keySet()) + ") or {cores, memory_bandwidth_gbps}, got " + Fields.describe(raw));
        Fields h = c.object("host");
        h.allowOnly(HOST);
        int cores = h.requirePositiveInt("cores", Bounds.HOST_CORES);
        if (!h.has("memory_bandwidth_gbps"))
            throw h.error("memory_bandwidth_gbps", "the node's host memory bandwidth in GB/s, as a STREAM triad measures it"
                    + " (or the datasheet's channels x MT/s x 8 bytes x " + Hosts.builtIn().triadShare() + ")");
        double bw = h.positiveDouble("memory_bandwidth_gbps", 0);
        if (bw > Bounds.HOST_MEMORY_GBPS)
            throw h.error("memory_bandwidth_gbps", "at most " + (long) Bounds.HOST_MEMORY_GBPS + " GB/s, got " + bw);
        return new RunFile.HostPart(null, cores, bw, memory);
    }

    /** The worst path between two GPUs as nvidia-smi topo -m prints it, normalised (SOC is SYS, NV18 is NV); or null. */
    private static String gpuPath(Fields intra) {
        if (!intra.has("gpu_path")) return null;
        String p = intra.requireString("gpu_path").toUpperCase(Locale.ROOT);
        if (p.equals("SOC")) p = "SYS";
        if (p.matches("NV\\d+")) p = "NV";
        if (!HostPlacement.PATHS.contains(p))
            throw intra.error("gpu_path", "the worst path between two GPUs as nvidia-smi topo -m prints it, one of "
                    + HostPlacement.PATHS + ", got '" + intra.requireString("gpu_path") + "'");
        return p;
    }

    private static Integer sockets(Fields intra) {
        if (!intra.has("sockets")) return null;
        int sockets = intra.positiveInt("sockets", 1);
        if (sockets > 2) throw intra.error("sockets", "1 or 2 CPU sockets, got " + sockets);
        return sockets;
    }

    /**
     * A link's measured bus bandwidth, {@code busbw_gbps}; null when not given. (An nccl-tests output named by {@code
     * nccl_tests} has become {@code busbw_gbps} in the assembling reader.)
     */
    private Double measuredBusbw(Fields f) {
        if (f.has("nccl_tests")) throw namesAFile(f, "nccl_tests");
        if (f.has("busbw_gbps")) return f.positiveDouble("busbw_gbps", 0, Bounds.ANY_MIN, maxBusbwGbps,
                "GB/s: twice the fastest link's one-way rate in the catalogue, " + fastestLink() + ", carries no more");
        return null;
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
        peak.allowOnly(PEAKS);
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

    /** The training section as the file gives it: each value checked alone, defaults left to {@link RunResolver}. */
    private static RunFile.TrainingPart training(Fields t) {
        t.allowOnly(TRAINING);
        int seq = t.requirePositiveInt("seq_len", Bounds.SEQ_LEN);
        int mbs = t.requirePositiveInt("micro_batch_size", Bounds.MICRO_BATCH_SIZE);
        Integer mb = t.given("micro_batches") ? t.positiveInt("micro_batches", 1, Bounds.MICRO_BATCHES) : null;
        Recompute rc = t.given("recompute") ? t.choice("recompute", Recompute.NONE, Recompute.class, Recompute::parse) : null;
        Precision p = t.given("precision") ? t.choice("precision", Precision.BF16, Precision.class, Precision::parse) : null;
        Precision gr = t.given("grad_reduce_precision")
                ? t.choice("grad_reduce_precision", Precision.BF16, Precision.class, Precision::parse) : null;
        Double fraction = t.given("recompute_fraction") ? t.positiveDouble("recompute_fraction", 1.0) : null;
        Boolean flash = t.given("flash_attention") ? t.bool("flash_attention", true) : null;
        AttentionKernel kernel = t.given("attention_kernel")
                ? t.choice("attention_kernel", AttentionKernel.FA2, AttentionKernel.class) : null;
        Fp8Recipe recipe = t.given("fp8_recipe") ? t.choice("fp8_recipe", Fp8Recipe.DELAYED, Fp8Recipe.class) : null;
        ElementwiseKernels elementwise = t.given("elementwise_kernels")
                ? t.choice("elementwise_kernels", ElementwiseKernels.FUSED, ElementwiseKernels.class) : null;
        Boolean graphs = t.given("cuda_graphs") ? t.bool("cuda_graphs", false) : null;
        OptimizerKernel optimizer = t.given("optimizer_kernel")
                ? t.choice("optimizer_kernel", OptimizerKernel.FUSED, OptimizerKernel.class) : null;
        return new RunFile.TrainingPart(seq, mbs, mb, rc, fraction, p, gr, flash, kernel, elementwise, graphs, recipe, null,
                offload(t.object("offload")), optimizer);
    }

    /** {@code training.offload}: each state's tier, checked alone; what the tiers need of the run, by the resolver. */
    private static Offload offload(Fields o) {
        if (!o.present()) return null;
        o.allowOnly(OFFLOAD);
        Offload.Tier opt = o.choice("optimizer", Offload.Tier.NONE, Offload.Tier.class);
        Double ratio = o.given("ratio") ? o.positiveDouble("ratio", 1.0) : null;
        if (ratio != null && ratio > 1) throw o.error("ratio", "the share of the optimizer offloaded, above 0 and at most 1, got " + ratio);
        return new Offload(opt, o.choice("master_weights", Offload.Tier.NONE, Offload.Tier.class),
                o.choice("gradients", Offload.Tier.NONE, Offload.Tier.class),
                o.choice("parameters", Offload.Tier.NONE, Offload.Tier.class),
                o.choice("activations", Offload.Tier.NONE, Offload.Tier.class), ratio == null ? 1.0 : ratio,
                o.string("nvme_path", null),
                o.given("host_optimizer") ? Hosts.builtIn().optimizer(o.requireString("host_optimizer"), o.file(),
                        "training.offload.host_optimizer").key() : null,
                o.given("host_threads") ? o.positiveInt("host_threads", 1, Bounds.HOST_CORES) : null,
                o.given("bind_cores") ? o.bool("bind_cores", false) : null);
    }

    /** The parallel section as the file gives it: each value checked alone, defaults left to {@link RunResolver}. */
    private static RunFile.ParallelPart parallel(Fields p) {
        p.allowOnly(PARALLEL);
        // every degree divides the GPUs, so none exceeds their bound
        return new RunFile.ParallelPart(count(p, "tp", Bounds.GPUS), count(p, "pp", Bounds.GPUS), count(p, "dp", Bounds.GPUS),
                count(p, "cp", Bounds.GPUS), count(p, "ep", Bounds.GPUS), flag(p, "sequence_parallel"),
                p.given("zero_stage") ? p.nonNegativeInt("zero_stage", 0, 3) : null, count(p, "zero_group_size", Bounds.GPUS),
                count(p, "virtual_stages", Bounds.VIRTUAL_STAGES), flag(p, "overlap_grad_reduce"),
                flag(p, "overlap_param_gather"), flag(p, "overlap_tp_comm"), count(p, "etp", Bounds.GPUS),
                p.given("bucket_mb") ? p.positiveDouble("bucket_mb", Parallel.DEFAULT_BUCKET_MB) : null,
                flag(p, "grad_reduce_every_micro_batch"),
                p.given("moe_dispatcher") ? p.choice("moe_dispatcher", MoeDispatcher.ALLTOALL, MoeDispatcher.class) : null,
                flag(p, "moe_a2a_overlap"), rankOrder(p));
    }

    /** {@code parallel.rank_order}: innermost first, as Megatron-LM writes its order. */
    private static RankOrder rankOrder(Fields p) {
        if (!p.given("rank_order")) return null;
        String s = p.requireString("rank_order");
        RankOrder o = RankOrder.byKey(s);
        if (o != null) return o;
        RankOrder spelt = RankOrder.parse(s);   // a framework's spelling: Megatron's with its expert dimension
        throw p.error("rank_order", "one of " + RankOrder.keys() + " (innermost first; Megatron-LM's "
                + "--use-tp-pp-dp-mapping is tp-cp-pp-dp), got '" + dev.trainadvisor.input.Excerpt.of(s) + "'"
                + (spelt != null ? ": the same order is written " + spelt.key() : ""));
    }

    private static Integer count(Fields f, String key, int max) { return f.given(key) ? f.positiveInt(key, 1, max) : null; }

    private static Boolean flag(Fields f, String key) { return f.given(key) ? f.bool(key, false) : null; }

    /** A measured time, from a microsecond to 10^7 s (Bounds). */
    private static double time(Fields m, String key) {
        return m.positiveDouble(key, Double.NaN, Bounds.TIME_MIN_S, Bounds.TIME_MAX_S,
                "seconds: a microsecond is below any GPU kernel's launch");
    }

    /** The metrics block; printed TFLOPS without a convention are counted as {@code framework} prints them, if it does. */
    private Measurements metrics(Fields m, Framework framework) {
        if (!m.present()) return Measurements.NONE;
        m.allowOnly(METRICS);
        double mfu = m.positiveDouble("mfu", Double.NaN);
        if (mfu > 1) throw m.error("mfu", "a fraction between 0 and 1 (e.g. 0.42 for 42%), got " + mfu);
        String conv = m.string("tflops_convention", null);
        if (conv != null && FlopsConvention.parse(conv) == null)
            throw m.error("tflops_convention", "one of " + FlopsConvention.keys() + ", got '" + conv + "'");
        if (m.has("tflops_per_gpu") && conv == null && framework.flopsConvention() != null
                && framework.flopsConvention().value() != null)
            conv = framework.flopsConvention().value().key;
        if (m.has("tflops_per_gpu") && conv == null)
            throw m.error("tflops_convention", "how the framework counted the printed TFLOPS (one of "
                    + FlopsConvention.keys() + ") whenever tflops_per_gpu is given");
        double steps = m.nonNegativeDouble("steps", Double.NaN);
        double skipped = m.nonNegativeDouble("skipped_steps", Double.NaN);
        if (!Double.isNaN(steps) && !Double.isNaN(skipped) && skipped > steps)
            throw m.error("skipped_steps", "at most steps (" + steps + "), got " + skipped);
        return new Measurements(m.positiveDouble("tflops_per_gpu", Double.NaN), conv,
                m.positiveDouble("tokens_per_gpu_per_s", Double.NaN), time(m, "step_time_s"),
                time(m, "fwd_bwd_time_s"), time(m, "forward_time_s"),
                time(m, "backward_time_s"), time(m, "optimizer_time_s"),
                mfu, m.positiveDouble("peak_memory_gb", Double.NaN), steps, skipped,
                m.positiveDouble("loss_scale", Double.NaN));
    }
}
