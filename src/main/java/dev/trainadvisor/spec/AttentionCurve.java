package dev.trainadvisor.spec;

/**
 * A fused attention kernel's forward + backward throughput against sequence length on one architecture, as a fraction
 * of the GPU's dense bf16 peak (knowledge-base/attention-kernels.json).
 *
 * @param seqLen   the measured sequence lengths, increasing
 * @param fraction the fraction at each
 */
public record AttentionCurve(String architecture, AttentionKernel kernel, double[] seqLen, double[] fraction,
                             String source) {

    /** Interpolated linearly in log(sequence length); held flat beyond the measured ends. */
    public double at(double seq) {
        if (seq <= seqLen[0]) return fraction[0];
        int last = seqLen.length - 1;
        if (seq >= seqLen[last]) return fraction[last];
        int i = 1;
        while (seqLen[i] < seq) i++;
        double w = Math.log(seq / seqLen[i - 1]) / Math.log(seqLen[i] / seqLen[i - 1]);
        return fraction[i - 1] + w * (fraction[i] - fraction[i - 1]);
    }
}
