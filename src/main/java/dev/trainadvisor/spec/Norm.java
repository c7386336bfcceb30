package dev.trainadvisor.spec;

import java.util.Locale;

/** The layer norm a model uses; how its kernels move bytes differs when they run as PyTorch eager composites. */
public enum Norm {
    RMSNORM, LAYERNORM;

    public String key() { return name().toLowerCase(Locale.ROOT); }

    public static Norm parse(String s) {
        for (Norm n : values()) if (n.key().equalsIgnoreCase(s.trim())) return n;
        return null;
    }
}
