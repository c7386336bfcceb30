package dev.trainadvisor.spec;

import java.util.Locale;

/**
 * What a run keeps off the GPU ({@code training.offload}): the optimizer's states, the fp32 master weights, the
 * gradients, the parameters (ZeRO 3 / FSDP) and the saved activations, each on the host ({@code cpu}), on NVMe
 * ({@code nvme}, optimizer states and parameters only, as DeepSpeed's ZeRO-Infinity does) or not at all. DeepSpeed
 * ZeRO-Offload is {@code optimizer, master_weights, gradients: cpu}; FSDP's CPUOffload / CPUOffloadPolicy adds
 * {@code parameters: cpu} (torch/distributed/fsdp/_fully_shard/_fsdp_api.py: "Sharded parameters are copied
 * host-to-device before all-gather ... gradients are copied device-to-host in backward, and the optimizer step runs
 * on CPU").
 *
 * @param ratio    the share of the optimizer's work offloaded (DeepSpeed's offload_optimizer.ratio, ZeRO-Offload++'s
 *                 partial offload), 1 for all of it
 * @param nvmePath where an NVMe tier lives (DeepSpeed's nvme_path), or null
 */
public record Offload(Tier optimizer, Tier masterWeights, Tier gradients, Tier parameters, Tier activations,
                      double ratio, String nvmePath) {

    /** Where a state lives. */
    public enum Tier {
        NONE, CPU, NVME;

        public String key() { return name().toLowerCase(Locale.ROOT); }
    }

    /** Nothing offloaded. */
    public static final Offload NONE = new Offload(Tier.NONE, Tier.NONE, Tier.NONE, Tier.NONE, Tier.NONE, 1.0, null);

    /** Whether anything leaves the GPU. */
    public boolean any() {
        return optimizer != Tier.NONE || masterWeights != Tier.NONE || gradients != Tier.NONE || parameters != Tier.NONE
                || activations != Tier.NONE;
    }

    /** The share of the optimizer's parameters that the host updates: {@code ratio} when the optimizer is offloaded. */
    public double hostOptimizerShare() { return optimizer == Tier.NONE ? 0 : ratio; }
}
