package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Catalog;
import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Gpu;
import dev.trainadvisor.spec.IntraNodeLink;
import dev.trainadvisor.spec.Measurements;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Network;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.Training;

/**
 * Models, trainings and clusters for the step-model tests, written out from their published
 * configurations (not read back from the presets, so a wrong preset cannot hide a wrong formula).
 */
final class PerfFixtures {
    private PerfFixtures() {}

    /**
     * InternLM-7B (HF config.json of internlm/internlm-7b, https://huggingface.co/internlm/internlm-7b): 32 layers, hidden 4096,
     * 32 heads, no GQA, SwiGLU FFN 11008, vocab 103168, untied embeddings, bias on q/k/v, mlp_ratio 8/3
     * (InternLM configs/7B_sft.py MLP_RATIO = 8 / 3).
     */
    static Model internlm7b() {
        return new Model("internlm-7b", 32, 4096, 32, 32, 11008, 103168, true, false, true, null, 8.0 / 3.0);
    }

    /**
     * GPT-3 175B as Narayanan et al. 2021 count it (section 5.1): l = 96, h = 12288, a = 96, plain MLP 4h,
     * V = 51200 (the vocabulary the paper's eq. 3 uses), no GQA.
     */
    static Model gpt3_175b() {
        return new Model("gpt3-175b", 96, 12288, 96, 96, 4 * 12288, 51200, false, true, false, null, 4.0);
    }

    static Training training(int seqLen, int microBatchSize, int microBatches, Recompute recompute,
                             Precision gradReduce, boolean flash) {
        return new Training(seqLen, microBatchSize, microBatches, recompute, Precision.BF16, gradReduce, flash);
    }

    static Parallel parallel(int tp, int pp, int dp, boolean sp, int zeroStage, int zeroGroup, int virtualStages) {
        return new Parallel(tp, pp, dp, 1, 1, sp, zeroStage, zeroGroup, virtualStages, true, false);
    }

    static RunMetrics run(Model m, Parallel p, Training t) {
        return new RunMetrics("test", m, p, t, Measurements.NONE);
    }

    /** 8 x A100-SXM4-80GB per node on NVLink3, 8 x HDR InfiniBand NICs per node (DGX A100). */
    static Cluster dgxA100(int nodes) {
        Catalog cat = Catalog.builtIn();
        Gpu gpu = cat.gpu("A100-SXM4-80GB", "test", "gpu");
        IntraNodeLink link = cat.link("NVLink3", "test", "intra_node.link");
        return new Cluster("dgx-a100 x" + nodes, gpu, nodes, 8, link, network(cat, "IB-HDR", 8));
    }

    /** 8 x A100-PCIe-80GB per node on PCIe Gen4, 2 x HDR100 per node (the motivating case's cluster). */
    static Cluster a100Pcie(int nodes) {
        Catalog cat = Catalog.builtIn();
        Gpu gpu = cat.gpu("A100-PCIe-80GB", "test", "gpu");
        IntraNodeLink link = cat.link("PCIe4", "test", "intra_node.link");
        return new Cluster("a100-pcie x" + nodes, gpu, nodes, 8, link, network(cat, "IB-HDR100", 2));
    }

    static Network network(Catalog cat, String key, int nics) {
        Catalog.NetworkEntry n = cat.network(key, "test", "inter_node.link");
        return new Network(n.key(), n.lineRateGbitS(), n.efficiency(), n.alphaUs(), nics, Double.NaN, n.source());
    }

    static Cluster withIntraBusbw(Cluster c, double busbwGbps) {
        return new Cluster(c.name(), c.gpu(), c.nodes(), c.gpusPerNode(), c.intraNode().withMeasuredBusbw(busbwGbps),
                c.interNode());
    }

    static double rel(double actual, double expected) {
        return Math.abs(actual - expected) / Math.abs(expected);
    }
}
