package dev.trainadvisor.spec;

import java.util.Locale;

/** Activation recomputation (Korthikanti et al. 2022): none, selective (attention core only) or full. */
public enum Recompute {
    NONE, SELECTIVE, FULL;

    public String key() { return name().toLowerCase(Locale.ROOT); }

    public static Recompute parse(String s) {
        for (Recompute r : values()) if (r.key().equalsIgnoreCase(s.trim())) return r;
        return null;
    }
}
