package dev.trainadvisor.facts;

import dev.trainadvisor.spec.AttentionKernel;
import dev.trainadvisor.spec.ElementwiseKernels;
import dev.trainadvisor.spec.LinkKind;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Recompute;

/**
 * The run's configuration as the rules see it.
 *
 * @param nvlinkDomain          GPUs joined by the intra-node link, across nodes on a rack-scale NVLink system (72 on a
 *                              GB200 NVL72), else the node's
 * @param smVersion             the GPU's CUDA compute capability times ten (80 Ampere, 90 Hopper), 0 if not NVIDIA
 * @param hasFp8                whether the GPU has fp8 tensor cores
 * @param intraBusbwGbps        the intra-node bus bandwidth the baseline step runs at
 * @param intraBusbwSource      where it comes from
 * @param intraCatalogueGbps    the catalogue's value for the link on this host (IntraNodeLink#expectedBusbwGbps)
 * @param interNodeGbps         what one node pushes into the network in the baseline step (0 on one node)
 * @param interCatalogueGbps    the catalogue's value for it
 * @param nvlinkGpu             the same-generation GPU sold in NVLink (SXM) nodes, or null if none / already NVLink
 * @param nvlinkLink            the NVLink generation of those nodes, or null
 * @param shmGbps               what NCCL's shared-memory transport gives on this host (peer-to-peer off), GB/s
 * @param socketGbps            what its socket transport gives within a node, GB/s
 */
public record RunFact(String name, String gpu, int smVersion, boolean hasFp8, int gpus, int nodes, int gpusPerNode,
                      int nvlinkDomain, int tp, int pp, int dp, int cp, int ep, int virtualStages, boolean sequenceParallel,
                      int zeroStage, int zeroGroupSize, int microBatchSize, int microBatches, int seqLen,
                      Recompute recompute, Precision precision, Precision gradReducePrecision, boolean flashAttention,
                      AttentionKernel attentionKernel, ElementwiseKernels elementwiseKernels,
                      String intraLink, LinkKind intraLinkKind, double intraBusbwGbps, BandwidthSource intraBusbwSource,
                      double intraCatalogueGbps, String interLink, int nicsPerNode, double interNodeGbps,
                      BandwidthSource interSource, double interCatalogueGbps, boolean overlapGradReduce,
                      boolean overlapParamGather, double peakTflops, double hbmGb, String nvlinkGpu, String nvlinkLink,
                      double shmGbps, double socketGbps) {

    /** The intra-node bus bandwidth over the catalogue's. */
    public double intraRatio() { return intraBusbwGbps / intraCatalogueGbps; }

    /** The network bandwidth per node over the catalogue's (NaN on one node). */
    public double interRatio() { return interCatalogueGbps > 0 ? interNodeGbps / interCatalogueGbps : Double.NaN; }
}
