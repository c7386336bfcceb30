package dev.trainadvisor.facts;

/**
 * For a run that does not fit and offloads nothing: whether offloading the optimizer alone (Adam's states, the master
 * weights, the gradients) makes it fit, priced by the model, so that the remedies offer the fewest states to offload.
 */
public record OffloadFitFact(boolean optimizerOffloadFits) {}
