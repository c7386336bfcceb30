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
 * @param hostOptimizer the optimizer the host runs (knowledge-base/hosts.json host_optimizers), or null for the
 *                      framework's (its profile's offload fact)
 * @param hostThreads   the host threads each rank's optimizer runs (its OMP_NUM_THREADS), or null for what the
 *                      framework's launcher leaves it
 * @param bindCores     each rank bound to its own share of the host's cores (DeepSpeed's --bind_cores_to_rank,
 *                      numactl / taskset), or null for unbound
 */
public record Offload(Tier optimizer, Tier masterWeights, Tier gradients, Tier parameters, Tier activations,
                      double ratio, String nvmePath, String hostOptimizer, Integer hostThreads, Boolean bindCores) {

    /** The tiers, ratio and path, the host's optimizer, threads and binding left to the framework. */
    public Offload(Tier optimizer, Tier masterWeights, Tier gradients, Tier parameters, Tier activations, double ratio,
                   String nvmePath) {
        this(optimizer, masterWeights, gradients, parameters, activations, ratio, nvmePath, null, null, null);
    }

    /** The same offload with the host's optimizer, threads a rank and binding set (null leaves one to the framework). */
    public Offload withHost(String optimizer, Integer threads, Boolean bind) {
        return new Offload(this.optimizer, masterWeights, gradients, parameters, activations, ratio, nvmePath, optimizer,
                threads, bind);
    }

    /** The same offload with another share of the optimizer on the host. */
    public Offload withRatio(double r) {
        return new Offload(optimizer, masterWeights, gradients, parameters, activations, r, nvmePath, hostOptimizer,
                hostThreads, bindCores);
    }

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

    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Offload f && Double.compare(ratio, f.ratio) == 0
                && java.util.Objects.equals(optimizer, f.optimizer)
                && java.util.Objects.equals(masterWeights, f.masterWeights)
                && java.util.Objects.equals(gradients, f.gradients)
                && java.util.Objects.equals(parameters, f.parameters)
                && java.util.Objects.equals(activations, f.activations)
                && java.util.Objects.equals(nvmePath, f.nvmePath)
                && java.util.Objects.equals(hostOptimizer, f.hostOptimizer)
                && java.util.Objects.equals(hostThreads, f.hostThreads)
                && java.util.Objects.equals(bindCores, f.bindCores);
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(optimizer);
        h = 31 * h + java.util.Objects.hashCode(masterWeights);
        h = 31 * h + java.util.Objects.hashCode(gradients);
        h = 31 * h + java.util.Objects.hashCode(parameters);
        h = 31 * h + java.util.Objects.hashCode(activations);
        h = 31 * h + Double.hashCode(ratio);
        h = 31 * h + java.util.Objects.hashCode(nvmePath);
        h = 31 * h + java.util.Objects.hashCode(hostOptimizer);
        h = 31 * h + java.util.Objects.hashCode(hostThreads);
        return 31 * h + java.util.Objects.hashCode(bindCores);
    }
}
