package dev.trainadvisor.spec;

/** Mixture of experts: {@code experts} FFNs of width {@code ffnHidden}, top-k routed, on every {@code every}-th layer. */
public record Moe(int experts, int topK, int ffnHidden, int every) {}
