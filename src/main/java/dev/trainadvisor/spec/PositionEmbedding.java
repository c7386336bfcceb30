package dev.trainadvisor.spec;

import java.util.Locale;

/**
 * How a model encodes positions: rotary embeddings (rope) rotate q and k in every layer, an element-wise pass the
 * step model counts; learned tables are added once at the embedding and ALiBi is a bias inside the attention kernel.
 */
public enum PositionEmbedding {
    ROPE, LEARNED, ALIBI, NONE;

    public String key() { return name().toLowerCase(Locale.ROOT); }

    public static PositionEmbedding parse(String s) {
        for (PositionEmbedding p : values()) if (p.key().equalsIgnoreCase(s.trim())) return p;
        return null;
    }
}
