package dev.trainadvisor.facts;

/**
 * One collective of the step on its link.
 *
 * @param scope        "intra-node" or "inter-node": where the link that bounds it is
 * @param factor       nccl-tests bus-bandwidth factor for its kind and group size
 * @param bytesPerStep bytes (nccl-tests size) moved per optimizer step
 * @param overlapsWith the compute window it can hide behind, or "none"
 */
public record CollectiveFact(String name, String kind, String group, int groupSize, double factor,
                             double bytesPerStep, String link, String scope, boolean crossesNodes, double busbwGbps,
                             double seconds, double exposedSeconds, double fractionOfStep, String overlapsWith) {}
