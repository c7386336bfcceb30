package dev.trainadvisor.perf;

import dev.trainadvisor.spec.AttentionKernel;
import dev.trainadvisor.spec.Catalog;
import dev.trainadvisor.spec.ElementwiseKernels;
import dev.trainadvisor.spec.KernelCurve;
import dev.trainadvisor.spec.Gpu;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.Training;

/**
 * What fraction of the datasheet a step's work achieves. These are what the model cannot know
 * from the datasheet; a fit to a run's measurements may replace them.
 *
 * @param gemmFractionOfPeak   large-GEMM throughput over dense peak (measured maximum achievable matmul)
 * @param attentionFractionOfPeak the run's fused attention kernel, forward + backward, over dense bf16 peak: its kernel at
 *                                its sequence length
 * @param hbmFraction          achieved over datasheet HBM bandwidth for streaming kernels
 * @param overlapFraction      fraction of a compute window that actually hides an overlapped collective
 * @param elementwiseTraffic   bytes the element-wise kernels of a training framework move over the minimum the
 *                             model counts (each tensor read and written once per operation)
 */
public record Efficiency(double gemmFractionOfPeak, double attentionFractionOfPeak, double hbmFraction,
                         double overlapFraction, double elementwiseTraffic) {

    /**
     * Used when a GPU has no measured MAMF: measured MAMF over dense peak of the catalogued NVIDIA data-centre
     * GPUs lies between 0.73 (GB200) and 0.87 (A100 SXM), 0.80 for H100 SXM and H200
     * (knowledge-base/gpus.json, mamf_source); 0.80 is the middle. (The workstation cards measured since lie at 0.70
     * (L40S) and 0.76 (RTX 6000 Ada), the GeForce cards above 1: their boards boost past the datasheet's clock.)
     */
    public static final double DEFAULT_GEMM_FRACTION = 0.80;

    /**
     * Compute kernels inside a training step run below their microbenchmark maximum: lower clocks under the
     * power limit, shapes the benchmark sweep does not pick, launch gaps and framework work between kernels.
     * It scales both benchmarks the catalogue holds, the GEMMs' measured MAMF and FlashAttention's published rate:
     * the power limit and the launch gaps do not spare attention.
     * Calibrated together with {@link #ELEMENTWISE_TRAFFIC}, {@link #COMPILED_ELEMENTWISE_TRAFFIC},
     * {@link #TRITON_SPEED_OVER_FA2} and {@link #RING_ATTENTION_OVERHEAD} on the "tune" rows of
     * knowledge-base/reference-runs (162 rows; the rows marked excluded left out): the optimum of the mean squared log
     * error of tokens/GPU/s by coordinate descent ({@link Calibration#fit}, which src/test/java/dev/trainadvisor/perf/Calibrate.java
     * runs and validate --leave-out source repeats without each source group; rms 0.075).
     * The "holdout" rows, the InternLM-issue ones among them, were not used and check that it generalizes (docs/model.md,
     * "Calibration"). 0.825 while the attention kernels had one flat rate per GPU; 0.85 since they run at their
     * measured curves (knowledge-base/attention-kernels.json).
     */
    public static final double TRAINING_FRACTION_OF_BENCHMARK = 0.85;

    /**
     * Frameworks' element-wise kernels (norms, residual adds, activations, rotary, casts, cross-entropy) move more
     * bytes than the model's minimal count even when fused: fp32 statistics and copies, casts, bias and dropout
     * passes, small launch-bound kernels. (PyTorch eager composites move more again, counted apart in
     * ElementwiseBytes.) Calibrated with {@link #TRAINING_FRACTION_OF_BENCHMARK} (docs/model.md, "Calibration"): 2.1 before
     * the host's launch time was a term of its own (Overheads.HOST_SECONDS_PER_LAUNCH), 1.90 after, 1.95 since the
     * attention kernels run at their measured curves and torch.compile's kernels have a factor of their own.
     */
    public static final double ELEMENTWISE_TRAFFIC = 1.95;

    /**
     * {@link #ELEMENTWISE_TRAFFIC} for kernels torch.compile generates: Inductor fuses each chain of element-wise
     * operations with its casts into one kernel that reads its inputs and writes its outputs once, fewer passes than
     * one per operation. Calibrated with the others on the tune rows that run torch.compile (torchtitan's compiled
     * rows, nanoGPT, the Languini Kitchen rows; Calibrate.java).
     */
    public static final double COMPILED_ELEMENTWISE_TRAFFIC = 1.40;

    /**
     * Used when the catalogue has no attention measurement for the GPU. FlashAttention-2 reaches 50-73% of the
     * A100's peak (Dao 2023, "FlashAttention-2: Faster Attention with Better Parallelism and Work Partitioning",
     * arXiv 2307.08691, abstract); forward plus
     * backward with the causal mask sits at the low end.
     */
    public static final double ATTENTION_FRACTION = 0.50;

    /**
     * Streaming kernels reach 88-90% of datasheet HBM bandwidth: 1.80 of 2.04 TB/s on an A100 80GB SXM,
     * "around 90%" the best any kernel reached in NVIDIA's GTC talk cited there
     * (https://forums.developer.nvidia.com/t/trouble-to-reach-peak-bandwidth-of-a100/339083). Norm,
     * activation and cross-entropy kernels do a little worse; we take 0.85.
     */
    public static final double HBM_FRACTION = 0.85;

    /**
     * A collective overlapped with compute slows that compute: its kernels take SMs, so GEMMs run an extra
     * wave (an H100 GEMM fell from ~80% to ~47% MFU beside a 24-block NCCL all-gather,
     * https://forums.developer.nvidia.com/t/compute-communication-overlap-causes-severe-gemm-performance-degradation-because-of-tail-effect/337991),
     * and DDP-style bucketing hides 60-90% of the gradient all-reduce behind backward
     * (https://factryze.ai/scale-atlas/collectives/compute-comm-overlap). We take 0.80 of the window as
     * hidden: a judgement within that range, not a measurement; a fit to a run's timings replaces it. The first cost,
     * the SMs a collective's channels hold while it runs, is its transport's interference (knowledge-base/
     * transports.json; over NVLink measured on an H100: 0.285, the compute beside it 1 / 1.285 as fast), charged on
     * what this fraction hides (CommModel): the fraction is the share of the window the schedule leaves to hide in.
     */
    public static final double OVERLAP_FRACTION = 0.80;

    /**
     * The extra time of ring attention's remote steps over the same work in one kernel call ({@link #ringFactor}).
     * Calibrated on the tune rows with context parallelism (NeMo long-sequence, Transformer Engine's p2p ring, cp 2-16;
     * torchtitan, PyTorch's ring attention, cp 2-8) together with {@link #TRAINING_FRACTION_OF_BENCHMARK} and
     * {@link #ELEMENTWISE_TRAFFIC} ({@link Calibration#fit}): with the attention kernels
     * timed by their measured single-call curves, the CP rows ran slower than the same kernel on the whole sequence,
     * by an amount that grows as (cp - 1) / cp.
     */
    public static final double RING_ATTENTION_OVERHEAD = 0.475;

    /**
     * FlashAttention-2 is "around 2x" faster than FlashAttention (Dao 2023, arXiv 2307.08691, abstract). Used where the
     * architecture has no curve of FlashAttention-1 (Hopper has one, knowledge-base/attention-kernels.json).
     */
    public static final double FA1_SPEED_OVER_FA2 = 0.5;

    /**
     * FlashAttention-2 is 1.3-2.5x faster than FlashAttention in Triton (Dao 2023, arXiv 2307.08691, section 4.1),
     * so Triton runs at 0.40-0.77 of FA2's rate. Where in that range a training step sits was calibrated on the
     * tune rows (llm-foundry's MPT benchmarks on A100 run {@code attn_impl: triton}), within the published range only.
     * Used where the architecture has no curve of the kernel: Hopper has its own, measured (the 2023 build on an H200,
     * 0.37-0.53 of FlashAttention-2 there), so this Ampere fit is not carried to Hopper.
     */
    public static final double TRITON_SPEED_OVER_FA2 = 0.66;

    /**
     * FlexAttention where the architecture has no curve of it: FlashAttention-2's rate. Its kernels are FlashAttention-2's
     * algorithm generated by Triton; on an H200 they ran 1.26-1.33x PyTorch's FlashAttention-2 (forward + backward,
     * causal, head dim 128, sequence 512-32768, bench/h200_attention_builds.py,
     * knowledge-base/measurements/h200-attention-builds.json), a lead that comes from Hopper's wgmma, which
     * FlashAttention-2 does not use and other architectures do not have; so it is not carried to them (a judgement, not
     * a measurement: no FlexAttention timing off Hopper was found).
     */
    public static final double FLEX_SPEED_OVER_FA2 = 1.0;

    /**
     * FlashAttention-3 speeds FlashAttention-2 up by 1.5-2.0x on H100 in FP16 (Shah et al. 2024, arXiv 2407.08608,
     * abstract); the low end, since its backward gains less than its forward.
     */
    public static final double FA3_SPEED_OVER_FA2 = 1.5;

    /**
     * PyTorch's math attention backend runs its fp32 GEMMs on CUDA cores at 0.71 of the fp32 peak: on an H200 (67 TFLOPS
     * fp32) the GEMM kernels of one causal forward + backward (3 x 4 s^2 d FLOPs per head: the whole score matrix, the
     * mask applied after) ran at 41-49 TFLOPS over seven shapes, median 47.9 (batch 1-4, sequence 1024-8192, 16 and 32
     * heads of 128; e.g. 2240 us for 103 GFLOPs at sequence 2048, 16 heads; bench/h200_attention_math.py,
     * knowledge-base/measurements/h200-attention-math.json).
     */
    public static final double MATH_ATTENTION_FP32_FRACTION = 0.71;

    /**
     * Rate of a fused attention kernel over FlashAttention-2's on the same GPU (the catalogue's attention fraction),
     * where knowledge-base/attention-kernels.json has no curve for the GPU's architecture. cuDNN's fused attention is
     * taken at FlashAttention-2's rate there: its lead is measured on Hopper only.
     */
    public static double attentionKernelSpeed(AttentionKernel k) {
        return attentionKernelSpeed(k, Calibration.SHIPPED);
    }

    /** {@link #attentionKernelSpeed(AttentionKernel)} with the fitted constants {@code c} (Triton's speed is one). */
    static double attentionKernelSpeed(AttentionKernel k, Calibration.Constants c) {
        return switch (k) {
            case FA2, CUDNN -> 1.0;
            case FA1 -> FA1_SPEED_OVER_FA2;
            case TRITON -> c.triton();
            case FLEX -> FLEX_SPEED_OVER_FA2;
            case FA3 -> FA3_SPEED_OVER_FA2;
            case UNFUSED, MATH, EAGER -> 1.0;   // no fused kernel: timed by Roofline at a GEMM rate instead
        };
    }

    /** The expected efficiencies of a run on its GPU: its GEMMs, and its attention kernel at its sequence length. */
    public static Efficiency defaults(Gpu gpu, RunMetrics run) {
        return defaults(gpu, run, Calibration.SHIPPED);
    }

    /**
     * {@link #defaults(Gpu, RunMetrics)} with the constants fitted on published runs replaced by {@code c}: what the
     * model would expect had it been calibrated on other runs (Calibration, validate --leave-out source).
     */
    public static Efficiency defaults(Gpu gpu, RunMetrics run, Calibration.Constants c) {
        double attention = attentionBenchmarkFraction(gpu, run.training(), run.parallel(), c) * c.inStep();
        Training t = run.training();
        Double own = t.elementwiseKernels() == ElementwiseKernels.FUSED && t.framework() != null
                ? t.framework().fusedElementwiseTraffic() : null;   // a hand-written trainer's own kernels
        double traffic = t.elementwiseKernels() == ElementwiseKernels.COMPILED ? c.compiled() : own != null ? own : c.traffic();
        return new Efficiency(gemmFraction(gpu, c.inStep()), attention, HBM_FRACTION, OVERLAP_FRACTION, traffic);
    }

    /**
     * The GEMMs' expected fraction of the bf16 peak inside a step: the GPU's MAMF over peak times the in-step share.
     * GeForce boards boost past their rated clock, and their published MAMF (the best of 100 GEMMs, on one board)
     * exceeds the datasheet's peak (RTX 4090 178.8 against 165.2, RTX 3090 78.0 against 71, knowledge-base/gpus.json),
     * so their fraction is above one, as measured. Chosen on the consumer tune rows (nanoGPT, the speedrun's baseline
     * and RoPE rows, Languini Kitchen's tuned rows) once their optimizers were described as their code runs them
     * (Languini's and the speedrun's AdamW on PyTorch's default multi-tensor path, `optimizer_kernel: foreach`):
     * 5.9% with the burst figure (bias +1.3%) against 6.8% held to the datasheet's peak (bias -3.1%). Before that
     * correction the same rows had chosen the cap (8.4% against 9.9%): the foreach optimizer's time was missing and the
     * cap had stood in for it.
     */
    public static double gemmFraction(Gpu gpu) {
        return gemmFraction(gpu, TRAINING_FRACTION_OF_BENCHMARK);
    }

    private static double gemmFraction(Gpu gpu, double inStep) {
        double peak = gpu.peakTflops(Precision.BF16);
        double mamf = Double.isNaN(gpu.mamfTflopsBf16()) ? DEFAULT_GEMM_FRACTION
                : gpu.mamfTflopsBf16() / peak;
        return mamf * inStep;
    }

    /**
     * The fused attention kernel's benchmarked forward + backward fraction of the bf16 peak: its measured curve at the
     * sequence each call sees (a context-parallel rank's chunk, seq / cp) where the architecture has one, else the
     * GPU's FlashAttention-2 fraction times the kernel's speed over it. Without flash the attention runs at the GEMM
     * rate (Roofline) and this is only reported.
     */
    static double attentionBenchmarkFraction(Gpu gpu, Training t, Parallel p, Calibration.Constants c) {
        KernelCurve curve = t.flashAttention()
                ? Catalog.builtIn().attentionCurve(gpu.architecture(), t.attentionKernel()) : null;
        double kernel;
        if (curve != null) {
            kernel = curve.at((double) t.seqLen() / p.cp());
        } else {
            double fa2 = Double.isNaN(gpu.attentionFraction()) ? ATTENTION_FRACTION : gpu.attentionFraction();
            kernel = fa2 * (t.flashAttention() ? attentionKernelSpeed(t.attentionKernel(), c) : 1.0);
        }
        return kernel / ringFactor(p.cp(), c.ring());
    }

    /**
     * Ring attention's time over the same work in one kernel call: the (cp - 1) / cp of a rank's attention that runs on
     * key-value chunks from other ranks goes in cp - 1 steps, each its own kernel call that waits for its chunk and is
     * followed by the correction of the running output and softmax statistics.
     */
    public static double ringFactor(int cp) {
        return ringFactor(cp, RING_ATTENTION_OVERHEAD);
    }

    private static double ringFactor(int cp, double overhead) {
        return 1 + overhead * (cp - 1) / cp;
    }

    public Efficiency withGemm(double f) {
        return new Efficiency(f, attentionFractionOfPeak, hbmFraction, overlapFraction, elementwiseTraffic);
    }

    public Efficiency withOverlap(double f) {
        return new Efficiency(gemmFractionOfPeak, attentionFractionOfPeak, hbmFraction, f, elementwiseTraffic);
    }

    /**
     * A record's equals, written out: each component compared as {@link Double#compare} compares it ({@link #same}).
     * The generated one links through method handles (java.lang.runtime.ObjectMethods) that the JIT did not reduce to
     * this: a fit's predictions are memoized and matched by their efficiencies hundreds of times a run, and the
     * generated equals and hashCode took 3% of a batch's samples (JFR, bench/batch.sh).
     */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Efficiency e && same(gemmFractionOfPeak, e.gemmFractionOfPeak)
                && same(attentionFractionOfPeak, e.attentionFractionOfPeak)
                && same(hbmFraction, e.hbmFraction) && same(overlapFraction, e.overlapFraction)
                && same(elementwiseTraffic, e.elementwiseTraffic);
    }

    /**
     * Whether {@code o} is equal to this but perhaps for the overlap: every other component compared as {@link #equals}
     * compares it. The Roofline reads the GEMM and attention fractions, the HBM fraction and the elementwise traffic, never
     * the overlap, so efficiencies alike here time a micro-batch alike (StepModel.Recent keeps the compute across a fit's
     * step along the overlap). Written beside equals, so that a component added to one is added to the other.
     */
    boolean equalsBesidesOverlap(Efficiency o) {
        return this == o || same(gemmFractionOfPeak, o.gemmFractionOfPeak)
                && same(attentionFractionOfPeak, o.attentionFractionOfPeak)
                && same(hbmFraction, o.hbmFraction) && same(elementwiseTraffic, o.elementwiseTraffic);
    }

    /**
     * {@code Double.compare(a, b) == 0}, as one comparison of their bits ({@link Double#doubleToLongBits}, every NaN
     * alike, 0.0 and -0.0 apart): what Double.compare decides equal, without its two ordered comparisons first, which
     * the look-ups of a fit's recent values (StepModel.Recent) make millions of times a batch.
     */
    static boolean same(double a, double b) { return Double.doubleToLongBits(a) == Double.doubleToLongBits(b); }

    /** The record's hashCode, written out ({@link #equals}): 31 times the components' hashes in order. */
    @Override
    public int hashCode() {
        int h = Double.hashCode(gemmFractionOfPeak);
        h = 31 * h + Double.hashCode(attentionFractionOfPeak);
        h = 31 * h + Double.hashCode(hbmFraction);
        h = 31 * h + Double.hashCode(overlapFraction);
        return 31 * h + Double.hashCode(elementwiseTraffic);
    }

    /** GEMM and attention throughput times {@code k} (what a fit's compute scale does). */
    public Efficiency withComputeScale(double k) {
        return new Efficiency(gemmFractionOfPeak * k, attentionFractionOfPeak * k, hbmFraction, overlapFraction, elementwiseTraffic);
    }
}
