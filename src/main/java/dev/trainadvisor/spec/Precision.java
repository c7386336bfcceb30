package dev.trainadvisor.spec;

import java.util.Locale;

/** Number formats a GEMM or a buffer can use; {@link #bytes} is the size of one element. */
public enum Precision {
    FP32(4), TF32(4), BF16(2), FP16(2), FP8(1);

    public final int bytes;

    Precision(int bytes) { this.bytes = bytes; }

    private final String key = name().toLowerCase(Locale.ROOT);
    public String key() { return key; }

    public static Precision parse(String s) {
        for (Precision p : values()) if (p.key().equalsIgnoreCase(s.trim())) return p;
        return null;
    }
}
