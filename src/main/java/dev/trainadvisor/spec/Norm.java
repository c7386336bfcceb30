package dev.trainadvisor.spec;

/** The layer norm a model uses; how its kernels move bytes differs when they run as PyTorch eager composites. */
public enum Norm {
    RMSNORM, LAYERNORM;
}
