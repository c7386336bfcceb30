package dev.trainadvisor.advice;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainadvisor.facts.CapacityFact;
import dev.trainadvisor.perf.MemoryModel;
import dev.trainadvisor.perf.Params;
import dev.trainadvisor.search.Layout;
import dev.trainadvisor.search.LayoutSearch;
import dev.trainadvisor.spec.Catalog;
import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Gpu;
import dev.trainadvisor.spec.Network;
import dev.trainadvisor.spec.Presets;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.RunChange;
import dev.trainadvisor.spec.RunField;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.RunSpec;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What holds a run whose own layout does not fit, found by the layout search at the run's global batch: another layout
 * of the same GPUs; if none, the fewest GPUs of this kind, and the catalogue GPU with the least memory that holds it on
 * as many. All with what the run offloads, no more: offloading more to fit is its own remedy (offload-optimizer-to-fit),
 * priced beside these.
 */
final class WhatFits {
    private WhatFits() {}

    /** A layout the search keeps leaves this share of the memory free. */
    static final double HEADROOM = LayoutSearch.HEADROOM;

    /**
     * The most GPUs tried, as a multiple of the run's: beyond 64 times the GPUs, "the fewest that hold it" is no longer
     * an answer to "why does my run not fit" (and the search would take seconds).
     */
    static final int MAX_SCALE = 64;

    /** And never beyond this many GPUs (the largest training clusters published hold about 100,000). */
    static final int MAX_GPUS = 65536;

    /** A layout as what fits depends on it: not on the run's name or what it measured. */
    record Key(Cluster cluster, dev.trainadvisor.spec.Model model, dev.trainadvisor.spec.Parallel parallel,
               dev.trainadvisor.spec.Training training) {
        static Key of(Cluster cluster, RunMetrics run) { return new Key(cluster, run.model(), run.parallel(), run.training()); }

        /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
        @Override
        public boolean equals(Object o) {
            return this == o || o instanceof Key k && java.util.Objects.equals(cluster, k.cluster)
                    && java.util.Objects.equals(model, k.model) && java.util.Objects.equals(parallel, k.parallel)
                    && java.util.Objects.equals(training, k.training);
        }

        @Override
        public int hashCode() {
            int h = java.util.Objects.hashCode(cluster);
            h = 31 * h + java.util.Objects.hashCode(model);
            h = 31 * h + java.util.Objects.hashCode(parallel);
            return 31 * h + java.util.Objects.hashCode(training);
        }
    }

    /**
     * What fits, by layout: a search of every layout of the run's GPUs, and of more GPUs or larger ones, for each run
     * that does not fit, the same for every run of a layout (issue 22: a fleet runs each layout many times).
     */
    static final dev.trainadvisor.perf.LayoutCache<Key, CapacityFact> CACHE = new dev.trainadvisor.perf.LayoutCache<>(512);

    static CapacityFact of(Cluster cluster, RunMetrics run) {
        return CACHE.get(Key.of(cluster, run), k -> search(cluster, run));
    }

    private static CapacityFact search(Cluster cluster, RunMetrics run) {
        // what the GPUs hold as the run offloads (or not): offloading more is a remedy of its own, priced beside these
        LayoutSearch.Options a = LayoutSearch.Options.forAdvice();
        java.util.Set<String> vary = new java.util.TreeSet<>(a.vary());
        vary.remove("offload");
        LayoutSearch.Options o = new LayoutSearch.Options(a.top(), a.headroom(), java.util.Set.copyOf(vary), a.threads(),
                a.maxLayouts());
        double params = Params.total(run.model());
        double weightBytes = run.training().precision() == Precision.FP32 ? 4 : 2;
        double stateGb = params * (weightBytes + run.training().gradReducePrecision().bytes
                + MemoryModel.OPTIMIZER_BYTES_PER_PARAM) / 1e9;
        Layout own = Layout.of(run);
        // of its own GPUs, only whether another layout fits: none of them is timed
        LayoutSearch.Feasibility here = LayoutSearch.feasibility(new RunSpec(run.name(), cluster, run), o);
        int maxGpus = (int) Math.min((long) cluster.gpus() * MAX_SCALE, Math.max(MAX_GPUS, cluster.gpus()));
        if (here.anyFits())
            return new CapacityFact(cluster.gpus(), cluster.gpu().hbmGb(), params, stateGb, HEADROOM, here.visited(), true,
                    0, maxGpus, null, null, null, 0, null, null);

        int fewest = 0;
        String fewestLayout = null;
        RunChange fewestChange = null;
        Borrowed borrowed = cluster.interNode() != null ? new Borrowed(cluster.interNode(), RunChange.NONE)
                : networkOf(cluster.gpu(), cluster.intraNode().key());
        Network net = borrowed == null ? null : borrowed.network();
        // no layout holds more than the GPUs' memory less the headroom: fewer GPUs are not searched
        int least = (int) Math.ceil(stateGb / (cluster.gpu().hbmGb() * (1 - HEADROOM)) / cluster.gpusPerNode());
        for (int nodes : nodeCounts(cluster.nodes(), least, maxGpus / cluster.gpusPerNode())) {
            if (net == null) break;
            Cluster more = new Cluster(cluster.name(), cluster.gpu(), nodes, cluster.gpusPerNode(), cluster.intraNode(),
                    net, cluster.nvlinkDomain(), cluster.host());
            LayoutSearch.Result r = LayoutSearch.search(new RunSpec(run.name(), more, run), o);
            if (r.best().isEmpty()) continue;
            Layout l = r.best().get(0).layout();
            fewest = more.gpus();
            fewestLayout = l.describe();
            fewestChange = RunChange.of(RunField.NODES, nodes).and(borrowed.change()).and(l.changesFrom(own));
            break;
        }

        String larger = null, largerLayout = null;
        double largerGb = 0;
        RunChange largerChange = null;
        for (Gpu g : largerGpus(cluster.gpu())) {
            if (g.hbmGb() * (1 - HEADROOM) * cluster.gpus() < stateGb) continue; // cannot hold the state, whatever the layout
            Cluster other = new Cluster(cluster.name(), g, cluster.nodes(), cluster.gpusPerNode(), cluster.intraNode(),
                    cluster.interNode(), cluster.nvlinkDomain(), cluster.host());
            LayoutSearch.Result r = LayoutSearch.search(new RunSpec(run.name(), other, run), o);
            if (r.best().isEmpty()) continue;
            Layout l = r.best().get(0).layout();
            larger = g.key();
            largerGb = g.hbmGb();
            largerLayout = l.describe();
            largerChange = RunChange.of(RunField.GPU, g.key()).and(l.changesFrom(own));
            break;
        }
        return new CapacityFact(cluster.gpus(), cluster.gpu().hbmGb(), params, stateGb, HEADROOM, here.visited(), false,
                fewest, maxGpus, fewestLayout, fewestChange, larger, largerGb, largerLayout, largerChange);
    }

