package dev.trainadvisor.perf;

/**
 * One operation of a training step on one GPU, per micro-batch on the slowest pipeline stage, all layers of the stage
 * together: a GEMM, the attention core, or a memory-bound kernel (norms, residual adds, rotary, activation, softmax,
 * casts, cross-entropy). It carries what its forward pass costs; the backward costs twice that (the gradients with
 * respect to the input and to the weights for a GEMM; Narayanan et al. 2021, section 5.1), and recomputation runs
 * the forward of a layer's operations again ({@link #passes}). Calculon models a step the same way
 * (llm/layers.py: each layer's fw/agrad/wgrad FLOPs and bytes).
 *
 * @param name   what it is ("qkv", "mlp-down", "attention-core", "norms", "cross-entropy")
 * @param kind   how it is timed ({@link Roofline})
 * @param inLayer whether it belongs to a transformer layer (re-run by full recomputation); false for the output head
 * @param attentionCore whether it is part of the attention core, whose forward selective recomputation runs again
 *                      (Korthikanti et al. 2022, section 5: QK^T, the softmax, its dropout and the product with V): the
 *                      attention kernel, and without a flash kernel the softmax over the scores it writes to HBM
 * @param flops  forward FLOPs (GEMM, attention; the attention core's as executed, half of s^2 with a causal flash kernel)
 * @param bytes  forward HBM bytes (memory-bound kernels: the model's minimal count, each tensor read and written once;
 *               a grouped GEMM: its weights and tokens read, its output written)
 * @param m      a GEMM's rows: the tokens it multiplies (for wave quantization); 0 otherwise
 * @param n      a GEMM's output columns on this GPU; 0 otherwise
 * @param groups a grouped GEMM's problems (this GPU's experts, each {@code m x n}); 1 for one GEMM
 * @param weights a grouped GEMM's weights (elements, all its layers): its weight gradients are read and written in the
 *                gradient's precision once per micro-batch; 0 otherwise
 * @param forwardLaunches  kernels the host launches for it in one forward, all the stage's layers together
 * @param backwardLaunches kernels the host launches for it in one backward
 */
public record Operation(String name, Kind kind, boolean inLayer, boolean attentionCore, double flops, double bytes,
                        double m, double n,
                        double groups, double weights, double forwardLaunches, double backwardLaunches) {

    /**
     * How an operation is timed: at the GEMM rate, the attention kernel's rate, HBM bandwidth over the framework's
     * extra element-wise traffic, or (COPY: a gather or scatter of whole rows, the permutation of routed tokens) HBM
     * bandwidth alone.
     */
    public enum Kind { GEMM, ATTENTION, MEMORY, COPY }

    /** A GEMM of {@code count} instances (layers): one kernel forward, two backward (input and weight gradients). */
    static Operation gemm(String name, boolean inLayer, double flops, double m, double n, double count) {
        return new Operation(name, Kind.GEMM, inLayer, false, flops, 0, m, n, 1, 0, count, 2 * count);
    }

    /**
     * The experts of {@code count} MoE layers as one grouped GEMM each (Transformer Engine's and CUTLASS's grouped
     * GEMMs, torch._grouped_mm): {@code groups} problems of {@code m} tokens x {@code n} columns over {@code k}, whose
     * weights and tokens ({@code bytes}, bf16) are read once; with few tokens an expert is bound by reading its weights.
     */
    static Operation groupedGemm(String name, double flops, double m, double n, double k, double groups, double count) {
        double bytes = count * groups * (k * n + m * (k + n)) * 2;
        return new Operation(name, Kind.GEMM, true, false, flops, bytes, m, n, groups, count * groups * k * n, count, 2 * count);
    }

    /**
     * @param bytes what the kernel reads and writes in HBM in one forward (queries, keys, values and output, and without
     *              a flash kernel the scores): for the roofline only, the kernel is timed by its FLOPs
     */
    static Operation attention(String name, double flops, double bytes, double forwardLaunches, double backwardLaunches) {
        return new Operation(name, Kind.ATTENTION, true, true, flops, bytes, 0, 0, 1, 0, forwardLaunches, backwardLaunches);
    }

    /**
     * The bytes one forward moves through HBM at least, a roofline's denominator: a dense GEMM's operands and output
     * once each in bf16 (2 (mk + kn + mn) per instance, k from its FLOPs), else the bytes it was built with.
     */
    public double hbmBytes() {
        if (kind != Kind.GEMM || bytes > 0 || m <= 0 || n <= 0 || forwardLaunches <= 0) return bytes;
        double k = innerDimension();
        return forwardLaunches * 2 * (m * k + k * n + m * n);
    }

    /** FLOPs per byte of HBM traffic ({@link #hbmBytes()}); NaN for an operation without FLOPs or bytes. */
    public double intensity() {
        double b = hbmBytes();
        return flops > 0 && b > 0 ? flops / b : Double.NaN;
    }

    static Operation memory(String name, boolean inLayer, double bytes, double forwardLaunches, double backwardLaunches) {
        return new Operation(name, Kind.MEMORY, inLayer, false, 0, bytes, 0, 0, 1, 0, forwardLaunches, backwardLaunches);
    }

    /**
     * A memory-bound kernel of the attention core (the softmax over the scores an unfused core writes), which selective
     * recomputation runs again with the core.
     */
    static Operation attentionCoreMemory(String name, double bytes, double forwardLaunches, double backwardLaunches) {
        return new Operation(name, Kind.MEMORY, true, true, 0, bytes, 0, 0, 1, 0, forwardLaunches, backwardLaunches);
    }

    /** A gather or scatter of whole rows, each read and written once ({@code bytes}). */
    static Operation copy(String name, double bytes, double forwardLaunches, double backwardLaunches) {
        return new Operation(name, Kind.COPY, true, false, 0, bytes, 0, 0, 1, 0, forwardLaunches, backwardLaunches);
    }

    /** A dense GEMM's inner dimension: its FLOPs over 2 x M x N per instance; 0 for other operations. */
    public double innerDimension() {
        return kind == Kind.GEMM && m > 0 && n > 0 && forwardLaunches > 0 ? flops / (2 * m * n * groups * forwardLaunches) : 0;
    }

    /** Kernel launches per micro-batch: forward, backward and a full recomputation's share of the layer's forward. */
    public double launches(double fullRecomputeShare, boolean selective) {
        return forwardLaunches + backwardLaunches + (inLayer ? fullRecomputeShare * forwardLaunches : 0)
                + (selective && attentionCore ? forwardLaunches : 0);
    }

    /**
     * Forward-equivalent passes per micro-batch: forward, backward (two), a full recomputation's share of the layer's
     * forward, and with selective recomputation the attention core once more (Korthikanti et al. 2022, section 5).
     */
    public double passes(double fullRecomputeShare, boolean selective) {
        return 3 + (inLayer ? fullRecomputeShare : 0) + (selective && attentionCore ? 1 : 0);
    }
}
