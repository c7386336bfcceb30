package dev.trainadvisor.advice;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.perf.FitParam;
import dev.trainadvisor.perf.Scenario;
import dev.trainadvisor.perf.StepPrediction;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.SpecReader;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Runs made by the step model itself: a random model, GPU, cluster and layout that fits in memory, one quantity of
 * the model degraded (compute, a link, the overlap) or none, and the times a framework with per-phase timers logs
 * (Megatron's step time and forward, backward and optimizer timers), read off the degraded model with a little noise.
 * The advice must then find the degraded quantity from the times alone.
 */
final class GeneratedRuns {
    private GeneratedRuns() {}

    /** What was degraded, by how much, and the run file with the times it produced. */
    record Generated(RunSpec spec, FitParam degraded, double trueValue, double catalogueValue, double stepChange,
                     StepPrediction truth) {}

    static final String[] MODELS = {"gpt3-1.3b", "gpt3-2.7b", "gpt3-6.7b", "gpt3-13b", "llama-2-7b", "llama-2-13b",
            "llama-3-8b", "mistral-7b", "internlm-7b", "qwen2-7b", "llama-2-70b"};

    /** GPU, its intra-node link, and networks its clusters come with. */
    static final String[][] NODES = {
            {"A100-SXM4-80GB", "NVLink3", "IB-HDR"}, {"H100-SXM5-80GB", "NVLink4", "IB-NDR"},
            {"H200-SXM-141GB", "NVLink4", "IB-NDR"}, {"A100-PCIe-80GB", "PCIe4", "IB-HDR100"},
            {"H100-PCIe-80GB", "PCIe5", "RoCE-200G"}, {"L40S", "PCIe4", "RoCE-100G"}, {"B200", "NVLink5", "IB-XDR"}};

    static ObjectNode tree(Random r) {
        ObjectNode t = SpecReader.JSON_MAPPER.createObjectNode();
        String[] node = NODES[r.nextInt(NODES.length)];
        int perNode = r.nextInt(4) == 0 ? (r.nextBoolean() ? 2 : 4) : 8;
        int nodes = new int[]{1, 1, 2, 4}[r.nextInt(4)];
        ObjectNode c = t.putObject("cluster");
        c.put("gpu", node[0]);
        c.put("nodes", nodes);
        c.put("gpus_per_node", perNode);
        c.putObject("intra_node").put("link", node[1]);
        if (nodes > 1) c.putObject("inter_node").put("link", node[2]).put("nics_per_node", r.nextBoolean() ? perNode : 2);
        t.put("model", MODELS[r.nextInt(MODELS.length)]);
        int gpus = nodes * perNode;
        int tp = new int[]{1, 1, 2, 4, 8}[r.nextInt(5)];
        while (tp > perNode) tp /= 2;
        int pp = new int[]{1, 1, 1, 2, 4}[r.nextInt(5)];
        while (tp * pp > gpus) pp /= 2;
        ObjectNode p = t.putObject("parallel");
        p.put("tp", tp);
        p.put("pp", pp);
        p.put("zero_stage", r.nextInt(4));
        p.put("overlap_grad_reduce", r.nextInt(4) > 0);
        p.put("overlap_param_gather", r.nextBoolean());
        if (tp > 1) p.put("sequence_parallel", r.nextBoolean());
        ObjectNode tr = t.putObject("training");
        tr.put("seq_len", new int[]{2048, 4096}[r.nextInt(2)]);
        tr.put("micro_batch_size", new int[]{1, 2, 4}[r.nextInt(3)]);
        // production global batches: 4-32 micro-batches per step, so that a step takes long enough for its phases
        // to stand out of the framework's own per-step time (18 ms measured, perf.Overheads)
        tr.put("micro_batches", Math.max(2 * pp, new int[]{4, 8, 16, 32}[r.nextInt(4)]));
        tr.put("recompute", new String[]{"none", "selective", "full"}[r.nextInt(3)]);
        tr.put("precision", "bf16");
        return t;
    }

    /** A drawn run file without metrics, the run at the catalogue's values, and its prediction. */
    record Layout(ObjectNode tree, Scenario scenario, StepPrediction expected) {}

    /**
     * The next layout of {@code r}'s draws that the model can run (heads, layers and GPUs divisible) and that fits its
     * GPUs' memory; the draws it refuses are drawn past.
     */
    static Layout layout(Random r, SpecReader reader) {
        while (true) {
            ObjectNode t = tree(r);
            RunSpec spec;
            try {
                spec = reader.read(t, "generated");
            } catch (SpecException e) {
                continue;   // a layout the model cannot run (heads, layers or GPUs not divisible)
            }
            Scenario s = Scenario.catalogue(spec.cluster(), spec.run());
            StepPrediction expected = s.predict();
            if (expected.memory().headroomGb() >= 0) return new Layout(t, s, expected);
        }
    }

    /**
     * {@code n} runs of which a quarter are healthy and the rest have one quantity degraded within the ranges of
     * issue 8: a link to 5-60% of its catalogue bandwidth, compute to 70-95%, the overlap to anywhere in 0-1.
     */
    static List<Generated> generate(long seed, int n) {
        Random r = new Random(seed);
        List<Generated> out = new ArrayList<>();
        SpecReader reader = new SpecReader();
        while (out.size() < n) {
            Layout l = layout(r, reader);
            ObjectNode t = l.tree();
            Scenario s = l.scenario();
            StepPrediction expected = l.expected();
            FitParam degraded = null;
            double value = Double.NaN, catalogue = Double.NaN;
            int kind = r.nextInt(4);
            Scenario truth = s;
            if (kind > 0 || out.size() % 4 != 0) {
                List<FitParam> can = new ArrayList<>(List.of(FitParam.COMPUTE_SCALE, FitParam.OVERLAP_FRACTION));
                if (s.hasIntraLink()) can.add(FitParam.INTRA_NODE_BUSBW);
                if (s.hasNetwork()) can.add(FitParam.INTER_NODE_GBPS);
                degraded = can.get(r.nextInt(can.size()));
                catalogue = s.value(degraded);
                value = switch (degraded) {
                    case COMPUTE_SCALE -> 0.70 + 0.25 * r.nextDouble();
                    case OVERLAP_FRACTION -> 0.02 + 0.96 * r.nextDouble();
                    default -> catalogue * (0.05 + 0.55 * r.nextDouble());
                };
                truth = s.with(degraded, value);
            }
            StepPrediction p = truth.predict();
            // Megatron-style timers with 1% noise: step, forward, backward and the optimizer (after the backward)
            ObjectNode m = t.putObject("metrics");
            m.put("step_time_s", p.stepTimeS() * (1 + 0.01 * r.nextGaussian()));
            m.put("forward_time_s", p.forwardSeconds() * (1 + 0.01 * r.nextGaussian()));
            m.put("backward_time_s", p.backwardSeconds() * (1 + 0.01 * r.nextGaussian()));
            m.put("optimizer_time_s", p.afterBackwardSeconds() * (1 + 0.01 * r.nextGaussian()));
            t.put("name", "generated-" + out.size());
            out.add(new Generated(reader.read(t, "generated-" + out.size()), degraded, value, catalogue,
                    p.stepTimeS() / expected.stepTimeS() - 1, p));
        }
        return out;
    }
}
