package dev.trainadvisor.spec;

import dev.trainadvisor.input.SpecException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The hardware catalogue (knowledge-base/gpus.json, links.json, networks.json): every entry names
 * its source. Keys match case-insensitively and through aliases; an unknown key is an error that
 * lists the nearest known keys.
 */
public final class Catalog {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static volatile Catalog builtIn;

    private final Map<String, Entry<Gpu>> gpus;
    private final Map<String, Entry<IntraNodeLink>> links;
    private final Map<String, Entry<NetworkEntry>> networks;

    /** A catalogue value with the raw JSON it came from (for the catalog command) and its aliases. */
    public record Entry<T>(String key, T value, List<String> aliases, JsonNode raw) {}

    /** A network as catalogued, before a cluster picks its NIC count. */
    public record NetworkEntry(String key, double lineRateGbitS, double efficiency, double alphaUs,
                               int defaultNicsPerNode, String source) {}

    private final Transports transports;
    private final Map<String, KernelCurve> curves;

    /**
     * knowledge-base/transports.json: what each NCCL transport does to an intra-node link's bus bandwidth and to the
     * compute beside it, and NCCL's model of the CPU socket link a ring crosses.
     *
     * @param shmBusbwByPcieGen   all-reduce bus bandwidth through host memory, by the host's PCIe generation
     * @param socketBusbw         through NCCL's socket transport
     * @param socketLinkByPcieGen the CPU-to-CPU link of hosts of that PCIe generation
     * @param interference        by transport: how much slower compute runs beside its collectives
     * @param oneWay              by transport: a one-way collective's (broadcast, reduce) bus bandwidth over the
     *                            all-reduce's, where a rank's sending and receiving share one host path
     */
    public record Transports(Map<Integer, Double> shmBusbwByPcieGen, double socketBusbw,
                             Map<Integer, Double> socketLinkByPcieGen, Map<Transport, Double> interference,
                             Map<Transport, Double> oneWay, Map<LinkKind, Double> p2pInterferenceByLink, JsonNode raw) {

        /**
         * How much slower compute runs beside a collective on {@code transport} over a link of {@code kind}: peer-to-peer
         * by the link (NVLink's channels are many and fast, PCIe's two and slow), the others by the transport alone.
         */
        public double interference(Transport transport, LinkKind kind) {
            if (transport == Transport.P2P && p2pInterferenceByLink.containsKey(kind)) return p2pInterferenceByLink.get(kind);
            return interference.getOrDefault(transport, 0.0);
        }

        private static double byGen(Map<Integer, Double> m, int gen) {
            if (m.containsKey(gen)) return m.get(gen);
            // an unknown generation: the newest one catalogued no newer than it, else the oldest
            double v = Double.NaN;
            for (Map.Entry<Integer, Double> e : new java.util.TreeMap<>(m).entrySet()) {
                if (Double.isNaN(v) || e.getKey() <= gen) v = e.getValue();
            }
            return v;
        }

        public double shmBusbw(int pcieGen) { return byGen(shmBusbwByPcieGen, pcieGen); }

        public double socketLink(int pcieGen) { return byGen(socketLinkByPcieGen, pcieGen); }
    }

    private Catalog(Map<String, Entry<Gpu>> gpus, Map<String, Entry<IntraNodeLink>> links,
                    Map<String, Entry<NetworkEntry>> networks, Transports transports,
                    Map<String, KernelCurve> curves) {
        this.gpus = gpus;
        this.links = links;
        this.networks = networks;
        this.transports = transports;
        this.curves = curves;
    }

    /**
     * Reads the whole shipped knowledge base: the catalogue, the framework profiles and the presets (each once,
     * whichever thread asks first). The command line calls it on a second core while it parses the arguments
     * (cli.Main, bench/coldstart.sh).
     */
    public static void readAll() {
        builtIn();
        Frameworks.builtIn();
        Presets.clusters();
        Presets.models();
    }

    public static Catalog builtIn() {
        Catalog c = builtIn;
        if (c == null) {
            synchronized (Catalog.class) {
                if (builtIn == null) builtIn = load();
                c = builtIn;
            }
        }
        return c;
    }

