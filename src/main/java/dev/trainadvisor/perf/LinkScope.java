package dev.trainadvisor.perf;

import java.util.Locale;

/** Where the link that bounds a collective is: between the GPUs of a node, or the network between nodes. */
public enum LinkScope {
    INTRA_NODE, INTER_NODE;

    public String key() { return name().toLowerCase(Locale.ROOT).replace('_', '-'); }
}
