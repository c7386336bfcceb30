package dev.trainadvisor.engine;

import dev.trainadvisor.facts.BandwidthSource;
import dev.trainadvisor.facts.FactBuilder;
import dev.trainadvisor.facts.LinkFact;
import dev.trainadvisor.facts.NvlinkNodeFact;
import dev.trainadvisor.perf.Baseline;
import dev.trainadvisor.perf.LinkScope;
import dev.trainadvisor.spec.Catalog;
import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Measurements;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import dev.trainadvisor.spec.Training;

import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A run as the rules see it, for rule tests: the typed run's records (the cluster, the model, the layout, the
 * training) and what the model makes of its links (LinkFact), with the catalogue's NVLink node of its GPU where there
 * is one. Fields are changed by name on whichever record holds them ({@link #with}), without the run file's validation,
 * so that a test can state exactly the configuration a rule reads.
 */
record GivenRun(Cluster cluster, Model model, Parallel parallel, Training training, List<LinkFact> links,
                NvlinkNodeFact nvlink) {

    GivenRun {
        links = List.copyOf(links);
    }

    /**
     * The configuration of a run file from examples/, or from src/test/resources/ for a name starting "runs/", as
     * the catalogue describes it (its measurements left out: the link bandwidths are the catalogue's).
     */
    static GivenRun of(String file) {
        Path p = file.startsWith("runs/") ? Path.of("src/test/resources", file) : Path.of("examples", file);
        RunSpec s = new SpecReader().read(p);
        RunMetrics r = s.run();
        Baseline b = Baseline.of(s.cluster(), new RunMetrics(r.name(), r.model(), r.parallel(), r.training(), Measurements.NONE));
        return new GivenRun(s.cluster(), r.model(), r.parallel(), r.training(), FactBuilder.linkFacts(b),
                FactBuilder.nvlinkNode(s.cluster()));
    }

    /** The facts: each record, each link, the NVLink node. */
    List<Object> facts() {
        List<Object> out = new ArrayList<>(List.of(cluster, model, parallel, training));
        out.addAll(links);
        if (nvlink != null) out.add(nvlink);
        return out;
    }

    /** The link of a scope, or null. */
    LinkFact link(LinkScope scope) {
        return links.stream().filter(l -> l.scope() == scope).findFirst().orElse(null);
    }

    /** The catalogue key of the link of a scope ("none" without one). */
    String linkKey(LinkScope scope) {
        LinkFact l = link(scope);
        return l == null ? "none" : l.link();
    }

    /**
     * The run with fields changed: name, value, name, value, ... Each name is a component of Parallel, Training or
     * Cluster ("gpu" takes a catalogue key, and the GPU brings its compute capability); "nicsPerNode" sets the network's;
     * "nvlinkGpu" replaces the NVLink node's GPU (null: none).
     */
    GivenRun with(Object... nameValuePairs) {
        GivenRun r = this;
        for (int k = 0; k < nameValuePairs.length; k += 2) {
            String name = (String) nameValuePairs[k];
            Object value = nameValuePairs[k + 1];
            if (name.equals("nvlinkGpu")) {
                r = new GivenRun(r.cluster, r.model, r.parallel, r.training, r.links, value == null ? null
                        : new NvlinkNodeFact((String) value, Catalog.builtIn().gpu((String) value, "test", "nvlinkGpu").nvlinkLink()));
            } else if (name.equals("nicsPerNode")) {
                r = new GivenRun(GivenFacts.with(r.cluster, "interNode", GivenFacts.with(r.cluster.interNode(), "nicsPerNode", value)),
                        r.model, r.parallel, r.training, r.links, r.nvlink);
            } else if (name.equals("gpu")) {
                r = new GivenRun(GivenFacts.with(r.cluster, "gpu", Catalog.builtIn().gpu((String) value, "test", "gpu")),
                        r.model, r.parallel, r.training, r.links, r.nvlink);
            } else if (has(Parallel.class, name)) {
                r = new GivenRun(r.cluster, r.model, GivenFacts.with(r.parallel, name, value), r.training, r.links, r.nvlink);
            } else if (has(Training.class, name)) {
                r = new GivenRun(r.cluster, r.model, r.parallel, GivenFacts.with(r.training, name, value), r.links, r.nvlink);
            } else if (has(Cluster.class, name)) {
                r = new GivenRun(GivenFacts.with(r.cluster, name, value), r.model, r.parallel, r.training, r.links, r.nvlink);
            } else {
                throw new IllegalArgumentException("no record of the run has a field " + name);
            }
        }
        return r;
    }

    /** The run with the link of a scope measured (the run file gave it) at {@code gbps}. */
    GivenRun measured(LinkScope scope, double gbps) {
        return withLink(scope, gbps, BandwidthSource.MEASURED);
    }

    /** The run with the link of a scope at {@code gbps}, from {@code source}. */
    GivenRun withLink(LinkScope scope, double gbps, BandwidthSource source) {
        LinkFact l = link(scope);
        if (l == null) throw new IllegalArgumentException("the run has no " + scope + " link");
        return withLink(new LinkFact(scope, l.link(), gbps, source, l.catalogueGbps(), l.shmGbps(), l.socketGbps()));
    }

    /** The run with a link replaced, or added. */
    GivenRun withLink(LinkFact link) {
        List<LinkFact> ls = new ArrayList<>(links.stream().filter(l -> l.scope() != link.scope()).toList());
        ls.add(link);
        return new GivenRun(cluster, model, parallel, training, ls, nvlink);
    }

    private static boolean has(Class<? extends Record> type, String name) {
        return Arrays.stream(type.getRecordComponents()).map(RecordComponent::getName).anyMatch(name::equals);
    }
}
