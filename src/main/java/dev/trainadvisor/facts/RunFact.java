package dev.trainadvisor.facts;

/**
 * The run's configuration as the rules see it.
 *
 * @param intraLinkKind   "nvlink", "pcie", "fabric" or "none"
 * @param nvlinkGpu       the same-generation GPU sold in NVLink (SXM) nodes, or null if none / already NVLink
 * @param nvlinkLink      the NVLink generation of those nodes, or null
 * @param intraBusbwSource where {@code intraBusbwGbps} comes from: "catalogue", "measured" (the run file) or
 *                        "fitted" (to the run's timings)
 * @param interNodeGbps   what one node can push into the network (NICs x line rate x efficiency), GB/s; 0 if single node
 */
public record RunFact(String name, String gpu, int gpus, int nodes, int gpusPerNode, int tp, int pp, int dp, int cp,
                      int ep, int virtualStages, int zeroStage, int zeroGroupSize, int microBatchSize, int microBatches, int seqLen,
                      String recompute, String precision, String gradReducePrecision, String intraLink,
                      String intraLinkKind, double intraBusbwGbps, String intraBusbwSource, String interLink,
                      int nicsPerNode, double interNodeGbps, boolean overlapGradReduce, boolean overlapParamGather,
                      boolean flashAttention, double peakTflops, double hbmGb, String nvlinkGpu, String nvlinkLink) {}
