package dev.trainadvisor.spec;

/**
 * A decoder-only transformer's shape.
 *
 * @param moe null for a dense model
 * @param mlpRatio the FFN ratio a framework config declares (InternEvo's mlp_ratio, 8/3 for InternLM-7B whose
 *                 ffn_hidden 11008 rounds 4096*8/3 up to a multiple of 256); only FLOPs conventions use it
 * @param norm              the layer norm (element-wise traffic of eager kernels)
 * @param positionEmbedding rope adds a rotary pass over q and k to every layer
 */
public record Model(String name, int layers, int hidden, int heads, int kvHeads, int ffnHidden, int vocab,
                    boolean gatedMlp, boolean tiedEmbeddings, boolean qkvBias, Moe moe, double mlpRatio,
                    Norm norm, PositionEmbedding positionEmbedding) {

    /** A Llama-style model: RMSNorm and rotary position embeddings. */
    public Model(String name, int layers, int hidden, int heads, int kvHeads, int ffnHidden, int vocab,
                 boolean gatedMlp, boolean tiedEmbeddings, boolean qkvBias, Moe moe, double mlpRatio) {
        this(name, layers, hidden, heads, kvHeads, ffnHidden, vocab, gatedMlp, tiedEmbeddings, qkvBias, moe, mlpRatio,
                Norm.RMSNORM, PositionEmbedding.ROPE);
    }

    public int headDim() { return hidden / heads; }

    public boolean isMoe() { return moe != null; }

    /** Whether layer {@code i} (0-based) carries experts; Megatron's moe_layer_freq counts from the first layer. */
    public boolean isMoeLayer(int i) { return moe != null && i % moe.every() == 0; }

    /** The index of the first layer without experts; -1 when every layer has them. */
    public int firstDenseLayer() {
        for (int i = 0; i < layers; i++) if (!isMoeLayer(i)) return i;
        return -1;
    }

    public int moeLayers() {
        if (moe == null) return 0;
        return (layers + moe.every() - 1) / moe.every();
    }
}
