package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Model;

/** Parameter counts of a decoder-only transformer. */
public final class Params {
    private Params() {}

    /** Parameters of layer {@code i}: attention, MLP or experts (all of them), norms, biases. */
    public static double layer(Model m, int i) {
        double h = m.hidden();
        double kv = (double) m.kvHeads() * m.headDim();
        double q = m.attentionWidth();
        double attn = h * (q + 2 * kv) + q * h + (m.qkvBias() ? q + 2 * kv : 0);
        double mlp = m.isMoeLayer(i)
                ? m.moe().experts() * (m.gatedMlp() ? 3 : 2) * h * m.moe().ffnHidden() + h * m.moe().experts()
                        + sharedExperts(m)
                : (m.gatedMlp() ? 3 : 2) * h * m.ffnHidden();
        return attn + mlp + 2 * h;
    }

    /** The shared experts of one MoE layer: dense FFNs every token passes, split like the dense MLP. */
    static double sharedExperts(Model m) {
        return m.moe().sharedExperts() * (m.gatedMlp() ? 3 : 2) * (double) m.hidden() * m.moe().sharedFfnHidden();
    }

    /** Expert parameters of layer {@code i} (0 for a dense layer): these are sharded by expert parallelism. */
    public static double expertParams(Model m, int i) {
        if (!m.isMoeLayer(i)) return 0;
        return m.moe().experts() * (m.gatedMlp() ? 3 : 2) * (double) m.hidden() * m.moe().ffnHidden();
    }

    /**
     * The parameters of all the model's layers: those of the experts (sharded by expert parallelism) and the rest.
     * Layers differ only in whether they hold experts, so one layer of each kind stands for its kind.
     */
    record LayerSums(double dense, double experts) {}

    static LayerSums layerSums(Model m) {
        int moe = m.moeLayers(), dense = m.layers() - moe;
        double d = 0, e = 0;
        if (moe > 0) {
            int first = m.firstMoeLayer();
            double experts = expertParams(m, first);
            e = moe * experts;
            d += moe * (layer(m, first) - experts);
        }
        if (dense > 0) d += dense * layer(m, m.firstDenseLayer());
        return new LayerSums(d, e);
    }

    /** Sum over layers of the parameters a token uses (top-k experts instead of all). */
    static double activePerLayerSum(Model m) {
        double sum = 0;
        for (int i = 0; i < m.layers(); i++) {
            double p = layer(m, i);
            if (m.isMoeLayer(i)) p -= (m.moe().experts() - m.moe().topK()) * (m.gatedMlp() ? 3 : 2)
                    * (double) m.hidden() * m.moe().ffnHidden();
            sum += p;
        }
        return sum;
    }

    public static double embedding(Model m) { return (double) m.hidden() * m.vocab(); }

    /** Everything: layers, input embedding, output head unless tied, final norm. */
    public static double total(Model m) {
        LayerSums l = layerSums(m);
        return l.dense() + l.experts() + embedding(m) * (m.tiedEmbeddings() ? 1 : 2) + m.hidden();
    }
}
