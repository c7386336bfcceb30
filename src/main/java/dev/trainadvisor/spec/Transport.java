package dev.trainadvisor.spec;

import java.util.Locale;

/** How NCCL moves data between the GPUs of one node (knowledge-base/transports.json). */
public enum Transport {
    /** Peer-to-peer over NVLink or PCIe. */
    P2P,
    /** Staged through pinned host memory by the NCCL kernel's own SMs. */
    SHM,
    /** NCCL's socket network transport, through host buffers and TCP. */
    SOCKET;

    private final String key = name().toLowerCase(Locale.ROOT);
    public String key() { return key; }
}
