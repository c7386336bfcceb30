package dev.trainadvisor.spec;

/**
 * Mixture of experts: {@code experts} routed FFNs of width {@code ffnHidden}, top-k routed, on every {@code every}-th
 * layer after the first {@code firstDense} dense ones, beside {@code sharedExperts} FFNs of width
 * {@code sharedFfnHidden} that every token passes (DeepSeek-MoE, Qwen2-MoE).
 *
 * @param capacityFactor tokens an expert takes, over the balanced share, when a capacity drops the rest and pads to it
 *                       (Megatron-Core's TransformerConfig.moe_expert_capacity_factor with moe_pad_expert_input_to_capacity);
 *                       0 for dropless routing, where each expert takes what it is sent
 * @param loadImbalance  dropless: the routed copies the busiest expert-parallel rank receives over the mean, which its
 *                       experts' GEMMs, permutation and all-to-all carry while the others wait; 1 when balanced
 *                       (Megatron's --moe-router-force-load-balancing, or a router that balances perfectly)
 */
public record Moe(int experts, int topK, int ffnHidden, int every, int firstDense, int sharedExperts,
                  int sharedFfnHidden, double capacityFactor, double loadImbalance) {

    /** Routed experts only, dropless and balanced, from the first layer. */
    public Moe(int experts, int topK, int ffnHidden, int every) {
        this(experts, topK, ffnHidden, every, 0, 0, 0, 0, 1);
    }

    /** Whether layer {@code i} (0-based) carries experts. */
    public boolean isMoeLayer(int i) { return i >= firstDense && (i - firstDense) % every == 0; }

    /** How many of {@code layers} carry experts. */
    public int moeLayers(int layers) {
        return layers <= firstDense ? 0 : (layers - firstDense + every - 1) / every;
    }

    /**
     * The busiest rank's routed copies over the balanced share: the capacity when tokens are padded to it, the load
     * imbalance dropless.
     */
    public double paddedShare() { return capacityFactor > 0 ? capacityFactor : loadImbalance; }
}
