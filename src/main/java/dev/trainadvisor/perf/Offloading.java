package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Framework;
import dev.trainadvisor.spec.Offload;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Training;

/**
 * What offload (training.offload) costs a step, operation by operation: the optimizer step the host runs, and the
 * copies between the GPU and its host over the host link. Measured on the H200 machine's 16 host cores
 * (bench/h200_host_offload.py, knowledge-base/measurements/h200-host-offload.json) and read against issue 18's
 * FSDP2 CPUOffloadPolicy run, fitted to nothing.
 *
 * <ul>
 *   <li>The host optimizer: PyTorch's AdamW on the CPU takes its single-tensor loop (foreach kernels are for CUDA
 *   devices only, torch/optim/optimizer.py _default_to_fused_or_foreach), measured at {@link #HOST_ADAMW_PARAMS_PER_S}
 *   with 16 threads; with fewer host cores a GPU gets a share of that rate as the measured foreach rates fall with the
 *   threads (0.72 of it at 8, 0.43 at 4).</li>
 *   <li>Copies: pinned host memory moves {@link #HOST_LINK_GEN5_GBPS} each way on PCIe Gen5 x16; a host link of an older
 *   generation half as much per generation down (the PCIe line rate halves: 63, 31.5, 15.8 GB/s for x16).</li>
 *   <li>ZeRO 3 with the parameters offloaded (FSDP's CPUOffloadPolicy): the shard is copied host to device before each
 *   gather, forward and, where the framework gathers again, backward, of every micro-batch, and nothing hides it: the
 *   measured FSDP2 run's forward-backward took 1.33 s where the same run without offload took 0.557, and 8 copies of its
 *   5.26 GB fp32 shard at 55 GB/s are 0.77 s.</li>
 *   <li>Gradients offloaded: each reduced gradient shard is copied device to host as the backward produces it,
 *   asynchronously (DeepSpeed's async_inplace_copy_grad_to_fp32_buffer_from_gpu; FSDP2's non-blocking copy into pinned
 *   memory), so the backward hides it up to the overlap share of its time.</li>
 *   <li>ZeRO 1-2 with the optimizer offloaded (DeepSpeed ZeRO-Offload): the updated 16-bit parameters are copied host to
 *   device after the host's step, exposed.</li>
 * </ul>
 */
public final class Offloading {
    private Offloading() {}

    /** PyTorch AdamW on the CPU, default (single-tensor) path, 16 threads: 1.21e9 fp32 parameters in 1.72 s (measured). */
    public static final double HOST_ADAMW_PARAMS_PER_S = 0.70e9;

    /**
     * The measured foreach rate at 16, 8 and 4 threads over its rate at 16, how the host's rate falls with its cores;
     * at one thread the host triad's share, 12.0 of 84.7 GB/s (the same measurement).
     */
    static final double[][] THREAD_SCALING = {{1, 0.14}, {4, 0.43}, {8, 0.72}, {16, 1.0}};

    /** Host cores the model assumes a node has when the run does not say: the H200 machine's, where it was measured. */
    public static final int DEFAULT_HOST_CORES = 16;

    /** Pinned copies each way on PCIe Gen5 x16, measured on the H200 machine: 55.2 GB/s at 1 GiB. */
    public static final double HOST_LINK_GEN5_GBPS = 55.2;

    /** The phases offload adds to a step. */
    public record Cost(double hostOptimizerS, double copiesInS, double copiesHiddenS, double copiesOutS,
                       double hostLinkGbps, double hostParamsPerS) {
        static final Cost NONE = new Cost(0, 0, 0, 0, 0, 0);
    }

    /** A GPU's host link, GB/s each way, from its host interface's PCIe generation (4 when unknown). */
    public static double hostLinkGbps(int pcieGen) {
        int gen = pcieGen > 0 ? pcieGen : 4;
        return HOST_LINK_GEN5_GBPS * Math.pow(2, gen - 5);
    }

    /** The host's AdamW rate for one GPU of {@code c}: the node's host cores shared among its GPUs. */
    public static double hostParamsPerS(dev.trainadvisor.spec.Cluster c) {
        return hostParamsPerS((double) DEFAULT_HOST_CORES / c.gpusPerNode());
    }

    /** The host's AdamW rate for one GPU, with {@code threads} host cores to itself. */
    public static double hostParamsPerS(double threads) {
        double[][] t = THREAD_SCALING;
        if (threads >= t[t.length - 1][0]) return HOST_ADAMW_PARAMS_PER_S;
        for (int i = 1; i < t.length; i++)
            if (threads <= t[i][0]) {
                double f = (threads - t[i - 1][0]) / (t[i][0] - t[i - 1][0]);
                return HOST_ADAMW_PARAMS_PER_S * (t[i - 1][1] + f * (t[i][1] - t[i - 1][1]));
            }
        return HOST_ADAMW_PARAMS_PER_S * t[0][1];
    }

    static Cost of(StepContext s, ComputeTime compute, Efficiency eff) {
        Training t = s.training();
        Offload o = t.offload();
        if (!o.any()) return Cost.NONE;
        Parallel p = s.parallel();
        double link = hostLinkGbps(s.cluster().gpu().hostPcieGen()) * 1e9;
        double rate = hostParamsPerS(s.cluster());
        // this GPU's shard of the optimizer's parameters
        double shard = s.shard().paramsPerGpu() / s.sharding().divisor(MemoryPart.OPTIMIZER_STATES);
        int mb = t.microBatches();
        double hostOpt = shard * o.hostOptimizerShare() / rate;
        double in = 0, hiddenCopy = 0, out = 0;
        Framework.Stage stage = t.framework().stage(p.zeroStage());
        if (o.parameters() != Offload.Tier.NONE && p.zeroStage() == 3) {
            // the fp32 shard (FSDP's sharded parameters are the master copy) before each gather
            boolean again = stage.parameters() == null || stage.parameters().backwardGather() == null
                    || stage.parameters().backwardGather().value();
            in += mb * (again ? 2 : 1) * shard * 4 / link;
        }
        if (o.gradients() != Offload.Tier.NONE) {
            boolean every = p.gradReduceEveryMicroBatch() != null ? p.gradReduceEveryMicroBatch()
                    : stage.gradients().everyMicroBatch().value();
            double d2h = (every ? mb : 1) * shard * t.gradReducePrecision().bytes / link;
            double window = eff.overlapFraction() * (every ? mb : 1) * compute.backwardSeconds();
            hiddenCopy = Math.min(d2h, window);
            in += d2h - hiddenCopy;
        }
        if (o.optimizer() != Offload.Tier.NONE && p.zeroStage() < 3)
            out += shard * o.hostOptimizerShare() * s.elementBytes() / link;
        return new Cost(hostOpt, in, hiddenCopy, out, link / 1e9, rate);
    }
}
