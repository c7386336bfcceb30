package dev.trainadvisor.perf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Gpu;
import dev.trainadvisor.spec.Network;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.SpecReader;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;

import java.util.EnumMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** Properties every prediction must have, over random valid configurations. */
class StepModelProperties {
    static final ObjectMapper JSON = new ObjectMapper();

    /** A random run file; invalid combinations (tp not dividing heads, ...) are discarded by the reader. */
    @Provide
    Arbitrary<RunSpec> runs() {
        Arbitrary<String> cluster = Arbitraries.of("dgx-a100-80gb", "dgx-h100", "a100-80gb-pcie-8x", "l40s-8x-pcie");
        Arbitrary<Integer> nodes = Arbitraries.of(1, 2, 4);
        Arbitrary<String> model = Arbitraries.of("llama-2-7b", "llama-2-13b", "internlm-7b", "gpt3-6.7b", "mistral-7b", "mixtral-8x7b");
        Arbitrary<Integer> tp = Arbitraries.of(1, 2, 4, 8);
        Arbitrary<Integer> pp = Arbitraries.of(1, 2, 4);
        Arbitrary<Integer> zero = Arbitraries.integers().between(0, 3);
        Arbitrary<Integer> mbs = Arbitraries.integers().between(1, 4);
        Arbitrary<Integer> micro = Arbitraries.integers().between(1, 8);
        Arbitrary<String> recompute = Arbitraries.of("none", "selective", "full");
        Arbitrary<Integer> seq = Arbitraries.of(2048, 4096);
        Arbitrary<Boolean> sp = Arbitraries.of(true, false);
        return Combinators.combine(cluster, nodes, model, tp, pp, zero, mbs, micro).as((c, n, m, t, p, z, b, k) -> {
            ObjectNode root = JSON.createObjectNode();
            root.putObject("cluster").put("preset", c).put("nodes", n);
            root.put("model", m);
            root.putObject("parallel").put("tp", t).put("pp", p).put("zero_stage", z);
            root.putObject("training").put("seq_len", 2048).put("micro_batch_size", b).put("micro_batches", k);
            return root;
        }).flatMap(root -> Combinators.combine(recompute, seq, sp).as((r, s, q) -> {
            ObjectNode copy = root.deepCopy();
            ((ObjectNode) copy.get("training")).put("recompute", r).put("seq_len", s);
            ((ObjectNode) copy.get("parallel")).put("sequence_parallel", q);
            return copy;
        })).map(tree -> {
            try {
                return new SpecReader().read(tree, "generated");
            } catch (SpecException e) {
                return null;
            }
        }).filter(java.util.Objects::nonNull);
    }

    @Property(tries = 300)
    void moreIntraNodeBandwidthNeverSlows(@ForAll("runs") RunSpec s, @ForAll @DoubleRange(min = 1.0, max = 20.0) double factor) {
        Cluster c = s.cluster();
        Assume.that(!Double.isInfinite(c.intraNode().busbwGbps()));
        Cluster faster = new Cluster(c.name(), c.gpu(), c.nodes(), c.gpusPerNode(),
                c.intraNode().withMeasuredBusbw(c.intraNode().busbwGbps() * factor), c.interNode());
        assertTrue(StepModel.predict(faster, s.run()).stepTimeS() <= StepModel.predict(c, s.run()).stepTimeS() * (1 + 1e-12));
    }

    @Property(tries = 300)
    void moreNetworkBandwidthNeverSlows(@ForAll("runs") RunSpec s, @ForAll @DoubleRange(min = 1.0, max = 20.0) double factor) {
        Cluster c = s.cluster();
        Assume.that(c.interNode() != null);
        Network n = c.interNode();
        Network faster = new Network(n.key(), n.lineRateGbitS(), n.efficiency(), n.alphaUs(), n.nicsPerNode(),
                n.nodeGbps() * factor, n.source());
        Cluster f = new Cluster(c.name(), c.gpu(), c.nodes(), c.gpusPerNode(), c.intraNode(), faster);
        assertTrue(StepModel.predict(f, s.run()).stepTimeS() <= StepModel.predict(c, s.run()).stepTimeS() * (1 + 1e-12));
    }

    @Property(tries = 300)
    void morePeakNeverSlows(@ForAll("runs") RunSpec s, @ForAll @DoubleRange(min = 1.0, max = 4.0) double factor) {
        Cluster c = s.cluster();
        Gpu g = c.gpu();
        Map<Precision, Double> peak = new EnumMap<>(Precision.class);
        g.peakTflops().forEach((k, v) -> peak.put(k, v * factor));
        // the measured MAMF scales with the peak, so the achieved fraction stays the same
        Gpu faster = new Gpu(g.key(), peak, g.hbmGb(), g.hbmGbps(), g.mamfTflopsBf16() * factor, g.attentionFraction(), g.sms(),
                g.architecture(), g.nvlinkLink(), g.source(), g.hostPcieGen(), g.pcieP2p());
        Cluster f = new Cluster(c.name(), faster, c.nodes(), c.gpusPerNode(), c.intraNode(), c.interNode());
        assertTrue(StepModel.predict(f, s.run()).stepTimeS() <= StepModel.predict(c, s.run()).stepTimeS() * (1 + 1e-12));
    }

    @Property(tries = 300)
    void aHigherZeroStageNeverNeedsMoreMemory(@ForAll("runs") RunSpec s) {
        var p = s.run().parallel();
        Assume.that(p.zeroStage() < 3);
        var higher = new dev.trainadvisor.spec.Parallel(p.tp(), p.pp(), p.dp(), p.cp(), p.ep(), p.sequenceParallel(),
                p.zeroStage() + 1, p.zeroGroupSize(), p.virtualStages(), p.overlapGradReduce(), p.overlapParamGather());
        double before = StepModel.predict(s.cluster(), s.run()).memory().totalGb();
        double after = StepModel.predict(s.cluster(), s.run().withParallel(higher)).memory().totalGb();
        assertTrue(after <= before * (1 + 1e-12), before + " GB -> " + after + " GB");
    }

    @Property(tries = 300)
    void flopsPerTokenDoNotDependOnTheLayoutAndTflopsFollowFromThem(@ForAll("runs") RunSpec s) {
        StepPrediction p = StepModel.predict(s.cluster(), s.run());
        assertEquals(FlopsPerToken.of(s.run().model(), s.run().training()), p.flopsPerToken());
        assertEquals(p.flopsPerToken().model() * p.tokensPerGpuPerS() / 1e12, p.tflopsPerGpu(), 1e-9 * p.tflopsPerGpu());
    }

    @Property(tries = 300)
    void theBreakdownSumsToTheStep(@ForAll("runs") RunSpec s) {
        StepPrediction p = StepModel.predict(s.cluster(), s.run());
        double sum = p.phases().stream().mapToDouble(Phase::exposedSeconds).sum();
        assertEquals(p.stepTimeS(), sum, 1e-9 * p.stepTimeS());
        for (Phase ph : p.phases()) assertTrue(ph.exposedSeconds() <= ph.seconds() * (1 + 1e-12) && ph.exposedSeconds() >= 0, ph.toString());
    }
}
