package dev.trainadvisor.spec;

/**
 * A decoder-only transformer's shape.
 *
 * @param moe null for a dense model
 * @param mlpRatio the FFN ratio a framework config declares (InternEvo's mlp_ratio, 8/3 for InternLM-7B whose
 *                 ffn_hidden 11008 rounds 4096*8/3 up to a multiple of 256); only FLOPs conventions use it
 * @param norm              the layer norm (element-wise traffic of eager kernels)
 * @param positionEmbedding rope adds a rotary pass over q and k to every layer
 * @param headDim           each attention head's width: hidden / heads unless the model sets its own (Qwen3's
 *                          head_dim 128 over hidden 2048 and 32 heads), so queries and the attention output are
 *                          {@code heads x headDim} wide
 */
public record Model(String name, int layers, int hidden, int heads, int kvHeads, int ffnHidden, int vocab,
                    boolean gatedMlp, boolean tiedEmbeddings, boolean qkvBias, Moe moe, double mlpRatio,
                    Norm norm, PositionEmbedding positionEmbedding, int headDim) {

    /** Heads of hidden / heads. */
    public Model(String name, int layers, int hidden, int heads, int kvHeads, int ffnHidden, int vocab,
                 boolean gatedMlp, boolean tiedEmbeddings, boolean qkvBias, Moe moe, double mlpRatio,
                 Norm norm, PositionEmbedding positionEmbedding) {
        this(name, layers, hidden, heads, kvHeads, ffnHidden, vocab, gatedMlp, tiedEmbeddings, qkvBias, moe, mlpRatio,
                norm, positionEmbedding, hidden / heads);
    }

    /** A Llama-style model: RMSNorm and rotary position embeddings. */
    public Model(String name, int layers, int hidden, int heads, int kvHeads, int ffnHidden, int vocab,
                 boolean gatedMlp, boolean tiedEmbeddings, boolean qkvBias, Moe moe, double mlpRatio) {
        this(name, layers, hidden, heads, kvHeads, ffnHidden, vocab, gatedMlp, tiedEmbeddings, qkvBias, moe, mlpRatio,
                Norm.RMSNORM, PositionEmbedding.ROPE);
    }

    /** The queries' and the attention output's width: heads x head_dim (hidden, unless head_dim is the model's own). */
    public double attentionWidth() { return (double) heads * headDim; }

    public boolean isMoe() { return moe != null; }

    /**
     * Whether layer {@code i} (0-based) carries experts; Megatron's moe_layer_freq counts from the first layer after
     * the leading dense ones (DeepSeek's first_k_dense_replace).
     */
    public boolean isMoeLayer(int i) { return moe != null && moe.isMoeLayer(i); }

    /** The index of the first layer without experts; -1 when every layer has them. */
    public int firstDenseLayer() {
        for (int i = 0; i < layers; i++) if (!isMoeLayer(i)) return i;
        return -1;
    }

    /** The index of the first layer with experts; -1 for a dense model. */
    public int firstMoeLayer() {
        for (int i = 0; i < layers; i++) if (isMoeLayer(i)) return i;
        return -1;
    }

    /**
     * The MLP width a token passes through in an MoE layer (top-k routed experts and the shared ones) or a dense one:
     * what its activations and element-wise work scale with.
     */
    public double mlpWidthPerToken() {
        return moe == null ? ffnHidden
                : (double) moe.ffnHidden() * moe.topK() + (double) moe.sharedExperts() * moe.sharedFfnHidden();
    }

    public int moeLayers() {
        return moe == null ? 0 : moe.moeLayers(layers);
    }

    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Model m && layers == m.layers && hidden == m.hidden && heads == m.heads
                && kvHeads == m.kvHeads && ffnHidden == m.ffnHidden && vocab == m.vocab && gatedMlp == m.gatedMlp
                && tiedEmbeddings == m.tiedEmbeddings && qkvBias == m.qkvBias
                && Double.compare(mlpRatio, m.mlpRatio) == 0 && headDim == m.headDim
                && java.util.Objects.equals(name, m.name) && java.util.Objects.equals(moe, m.moe)
                && java.util.Objects.equals(norm, m.norm)
                && java.util.Objects.equals(positionEmbedding, m.positionEmbedding);
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(name);
        h = 31 * h + layers;
        h = 31 * h + hidden;
        h = 31 * h + heads;
        h = 31 * h + kvHeads;
        h = 31 * h + ffnHidden;
        h = 31 * h + vocab;
        h = 31 * h + Boolean.hashCode(gatedMlp);
        h = 31 * h + Boolean.hashCode(tiedEmbeddings);
        h = 31 * h + Boolean.hashCode(qkvBias);
        h = 31 * h + java.util.Objects.hashCode(moe);
        h = 31 * h + Double.hashCode(mlpRatio);
        h = 31 * h + java.util.Objects.hashCode(norm);
        h = 31 * h + java.util.Objects.hashCode(positionEmbedding);
        return 31 * h + headDim;
    }
}
