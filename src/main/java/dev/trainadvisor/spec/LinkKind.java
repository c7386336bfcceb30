package dev.trainadvisor.spec;

import java.util.Locale;

/** What joins the GPUs of a node. */
public enum LinkKind {
    /** NVIDIA NVLink, through NVSwitch or directly. */
    NVLINK,
    /** A direct GPU-to-GPU fabric of another vendor (AMD Infinity Fabric): NVLink-class bandwidth. */
    FABRIC,
    /** PCIe only. */
    PCIE,
    /** One GPU per node: nothing to join. */
    NONE;

    private final String key = name().toLowerCase(Locale.ROOT);
    public String key() { return key; }

    /** Parses "nvlink", "fabric", "pcie", "none". */
    public static LinkKind of(String key) { return valueOf(key.toUpperCase(Locale.ROOT)); }

    /** Whether it is a direct GPU-to-GPU link of NVLink's class rather than PCIe. */
    public boolean direct() { return this == NVLINK || this == FABRIC; }
}