    private static Catalog load() {
        Map<String, Entry<Gpu>> gpus = new LinkedHashMap<>();
        for (JsonNode g : read("knowledge-base/gpus.json").get("gpus")) {
            Map<Precision, Double> peak = new EnumMap<>(Precision.class);
            g.get("peak_tflops").fields().forEachRemaining(e -> {
                Precision p = Precision.parse(e.getKey());
                if (p != null && e.getValue().isNumber()) peak.put(p, e.getValue().asDouble());
            });
            Gpu gpu = new Gpu(g.get("key").asText(), peak, g.get("hbm_gb").asDouble(), g.get("hbm_gbps").asDouble(),
                    num(g, "mamf_tflops_bf16"), num(g, "attention_fraction"), g.path("sms").asInt(0), g.path("architecture").asText(""),
                    g.hasNonNull("nvlink_link") ? g.get("nvlink_link").asText() : null, g.path("source").asText(),
                    g.path("host_pcie_gen").asInt(0), g.path("pcie_p2p").asBoolean(true));
            gpus.put(gpu.key(), new Entry<>(gpu.key(), gpu, aliases(g), g));
        }
        Map<String, Entry<IntraNodeLink>> links = new LinkedHashMap<>();
        for (JsonNode l : read("knowledge-base/links.json").get("links")) {
            IntraNodeLink link = new IntraNodeLink(l.get("key").asText(), LinkKind.of(l.path("kind").asText("pcie")),
                    l.get("unidirectional_gbps_per_gpu").asDouble(), l.get("busbw_gbps").asDouble(),
                    l.path("alpha_us").asDouble(10), false, l.path("source").asText(), HostPlacement.CATALOGUE,
                    l.hasNonNull("nvls_allreduce_busbw_gbps")
                            ? l.get("nvls_allreduce_busbw_gbps").asDouble() / l.get("busbw_gbps").asDouble() : 1.0);
            links.put(link.key(), new Entry<>(link.key(), link, aliases(l), l));
        }
        Map<String, Entry<NetworkEntry>> nets = new LinkedHashMap<>();
        for (JsonNode n : read("knowledge-base/networks.json").get("networks")) {
            NetworkEntry net = new NetworkEntry(n.get("key").asText(), n.get("line_rate_gbit_s").asDouble(),
                    n.get("efficiency").asDouble(), n.path("alpha_us").asDouble(20),
                    n.path("default_nics_per_node").asInt(1), n.path("source").asText());
            nets.put(net.key(), new Entry<>(net.key(), net, aliases(n), n));
        }
        JsonNode t = read("knowledge-base/transports.json");
        Map<Integer, Double> shm = new java.util.TreeMap<>(), socketLinks = new java.util.TreeMap<>();
        Map<Transport, Double> interference = new EnumMap<>(Transport.class), oneWay = new EnumMap<>(Transport.class);
        Map<LinkKind, Double> p2pByLink = new EnumMap<>(LinkKind.class);
        double socket = Double.NaN;
        for (JsonNode tr : t.get("transports")) {
            Transport key = Transport.valueOf(tr.get("key").asText().toUpperCase(java.util.Locale.ROOT));
            interference.put(key, tr.path("interference").asDouble(0));
            if (key == Transport.P2P) tr.path("interference_by_link_kind").fields().forEachRemaining(e -> {
                if (java.util.Arrays.stream(LinkKind.values()).noneMatch(k -> k.key().equals(e.getKey())))
                    throw new IllegalStateException("knowledge-base/transports.json: p2p.interference_by_link_kind: expected"
                            + " a link kind (" + java.util.Arrays.stream(LinkKind.values()).map(LinkKind::key).toList()
                            + "), got '" + e.getKey() + "'");
                p2pByLink.put(LinkKind.of(e.getKey()), e.getValue().asDouble());
            });
            oneWay.put(key, tr.path("one_way_over_all_reduce").asDouble(1));
            if (key == Transport.SHM) tr.get("busbw_gbps_by_pcie_gen").fields()
                    .forEachRemaining(e -> shm.put(Integer.parseInt(e.getKey()), e.getValue().asDouble()));
            if (key == Transport.SOCKET) socket = tr.get("busbw_gbps").asDouble();
        }
        t.get("socket_link_gbps_by_pcie_gen").fields()
                .forEachRemaining(e -> socketLinks.put(Integer.parseInt(e.getKey()), e.getValue().asDouble()));
        Map<String, KernelCurve> curves = new LinkedHashMap<>();
        for (JsonNode c : read("knowledge-base/attention-kernels.json").get("curves")) {
            AttentionKernel.valueOf(c.get("kernel").asText().toUpperCase(java.util.Locale.ROOT));   // a known kernel
            String at = c.get("architecture").asText() + "/" + c.get("kernel").asText();
            JsonNode b = c.path("build");
            if (!b.path("package").isTextual() || !b.path("version").isTextual())
                throw new IllegalStateException("knowledge-base/attention-kernels.json: curve " + at
                        + ": field build: expected {\"package\": ..., \"version\": ...}, the build that was timed");
            KernelCurve curve = new KernelCurve(c.get("architecture").asText(), c.get("kernel").asText(),
                    numbers(c.get("seq_len")), numbers(c.get("fraction")), c.path("source").asText(),
                    new KernelCurve.Build(b.get("package").asText(), b.get("version").asText()));
            if (curves.put(at, curve) != null)
                throw new IllegalStateException("knowledge-base/attention-kernels.json: curve " + at
                        + ": a second curve for the same architecture and kernel; expected one (the build the kernel's"
                        + " run-file name means)");
        }
        for (JsonNode c : read("knowledge-base/gemm-efficiency.json").get("curves")) {
            KernelCurve curve = new KernelCurve(c.get("architecture").asText(), "gemm", numbers(c.get("k")),
                    numbers(c.get("fraction")), c.path("source").asText());
            curves.put(curve.architecture() + "/gemm", curve);
        }
        return new Catalog(Collections.unmodifiableMap(gpus), Collections.unmodifiableMap(links),
                Collections.unmodifiableMap(nets), new Transports(Collections.unmodifiableMap(shm), socket,
                Collections.unmodifiableMap(socketLinks), Collections.unmodifiableMap(interference),
                Collections.unmodifiableMap(oneWay), Collections.unmodifiableMap(p2pByLink), t),
                Collections.unmodifiableMap(curves));
    }

