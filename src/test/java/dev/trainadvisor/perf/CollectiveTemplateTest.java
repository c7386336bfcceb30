package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Catalog;
import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Network;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.ReferenceRun;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.Training;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A layout's collectives planned once and placed again on a cluster whose links have other bandwidths
 * (CommModel.Template, what a fit's points along a link use) are the collectives every dimension plans there anew:
 * the same plans (operation, group, bytes, calls, window, and the link each group is bound by), call costs, seconds,
 * window demands and copies, double for double. Over every layout of knowledge-base/reference-runs (dense and MoE,
 * tensor, pipeline, context, expert and data parallelism, ZeRO 0-3 and FSDP, one node to thousands), each link from 20
 * times slower to 20 times faster than the catalogue's, so that a group across nodes is bound by the network at some
 * bandwidths and by the intra-node link at others: a template that kept the links it was planned with, or placed a
 * group otherwise, fails here.
 */
class CollectiveTemplateTest {

    /** The links' bandwidths over the catalogue's. */
    static final double[] FACTORS = {0.05, 0.3, 1.0, 3.0, 20.0};

    @Test
    void aTemplatePlacedAgainPlansWhatEveryDimensionPlansAnew() {
        List<ReferenceRun> rows = ReferenceRun.builtIn();
        int layouts = 0, compared = 0, rebound = 0, withInterference = 0, withCopies = 0;
        for (ReferenceRun row : rows) {
            RunSpec spec = row.spec();
            Model m = spec.run().model();
            Parallel p = spec.run().parallel();
            Training t = spec.run().training();
            Sharding sharding = Sharding.of(p);
            Shard shard = Shard.of(m, p, sharding);
            StepContext recorded = StepContext.of(spec.cluster(), m, p, t, sharding, shard, true);
            CollectivePlan[] plans = CommModel.Planned.plans(ParallelDimension.SHIPPED, recorded);
            CommModel.Template template = CommModel.Template.of(plans, recorded);
            assertNotNull(template, row.id() + ": every link its dimensions plan on is placed by the topology");
            for (CollectivePlan plan : plans)
                if (plan.link().interference() > 0 && plan.op() == CollectiveOp.EP_ALL_TO_ALL) withInterference++;
            layouts++;
            if (template.copySeconds() > 0) withCopies++;
            Scenario s0 = Scenario.catalogue(spec.cluster(), spec.run());
            for (double fi : FACTORS)
                for (double fn : FACTORS) {
                    Scenario s = s0;
                    if (s.hasIntraLink()) s = s.with(FitParam.INTRA_NODE_BUSBW, s.value(FitParam.INTRA_NODE_BUSBW) * fi);
                    if (s.hasNetwork()) s = s.with(FitParam.INTER_NODE_GBPS, s.value(FitParam.INTER_NODE_GBPS) * fn);
                    Cluster c = s.cluster();
                    assertTrue(StepModel.Recent.sameBesidesBandwidths(spec.cluster(), c), row.id());
                    CommModel.Planned anew = CommModel.Planned.of(ParallelDimension.SHIPPED,
                            StepContext.of(c, m, p, t, sharding, shard));
                    CommModel.Planned again = template.on(StepContext.of(c, m, p, t, sharding, shard));
                    String where = row.id() + " at " + fi + " x the intra-node link, " + fn + " x the network";
                    assertArrayEquals(anew.plans(), again.plans(), where);
                    assertArrayEquals(anew.costs(), again.costs(), where);
                    assertArrayEquals(anew.seconds(), again.seconds(), where);
                    assertArrayEquals(anew.demand(), again.demand(), where);
                    assertEquals(anew.copySeconds(), again.copySeconds(), 0.0, where);
                    for (int i = 0; i < plans.length; i++)
                        if (anew.plans()[i].link().scope() != plans[i].link().scope()) rebound++;
                    compared++;
                }
        }
        assertTrue(layouts > 150, "reference layouts: " + layouts);
        assertEquals(layouts * FACTORS.length * FACTORS.length, compared);
        // the bound moved: groups across nodes bound by the other link than at the catalogue's bandwidths
        assertTrue(rebound > 100, "collectives bound by another link once the bandwidths moved: " + rebound);
        // the all-to-all of a dispatcher that holds SMs of its own (LinkChoice.withInterference) placed again too
        assertTrue(withInterference > 0,
                "expert all-to-alls whose dispatcher slows the compute beside them: " + withInterference);
        // FSDP2's copies around its collectives, which the template keeps from the cluster it was planned on
        assertTrue(withCopies > 0, "layouts whose framework copies around its ZeRO-3 collectives: " + withCopies);
    }

    /**
     * A template is kept for clusters that differ in what a fit moves alone: a link of another kind or latency, another
     * GPU, node size or NVLink domain, or a network where there was none, is planned anew.
     */
    @Test
    void onlyTheLinksBandwidthsMayDiffer() {
        Catalog cat = Catalog.builtIn();
        Cluster two = PerfFixtures.dgxA100(2);
        assertTrue(StepModel.Recent.sameBesidesBandwidths(two, PerfFixtures.withIntraBusbw(two, 17.0)));
        Network net = two.interNode();
        Network measured = new Network(net.key(), net.lineRateGbitS(), net.efficiency(), net.alphaUs(), net.nicsPerNode(),
                42.0, net.source(), net.sharp());
        assertTrue(StepModel.Recent.sameBesidesBandwidths(two, two.withInterNode(measured)), "the network's bandwidth measured");
        Network otherKind = PerfFixtures.network(cat, "IB-HDR100", 8);
        assertFalse(StepModel.Recent.sameBesidesBandwidths(two, two.withInterNode(otherKind)), "another network");
        Network fewerNics = new Network(net.key(), net.lineRateGbitS(), net.efficiency(), net.alphaUs(), 4, Double.NaN,
                net.source(), net.sharp());
        assertFalse(StepModel.Recent.sameBesidesBandwidths(two, two.withInterNode(fewerNics)), "fewer NICs a node");
        assertFalse(StepModel.Recent.sameBesidesBandwidths(two, PerfFixtures.a100Pcie(2)), "another intra-node link");
        assertFalse(StepModel.Recent.sameBesidesBandwidths(two, PerfFixtures.dgxA100(4)), "more nodes");
        assertFalse(StepModel.Recent.sameBesidesBandwidths(PerfFixtures.dgxA100(1), two),
                "a network where there was none");
        assertFalse(StepModel.Recent.sameBesidesBandwidths(two,
                new Cluster(two.name(), two.gpu(), two.nodes(), two.gpusPerNode(), two.intraNode(), two.interNode(),
                        2 * two.nvlinkDomain(), two.host())), "a wider NVLink domain");
    }

    /**
     * The fields a fit moves, which sameBesidesBandwidths alone may find different: a link's bandwidth, measured or not.
     */
    static final java.util.Set<String> BANDWIDTHS = java.util.Set.of("IntraNodeLink.busbwGbps",
            "IntraNodeLink.busbwMeasured", "Network.busbwGbps");

    /**
     * Every other field of the cluster, its intra-node link and its network changes what a template may be placed on:
     * a copy that differs in that field alone is not "the same besides bandwidths" (a field added to these records and
     * left out of the comparison would let a template planned on one cluster be placed on another). Each scalar field is
     * changed in turn through the record's constructor (another number, the other boolean, another string or constant);
     * the records' fields are listed, so that a new one fails here until the comparison and this list take it.
     */
    @Test
    void everyOtherFieldOfTheClusterAndItsLinksCounts() throws Exception {
        Cluster two = PerfFixtures.dgxA100(2);
        assertEquals(List.of("name", "gpu", "nodes", "gpusPerNode", "intraNode", "interNode", "nvlinkDomain", "host"),
                names(Cluster.class));
        assertEquals(List.of("key", "kind", "unidirectionalGbps", "busbwGbps", "alphaUs", "busbwMeasured", "source",
                "host", "nvlsGain"), names(dev.trainadvisor.spec.IntraNodeLink.class));
        assertEquals(List.of("key", "lineRateGbitS", "efficiency", "alphaUs", "nicsPerNode", "busbwGbps", "source",
                "sharp"), names(Network.class));
        int changed = 0;
        for (Object[] v : variants(two.intraNode())) {
            String field = (String) v[0];
            boolean same = StepModel.Recent.sameBesidesBandwidths(two,
                    two.withIntraNode((dev.trainadvisor.spec.IntraNodeLink) v[1]));
            assertEquals(BANDWIDTHS.contains("IntraNodeLink." + field), same, "IntraNodeLink." + field);
            changed++;
        }
        for (Object[] v : variants(two.interNode())) {
            String field = (String) v[0];
            boolean same = StepModel.Recent.sameBesidesBandwidths(two, two.withInterNode((Network) v[1]));
            assertEquals(BANDWIDTHS.contains("Network." + field), same, "Network." + field);
            changed++;
        }
        for (Object[] v : variants(two)) {
            assertFalse(StepModel.Recent.sameBesidesBandwidths(two, (Cluster) v[1]), "Cluster." + v[0]);
            changed++;
        }
        assertTrue(changed >= 16, changed + " fields changed");
    }

    private static List<String> names(Class<?> record) {
        return java.util.Arrays.stream(record.getRecordComponents()).map(java.lang.reflect.RecordComponent::getName)
                .toList();
    }

    /**
     * Copies of {@code r} that each differ in one scalar field (a number, a boolean, a string or an enum constant), as
     * pairs of the field's name and the copy; fields the record's constructor refuses another value of are left out.
     */
    private static List<Object[]> variants(Record r) throws Exception {
        var components = r.getClass().getRecordComponents();
        Class<?>[] types = java.util.Arrays.stream(components).map(java.lang.reflect.RecordComponent::getType)
                .toArray(Class<?>[]::new);
        var constructor = r.getClass().getDeclaredConstructor(types);
        Object[] values = new Object[components.length];
        for (int i = 0; i < values.length; i++) values[i] = components[i].getAccessor().invoke(r);
        List<Object[]> out = new java.util.ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            Object other = other(types[i], values[i]);
            if (other == null) continue;
            Object[] changed = values.clone();
            changed[i] = other;
            try {
                out.add(new Object[] {components[i].getName(), constructor.newInstance(changed)});
            } catch (java.lang.reflect.InvocationTargetException refused) {
                // a value the record does not take (an NVLink domain that is not a multiple of the node's GPUs, say)
            }
        }
        return out;
    }

    private static Object other(Class<?> type, Object v) {
        if (type == double.class) return Double.isNaN((Double) v) ? 7.0 : (Double) v * 2 + 1;
        if (type == int.class) return (Integer) v * 2;
        if (type == boolean.class) return !(Boolean) v;
        if (type == String.class) return v + " (another)";
        if (type.isEnum()) {
            for (Object c : type.getEnumConstants()) if (c != v) return c;
        }
        return null;
    }
}
