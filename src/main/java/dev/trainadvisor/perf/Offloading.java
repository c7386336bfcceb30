package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Framework;
import dev.trainadvisor.spec.Host;
import dev.trainadvisor.spec.HostOptimizer;
import dev.trainadvisor.spec.Hosts;
import dev.trainadvisor.spec.Offload;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Training;

/**
 * What offload (training.offload) costs a step, operation by operation: the optimizer step the host runs, and the
 * copies between the GPU and its host over the host link. Measured on the H200 machine's 16 host cores
 * (bench/h200_host_offload.py, bench/h200_host_adam.py; knowledge-base/hosts.json and measurements/h200-host-*.json)
 * and read against issue 18's FSDP2 CPUOffloadPolicy run, fitted to nothing.
 *
 * <ul>
 *   <li>The host optimizer ({@link #hostRate}): the node's ranks share its cores and its memory. A rank runs the
 *   framework's host optimizer (PyTorch's single-tensor CPU AdamW, its fused kernel, DeepSpeed's CPUAdam) with the
 *   threads its launcher leaves it (torchrun: one a rank when a node has several; DeepSpeed's launcher: all the cores),
 *   at the rate measured for that many threads in one process; the node's memory bandwidth caps the ranks together at
 *   its triad rate over the bytes of triad the optimizer costs a parameter; ranks unbound on more threads than cores
 *   lose the measured share of the bound rate.</li>
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

    /** Pinned copies each way on PCIe Gen5 x16, measured on the H200 machine: 55.2 GB/s at 1 GiB. */
    public static final double HOST_LINK_GEN5_GBPS = 55.2;

    /** The phases offload adds to a step. */
    public record Cost(double hostOptimizerS, double copiesInS, double copiesHiddenS, double copiesOutS,
                       double hostLinkGbps, HostRate rate) {
        static final Cost NONE = new Cost(0, 0, 0, 0, 0, null);
    }

    /**
     * The host's optimizer rate for one GPU, and what sets it.
     *
     * @param optimizer        the host optimizer (knowledge-base/hosts.json)
     * @param ranks            the ranks of a node whose optimizers share the host
     * @param threadsPerRank   the threads each rank runs it with
     * @param bound            each rank on its own share of the cores
     * @param oversubscription ranks x threads over the cores (above 1: threads wait for cores)
     * @param coresPerS        a rank's rate from its threads alone (one process, measured)
     * @param bandwidthPerS    a rank's share of what the node's memory bandwidth allows
     * @param unboundShare     what unbound ranks keep of the bound rate at this oversubscription
     * @param paramsPerS       the rate: the smaller of the two, times the share
     */
    public record HostRate(HostOptimizer optimizer, Host host, int ranks, double threadsPerRank, boolean bound,
                           double oversubscription, double coresPerS, double bandwidthPerS, double unboundShare,
                           double paramsPerS) {

        /** Whether the host's memory bandwidth, not its cores, sets the rate. */
        public boolean bandwidthBound() { return bandwidthPerS < coresPerS; }

        /** Host cores no rank's optimizer uses. */
        public double idleCores() { return Math.max(0, host.cores() - ranks * threadsPerRank); }
    }

    /** A GPU's host link, GB/s each way, from its host interface's PCIe generation (4 when unknown). */
    public static double hostLinkGbps(int pcieGen) {
        int gen = pcieGen > 0 ? pcieGen : 4;
        return HOST_LINK_GEN5_GBPS * Math.pow(2, gen - 5);
    }

    /**
     * The host's optimizer rate for one GPU of {@code c} running {@code t}: the framework's host optimizer and launcher
     * unless the run's offload names them (host_optimizer, host_threads, bind_cores).
     */
    public static HostRate hostRate(Cluster c, Training t) {
        Offload o = t.offload();
        Framework.Offloads fw = t.framework().offloads();
        if (fw == null) fw = Framework.Offloads.DEFAULT;
        HostOptimizer opt = Hosts.builtIn().optimizer(o.hostOptimizer() != null ? o.hostOptimizer() : fw.hostOptimizer());
        Host host = c.host();
        int ranks = c.gpusPerNode();
        double cores = host.cores();
        double share = cores / ranks;
        boolean bound = Boolean.TRUE.equals(o.bindCores());
        double threads;
        if (o.hostThreads() != null) threads = o.hostThreads();
        else if (bound) threads = share;
        else threads = fw.launcher().equals("torchrun") && ranks > 1 ? 1 : cores;
        if (bound) threads = Math.min(threads, share);
        double over = ranks * threads / cores;
        double effective = !bound && over > 1 ? share : threads;
        double coreRate = opt.paramsPerS(effective);
        double bwRate = host.memoryBandwidthGbps() * 1e9 / opt.triadBytesPerParam() / ranks;
        double unbound = bound ? 1 : opt.unboundShare(over);
        return new HostRate(opt, host, ranks, threads, bound, over, coreRate, bwRate, unbound,
                Math.min(coreRate, bwRate) * unbound);
    }

    static Cost of(StepContext s, ComputeTime compute, Efficiency eff) {
        Parts parts = parts(s);
        return parts == null ? Cost.NONE : parts.cost(compute.backwardSeconds(), eff.overlapFraction());
    }

    /**
     * What offload adds to a step of {@code s}'s layout that does not depend on the compute or the overlap; null where
     * nothing is offloaded. The gradient copies' part hidden behind the backward is worked out by {@link Parts#cost}.
     *
     * @param gradientCopyS      the gradients' copies to the host, in seconds; 0 where they stay on the GPU
     * @param windowMicroBatches the micro-batches whose backward hides them: every one where gradients are reduced at
     *                           every micro-batch, else the last
     * @param link               the host link's bandwidth each way, bytes a second
     */
    record Parts(double hostOptimizerS, double parametersInS, boolean gradients, double gradientCopyS,
                 int windowMicroBatches, double copiesOutS, double link, HostRate rate) {
        /** The cost with a micro-batch's backward taking {@code backwardSeconds}, at {@code overlap}. */
        Cost cost(double backwardSeconds, double overlap) {
            double in = parametersInS, hiddenCopy = 0;
            if (gradients) {
                double window = overlap * windowMicroBatches * backwardSeconds;
                hiddenCopy = Math.min(gradientCopyS, window);
                in += gradientCopyS - hiddenCopy;
            }
            return new Cost(hostOptimizerS, in, hiddenCopy, copiesOutS, link / 1e9, rate);
        }
    }

    static Parts parts(StepContext s) {
        Training t = s.training();
        Offload o = t.offload();
        if (!o.any()) return null;
        Parallel p = s.parallel();
        double link = hostLinkGbps(s.cluster().gpu().hostPcieGen()) * 1e9;
        HostRate hr = hostRate(s.cluster(), t);
        double rate = hr.paramsPerS();
        // this GPU's shard of the optimizer's parameters
        double shard = s.shard().updatedParams(s.sharding());
        int mb = t.microBatches();
        double hostOpt = shard * o.hostOptimizerShare() / rate;
        double in = 0, d2h = 0, out = 0;
        int windowMicroBatches = 0;
        Framework.Stage stage = t.framework().stage(p.zeroStage());
        if (o.parameters() != Offload.Tier.NONE && p.zeroStage() == 3) {
            // the fp32 shard (FSDP's sharded parameters are the master copy) before each gather
            boolean again = stage.parameters() == null || stage.parameters().regathersForBackward();
            in += mb * (again ? 2 : 1) * shard * 4 / link;
        }
        boolean gradients = o.gradients() != Offload.Tier.NONE;
        if (gradients) {
            boolean every = p.gradReduceEveryMicroBatch() != null ? p.gradReduceEveryMicroBatch()
                    : stage.gradients().everyMicroBatch().value();
            d2h = (every ? mb : 1) * shard * t.gradReducePrecision().bytes / link;
            windowMicroBatches = every ? mb : 1;
        }
        if (o.optimizer() != Offload.Tier.NONE && p.zeroStage() < 3)
            out += shard * o.hostOptimizerShare() * s.elementBytes() / link;
        return new Parts(hostOpt, in, gradients, d2h, windowMicroBatches, out, link, hr);
    }
}
