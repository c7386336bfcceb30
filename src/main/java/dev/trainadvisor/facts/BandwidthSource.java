package dev.trainadvisor.facts;

import java.util.Locale;

/** Where the bandwidth of a link in the facts comes from. */
public enum BandwidthSource {
    /** The catalogue's typical node. */
    CATALOGUE,
    /** The run file: busbw_gbps, or an nccl-tests output. */
    MEASURED,
    /** Fitted to the run's own times. */
    FITTED;

    private final String key = name().toLowerCase(Locale.ROOT);
    public String key() { return key; }
}
