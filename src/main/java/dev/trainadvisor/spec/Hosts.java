package dev.trainadvisor.spec;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainadvisor.input.SpecException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * knowledge-base/hosts.json, read once: the hosts a cluster may name ({@code cluster.host}), the host optimizers offload
 * runs ({@code training.offload.host_optimizer}), and the default host a run that names none is priced on.
 */
public final class Hosts {

    private final Map<String, Host> hosts;
    private final Map<String, String> aliases;
    private final Map<String, HostOptimizer> optimizers;
    private final String defaultKey;
    private final double triadShare;

    private Hosts(Map<String, Host> hosts, Map<String, String> aliases, Map<String, HostOptimizer> optimizers,
                  String defaultKey, double triadShare) {
        this.hosts = hosts;
        this.aliases = aliases;
        this.optimizers = optimizers;
        this.defaultKey = defaultKey;
        this.triadShare = triadShare;
    }

    /** The shipped catalogue, read once on first use (the holder idiom: the JVM's class initialisation is the lock). */
    private static final class BuiltIn {
        static final Hosts HOSTS = load(Catalog.read("knowledge-base/hosts.json"));
    }

    public static Hosts builtIn() { return BuiltIn.HOSTS; }

    static Hosts load(JsonNode root) {
        Map<String, Host> hosts = new LinkedHashMap<>();
        Map<String, String> aliases = new LinkedHashMap<>();
        for (JsonNode n : root.get("hosts")) {
            Host h = new Host(n.get("key").asText(), n.get("cores").asInt(), n.get("memory_bandwidth_gbps").asDouble(),
                    n.get("memory_gb").asDouble(), n.get("source").asText(), false);
            if (!(h.cores() > 0 && h.memoryBandwidthGbps() > 0 && h.memoryGb() > 0 && !h.source().isBlank()))
                throw new IllegalStateException("knowledge-base/hosts.json: host " + h.key()
                        + " needs cores, memory_bandwidth_gbps, memory_gb and a source");
            hosts.put(h.key(), h);
            for (JsonNode a : n.path("aliases")) aliases.put(a.asText().toLowerCase(Locale.ROOT), h.key());
        }
        Map<String, HostOptimizer> optimizers = new LinkedHashMap<>();
        for (JsonNode n : root.get("host_optimizers")) {
            HostOptimizer o = new HostOptimizer(n.get("key").asText(), n.get("description").asText(),
                    table(n.get("params_per_s_by_threads")), n.get("triad_bytes_per_param").asDouble(),
                    table(n.get("unbound_share_by_oversubscription")), n.get("source").asText());
            if (o.source().isBlank() || !(o.triadBytesPerParam() > 0))
                throw new IllegalStateException("knowledge-base/hosts.json: host optimizer " + o.key() + " needs a source");
            optimizers.put(o.key(), o);
        }
        String dflt = root.get("default").asText();
        if (!hosts.containsKey(dflt)) throw new IllegalStateException("knowledge-base/hosts.json: default " + dflt);
        return new Hosts(Collections.unmodifiableMap(hosts), Collections.unmodifiableMap(aliases),
                Collections.unmodifiableMap(optimizers), dflt, root.get("triad_share_of_peak").asDouble());
    }

    private static NavigableMap<Double, Double> table(JsonNode obj) {
        TreeMap<Double, Double> t = new TreeMap<>();
        obj.fields().forEachRemaining(e -> t.put(Double.parseDouble(e.getKey()), e.getValue().asDouble()));
        if (t.isEmpty()) throw new IllegalStateException("knowledge-base/hosts.json: an empty table");
        return Collections.unmodifiableNavigableMap(t);
    }

    public Map<String, Host> hosts() { return hosts; }

    public Map<String, HostOptimizer> optimizers() { return optimizers; }

    /** Other names of the hosts, lower case: alias -> key (the run-file keys' table offers them to editors). */
    public Map<String, String> aliases() { return aliases; }

    /** The share of a datasheet's peak memory bandwidth a STREAM triad reaches, for a host nobody measured. */
    public double triadShare() { return triadShare; }

    /** The host a run that names none is priced on, marked assumed: its cores and bandwidth, not its memory (NaN). */
    public Host defaultHost() {
        Host h = hosts.get(defaultKey);
        return new Host(h.key(), h.cores(), h.memoryBandwidthGbps(), Double.NaN, h.source(), true);
    }

    /** The host named {@code key} (or an alias), or a SpecException naming the field and the nearest key. */
    public Host host(String key, String file, String field) {
        String k = key.toLowerCase(Locale.ROOT);
        Host h = hosts.get(aliases.getOrDefault(k, k));
        if (h != null) return h;
        List<String> known = new ArrayList<>(hosts.keySet());
        known.addAll(aliases.keySet());
        throw new SpecException(file, field, "a host of knowledge-base/hosts.json (" + String.join(", ", hosts.keySet())
                + ") or {cores, memory_bandwidth_gbps}, got '" + key + "'; nearest: " + Names.nearest(key, known, 3));
    }

    /** The host optimizer {@code key}, or a SpecException naming the field. */
    public HostOptimizer optimizer(String key, String file, String field) {
        HostOptimizer o = optimizers.get(key.toLowerCase(Locale.ROOT));
        if (o != null) return o;
        throw new SpecException(file, field, "one of " + optimizers.keySet() + ", got '" + key + "'");
    }

    /** The host optimizer {@code key}, known to exist. */
    public HostOptimizer optimizer(String key) {
        HostOptimizer o = optimizers.get(key);
        if (o == null) throw new IllegalArgumentException("no host optimizer " + key);
        return o;
    }
}
