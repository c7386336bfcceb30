package dev.trainadvisor.assemble;

import dev.trainadvisor.perf.ConventionFlops;
import dev.trainadvisor.spec.FlopsConvention;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Training;

import java.util.Locale;
import java.util.function.IntToDoubleFunction;

/**
 * The sequence length a log's printed TFLOPS were counted at, for a log that prints no sequence length. A framework
 * prints TFLOPS as its count of FLOPs a token F(S) (perf.ConventionFlops: a part per parameter, and attention's part,
 * which grows with the sequence length S) times the tokens each GPU processed a second, so with the model and the count
 * known the printed figure fixes S:
 *
 * <ul>
 *   <li>with the step time and the global batch (Megatron): tflops x 10^12 = batch x S / (GPUs x step) x F(S), so
 *       S F(S) = tflops x 10^12 x GPUs x step / batch, which S sets almost in proportion: an error of 0.1% in a printed
 *       value is about 0.1% of S;</li>
 *   <li>with tokens/GPU/s printed beside them (torchtitan's tps, InternEvo's tgs): F(S) = tflops x 10^12 / tokens/s,
 *       where only attention's share of F moves with S: an error of 0.1% is 0.1% / that share of S (attention is 22%
 *       of torchtitan's Llama 3 8B count at 8192 tokens: 0.45%, 37 tokens).</li>
 * </ul>
 *
 * The solution is taken where it lies within {@link #TOLERANCE} of a customary sequence length, a power of two or
 * three times one (3072, 6144), from 128 tokens ({@link #customary}: every seq_len of knowledge-base/reference-runs,
 * 512 to 1,048,576 tokens, is a power of two); elsewhere the figures do not pin a sequence length a run would use
 * (another model, another count, an average over other steps) and nothing is derived: the user is asked. Customary lengths
 * lie about 0.5 and 0.4 of an octave apart, so a wrong model, whose solution falls anywhere, lands within 0.5% of one
 * about once in 35 tries (2 x 2 x 0.5% / ln 2), where it would land within a quarter of 128 tokens of a multiple of
 * 128 once in four.
 */
final class SeqFromFlops {
    private SeqFromFlops() {}

    /** The sequence length a draft of the run is read with before the derived one is known; it changes nothing derived. */
    static final int PLACEHOLDER = 2048;

    /**
     * How near a customary length the solution must lie: 0.5%, ten times what the printed figures' rounding moves it
     * (torchtitan-1.log's medians solve to 8190.3 tokens, megatron-1.log's to 2048.0).
     */
    static final double TOLERANCE = 0.005;

    /** The customary sequence length nearest {@code tokens} (relative distance): 2^k or 3 x 2^k, from 128 to {@link #MAX}. */
    static int customary(double tokens) {
        int best = 128;
        for (int p = 128; p <= MAX; p *= 2)
            for (int c : new int[]{p, p / 2 * 3})
                if (c <= MAX && Math.abs(Math.log(tokens / c)) < Math.abs(Math.log(tokens / best))) best = c;
        return best;
    }

    /** The longest sequence derived: 2^21 tokens, beyond every context length a published run trained at. */
    static final int MAX = 1 << 21;

    /** A sequence length derived and why, in the words the advice's assumption carries. */
    record Derived(int tokens, double exact, String why) {}

    /**
     * The sequence length at which {@code c}'s count of {@code model} gives the printed {@code tflops} per GPU, from
     * the step ({@code stepS}, {@code batch} sequences on {@code gpus} GPUs) where the log gives it, else from
     * {@code tokensPerGpuPerS}; null where neither pins one.
     */
    static Derived derive(FlopsConvention c, Model model, Training training, double tflops, double tokensPerGpuPerS,
                          double stepS, long batch, String batchSaid, int gpus) {
        boolean byStep = stepS > 0 && batch > 0 && gpus > 0;
        if (!(tflops > 0) || !byStep && !(tokensPerGpuPerS > 0)) return null;
        double target = byStep ? tflops * 1e12 * gpus * stepS / batch : tflops * 1e12 / tokensPerGpuPerS;
        IntToDoubleFunction perToken = s -> ConventionFlops.perToken(c, model, training.withSeqLen(s));
        IntToDoubleFunction g = byStep ? s -> s * perToken.applyAsDouble(s) : perToken;
        if (!(g.applyAsDouble(1) < target) || !(g.applyAsDouble(MAX) > target)) return null;
        int lo = 1, hi = MAX;   // g(lo) < target <= g(hi); g does not fall as S grows
        while (hi - lo > 1) {
            int mid = lo + (hi - lo) / 2;
            if (g.applyAsDouble(mid) < target) lo = mid;
            else hi = mid;
        }
        double glo = g.applyAsDouble(lo), ghi = g.applyAsDouble(hi);
        double exact = lo + (target - glo) / (ghi - glo);
        int tokens = customary(exact);
        if (Math.abs(exact / tokens - 1) > TOLERANCE) return null;
        String count = c.key + " count of " + model.name();
        String why = byStep
                ? String.format(Locale.ROOT, "the sequence length at which the %s gives the printed %.4g TFLOPS a GPU for "
                + "%s in %.4g s on %d GPUs (%.0f exactly)", count, tflops, batchSaid, stepS, gpus, exact)
                : String.format(Locale.ROOT, "the sequence length at which the %s gives the printed %.4g TFLOPS at %.4g "
                + "tokens/GPU/s (%.4g GFLOPs a token; %.0f exactly)", count, tflops, tokensPerGpuPerS, target / 1e9, exact);
        return new Derived(tokens, exact, why);
    }
}
