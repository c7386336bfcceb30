package dev.trainadvisor.spec;

/**
 * How a model encodes positions: rotary embeddings (rope) rotate q and k in every layer, an element-wise pass the
 * step model counts; learned tables are added once at the embedding and ALiBi is a bias inside the attention kernel.
 */
public enum PositionEmbedding {
    ROPE, LEARNED, ALIBI, NONE;
}
