package dev.trainadvisor.spec;

/**
 * How an fp8 run scales its tensors (training.fp8_recipe), which sets the bytes its casts move per element cast
 * (perf.ElementwiseBytes): each GEMM input is read in bf16 and written in fp8 once row-wise for its forward GEMM and once
 * column-wise (transposed) for the weight-gradient GEMM of the backward, Transformer Engine's cast-transpose
 * (transformer_engine/common/transpose/cast_transpose.cu).
 */
public enum Fp8Recipe {
    /**
     * Per-tensor scales from the amax history of earlier steps (Transformer Engine's DelayedScaling, its default recipe
     * on Hopper): the amax is taken inside the cast, so one pass reads 2 bytes and writes 1 + 1.
     */
    DELAYED(4),
    /**
     * Per-tensor scales from the tensor itself (Transformer Engine's Float8CurrentScaling, torchao's tensorwise dynamic
     * Float8): an amax reduction reads the tensor first, 2 more bytes.
     */
    CURRENT(6),
    /**
     * Scales per block of 1 x 128 (inputs) and 128 x 128 (weights), DeepSeek-V3's recipe (Transformer Engine's
     * Float8BlockScaling): each block's amax inside its cast, row-wise and column-wise, 2 + 1 + 1 bytes and the scales.
     */
    BLOCKWISE(4),
    /**
     * MXFP8: E8M0 scales per 1 x 32 block, both orientations (Blackwell's tensor cores read them natively): 2 + 1 + 1
     * bytes and a scale byte per 32 elements each way.
     */
    MXFP8(4 + 2.0 / 32);

    /** Bytes moved per element of a GEMM input cast to fp8. */
    public final double bytesPerElement;

    Fp8Recipe(double bytesPerElement) { this.bytesPerElement = bytesPerElement; }
}