    /** A network for more nodes, and the change that gives the run it. */
    record Borrowed(Network network, RunChange change) {}

    /**
     * The network of a run on one node that names none, for more nodes: that of the first cluster preset (by name) with
     * a GPU of the same architecture, one with the same intra-node link first (knowledge-base/clusters: DGX A100 8 x IB-HDR, DGX H100 8 x IB-NDR, ...); its
     * run-file fields are the change that adds it. Null when no preset has one.
     */
    static Borrowed networkOf(Gpu gpu, String intraLink) {
        Catalog catalog = Catalog.builtIn();
        java.util.TreeMap<String, JsonNode> byName = new java.util.TreeMap<>(Presets.clusters());
        List<JsonNode> presets = new ArrayList<>(byName.values());
        // a node like the run's first: the same intra-node link (an NVLink node's network, not a PCIe server's)
        presets.sort(Comparator.comparing(p -> !p.path("intra_node").path("link").asText().equals(intraLink)));
        for (JsonNode p : presets) {
            JsonNode inter = p.path("inter_node");
            if (!inter.has("link") || !p.has("gpu")) continue;
            Gpu g = catalog.gpu(p.get("gpu").asText(), "knowledge-base/clusters", "gpu");
            if (!g.architecture().equals(gpu.architecture())) continue;
            Catalog.NetworkEntry n = catalog.network(inter.get("link").asText(), "knowledge-base/clusters", "inter_node.link");
            int nics = inter.path("nics_per_node").asInt(n.defaultNicsPerNode());
            return new Borrowed(new Network(n.key(), n.lineRateGbitS(), n.efficiency(), n.alphaUs(), nics, Double.NaN, n.source()),
                    RunChange.of(RunField.INTER_LINK, n.key()).and(RunField.NICS_PER_NODE, nics));
        }
        return null;
    }

    /**
     * Node counts to try above {@code from}, from {@code least} (fewer cannot hold the state, whatever the layout): one
     * more at a time for sixteen counts, then x1.5 and x2 steps, up to {@code max}.
     */
    static List<Integer> nodeCounts(int from, int least, int max) {
        java.util.TreeSet<Integer> out = new java.util.TreeSet<>();
        int start = Math.max(from + 1, least);
        for (int n = start; n <= Math.min(start + 15, max); n++) out.add(n);
        for (long n = start; n <= max; n *= 2) {
            if (n * 3 / 2 <= max) out.add((int) (n * 3 / 2));
            if (n * 2 <= max) out.add((int) (n * 2));
        }
        return List.copyOf(out);
    }

    /**
     * The catalogue's GPUs with more memory than {@code gpu}, the least memory first; of equal memory, one of the same
     * architecture first (a node of the same generation), then by name.
     */
    static List<Gpu> largerGpus(Gpu gpu) {
        Map<String, Gpu> byKey = new LinkedHashMap<>();
        for (Catalog.Entry<Gpu> e : Catalog.builtIn().gpus().values())
            if (e.value().hbmGb() > gpu.hbmGb()) byKey.putIfAbsent(e.value().key(), e.value());
        List<Gpu> out = new ArrayList<>(byKey.values());
        out.sort(Comparator.comparingDouble(Gpu::hbmGb)
                .thenComparing(g -> !g.architecture().equals(gpu.architecture()))
                .thenComparing(Gpu::key));
        return out;
    }
}
