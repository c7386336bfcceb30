package dev.trainadvisor.spec;

import java.util.Locale;

/** Activation recomputation (Korthikanti et al. 2022): none, selective (attention core only) or full. */
public enum Recompute {
    NONE, SELECTIVE, FULL;

    private final String key = name().toLowerCase(Locale.ROOT);
    public String key() { return key; }

    public static Recompute parse(String s) {
        for (Recompute r : values()) if (r.key().equalsIgnoreCase(s.trim())) return r;
        return null;
    }
}
