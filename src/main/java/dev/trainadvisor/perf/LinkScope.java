package dev.trainadvisor.perf;

import java.util.Locale;

/** Where the link that bounds a collective is: between the GPUs of a node, or the network between nodes. */
public enum LinkScope {
    INTRA_NODE, INTER_NODE;

    private final String key = name().toLowerCase(Locale.ROOT).replace('_', '-');
    public String key() { return key; }
}