    private static double[] numbers(JsonNode array) {
        double[] out = new double[array.size()];
        for (int i = 0; i < out.length; i++) out[i] = array.get(i).asDouble();
        return out;
    }

    static JsonNode read(String resource) {
        try (InputStream in = Resources.open(resource)) {
            return JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }

    private static double num(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v != null && v.isNumber() ? v.asDouble() : Double.NaN;
    }

    private static List<String> aliases(JsonNode n) {
        JsonNode a = n.get("aliases");
        if (a == null || !a.isArray()) return List.of();
        return java.util.stream.StreamSupport.stream(a.spliterator(), false).map(JsonNode::asText).toList();
    }

    public Map<String, Entry<Gpu>> gpus() { return gpus; }
    public Map<String, Entry<IntraNodeLink>> links() { return links; }
    public Map<String, Entry<NetworkEntry>> networks() { return networks; }
    public Transports transports() { return transports; }

    /** The measured curve of a fused attention kernel on an architecture, or null where none is catalogued. */
    public KernelCurve attentionCurve(String architecture, AttentionKernel kernel) {
        return architecture == null ? null : curves.get(architecture + "/" + kernel.name().toLowerCase(java.util.Locale.ROOT));
    }

    /** Dense GEMMs' rate by inner dimension relative to large ones on an architecture, or null where not measured. */
    public KernelCurve gemmCurve(String architecture) {
        return architecture == null ? null : curves.get(architecture + "/gemm");
    }

    /**
     * The GPU of the same architecture sold in NVLink nodes, with at least this one's memory (the
     * smallest such), or null when there is none or {@code gpu} is one.
     */
    public Gpu nvlinkSibling(Gpu gpu) {
        if (gpu.nvlinkLink() != null) return gpu;
        Gpu best = null;
        for (Entry<Gpu> e : gpus.values()) {
            Gpu g = e.value();
            if (g.nvlinkLink() == null || !g.architecture().equals(gpu.architecture()) || g.hbmGb() < gpu.hbmGb()) continue;
            if (best == null || g.hbmGb() < best.hbmGb()) best = g;
        }
        return best;
    }

    public Gpu gpu(String key, String file, String field) { return find(gpus, key, "GPU", file, field).value(); }

    public IntraNodeLink link(String key, String file, String field) {
        return find(links, key, "intra-node link", file, field).value();
    }

    public NetworkEntry network(String key, String file, String field) {
        return find(networks, key, "network", file, field).value();
    }

    private static <T> Entry<T> find(Map<String, Entry<T>> entries, String key, String what, String file, String field) {
        Entry<T> exact = entries.get(key);   // as written back by SpecWriter: no need to normalize every key
        if (exact != null) return exact;
        String k = Names.normalize(key);
        for (Entry<T> e : entries.values()) {
            if (Names.normalize(e.key()).equals(k)) return e;
            for (String a : e.aliases()) if (Names.normalize(a).equals(k)) return e;
        }
        throw new SpecException(file, field, "a known " + what + " key, got '" + key + "'; nearest known: "
                + Names.nearest(key, entries.keySet(), 3));
    }
}
