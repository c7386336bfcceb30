package dev.trainadvisor.spec;

/**
 * A kernel's measured efficiency against one size on one architecture: a fused attention kernel's forward + backward
 * fraction of the bf16 peak against sequence length (knowledge-base/attention-kernels.json), or dense GEMMs' rate
 * against their inner dimension relative to large ones (knowledge-base/gemm-efficiency.json).
 *
 * @param kernel   what it measures: an attention kernel's run-file name ("fa2", "cudnn"), or "gemm"
 * @param size     the measured sizes, increasing
 * @param fraction the efficiency at each
 * @param build    the build that was timed (an attention curve always names one: the same kernel runs at different
 *                 rates as built by different packages, versions and compilers); null for the GEMM curves
 */
public record KernelCurve(String architecture, String kernel, double[] size, double[] fraction, String source,
                          Build build) {

    /**
     * The build a curve was measured with: the package that holds the kernel, and its version (a release, or a commit
     * and its date, with how it was compiled where that decides the instructions it runs).
     */
    public record Build(String pkg, String version) {
        @Override public String toString() { return pkg + " " + version; }
    }

    /** A curve with no build named (the GEMM curves). */
    public KernelCurve(String architecture, String kernel, double[] size, double[] fraction, String source) {
        this(architecture, kernel, size, fraction, source, null);
    }

    /** Interpolated linearly in log(size); held flat beyond the measured ends. */
    public double at(double x) {
        if (x <= size[0]) return fraction[0];
        int last = size.length - 1;
        if (x >= size[last]) return fraction[last];
        int i = 1;
        while (size[i] < x) i++;
        double w = Math.log(x / size[i - 1]) / Math.log(size[i] / size[i - 1]);
        return fraction[i - 1] + w * (fraction[i] - fraction[i - 1]);
    }
}
