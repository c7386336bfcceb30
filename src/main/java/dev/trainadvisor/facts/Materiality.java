package dev.trainadvisor.facts;

/**
 * The thresholds the rules judge by, as one fact: every rule reads them from here, none is pasted into a rule. A
 * user rule file can replace it: retract the shipped one (its {@code origin} is "shipped") and insert another, with
 * a higher salience than the shipped rules (docs/rules.md, "Your own rules").
 *
 * @param material          a cause costing less than this share of the step is not reported
 * @param high              a cause costing this share of the step or more is of high severity
 * @param modelError        observed throughput within this relative distance of the prediction is what the model
 *                          explains; beyond it a run gets a verdict (a cause, or unexplained-slowdown /
 *                          faster-than-model)
 * @param faultPosterior    a fault hypothesis of the fit is reported as a cause when its posterior probability is at
 *                          least this
 * @param singledOut        a cause at least this probable is singled out: named as the cause, its seconds taken from
 *                          unexplained-slowdown; below it a fault is one candidate among those the times cannot
 *                          separate, and a slowdown no singled-out cause explains is unexplained-slowdown listing them
 * @param linkFaultRatio    a link below this share of its catalogue bandwidth (measured, or fitted with probability
 *                          faultPosterior) is a fault
 * @param overlapFaultRatio collectives hiding less than this share of what they should (fitted with probability
 *                          faultPosterior) are a fault
 * @param waveEfficiency    GEMMs keeping fewer of the SMs busy than this in their last wave are too small
 * @param memoryHeadroom    a step using less than this share of the GPU's memory leaves memory to buy speed with
 * @param recomputeMemory   recomputation is worth dropping when the step uses less than this share of memory
 * @param longSequence      from this many tokens a sequence is long enough for context parallelism to be worth its ring
 * @param lossScaleSkips    skipped steps at or above this share of all steps are reported
 * @param accounting        a framework's FLOPs per token differing from the house count by more than this is reported
 * @param origin            who set these: "shipped", or what a user rule says
 * @param history           the thresholds of the rules on the run's history (rules/history.drl)
 */
public record Materiality(double material, double high, double modelError, double faultPosterior, double singledOut,
                          double linkFaultRatio, double overlapFaultRatio, double waveEfficiency, double memoryHeadroom, double recomputeMemory,
                          double lossScaleSkips, double accounting, int longSequence, String origin, History history) {

    /**
     * What the rules on a run's history judge by.
     *
     * @param slowdown       a pace this much slower than before (after / before - 1) is a slowdown: 10%, the band the
     *                       verdict on a run against its prediction uses (modelError), so that a run is not called
     *                       slower than itself by less than it may be off the model
     * @param jitter         steps scattering with a robust coefficient of variation (1.4826 MAD / median) above this
     *                       are jittery: 10%, the same band
     * @param straggler      the slowest rank's forward-backward this many times the fastest's is a straggler: 1.10, the
     *                       same band (a rank 10% behind holds every other rank 10% at the next collective)
     * @param memoryPressure a measured peak leaving less than this share of the GPU's memory free: 5% (the issue's
     *                       "within 5% of capacity"; the caching allocator's fragmentation takes a few percent)
     * @param lossSpikes     this many loss spikes in the steady steps (or one NaN or infinite loss) make instability
     */
    public record History(double slowdown, double jitter, double straggler, double memoryPressure, int lossSpikes) {
        public static History shipped() { return new History(0.10, 0.10, 1.10, 0.05, 2); }
    }

    public Materiality(double material, double high, double modelError, double faultPosterior, double singledOut,
                       double linkFaultRatio, double overlapFaultRatio, double waveEfficiency, double memoryHeadroom,
                       double recomputeMemory, double lossScaleSkips, double accounting, int longSequence, String origin) {
        this(material, high, modelError, faultPosterior, singledOut, linkFaultRatio, overlapFaultRatio, waveEfficiency, memoryHeadroom,
                recomputeMemory, lossScaleSkips, accounting, longSequence, origin, History.shipped());
    }

    /**
     * The shipped thresholds. material 5% and high 20% of the step: the bands the rules have always used; modelError
     * 10%: the tune rows' mean absolute error is 7.1% (docs/model.md, "Calibration"), so a run 10% off its prediction is off
     * beyond the model's own error; faultPosterior 0.5: the fault is likelier than all else the fit weighed together;
     * singledOut 0.8 (Diagnosis.SURE): four to one, a Bayes factor past "not worth more than a bare mention" (Kass and
     * Raftery 1995, section 3.2) against everything else together;
     * modelError is the fit's own (Fit.MODEL_ERROR); linkFaultRatio 0.7: a link below 0.7 of its rating is 1.4 of
     * the ordinary spread between nodes below it (ln 0.7 = -0.36, Fit.LINK_NOMINAL_SIGMA 0.25), a fault rather than
     * spread; overlapFaultRatio 0.7 likewise (the generated runs of AttributionPropertyTest recover faults best at
     * about 1.5 ordinary sigmas); waveEfficiency 0.85 (NVIDIA's Matrix Multiplication Background guide: wave
     * quantization); memoryHeadroom 0.6 and recomputeMemory 0.85 of capacity; lossScaleSkips 1%; accounting 3%;
     * longSequence 8192: the shortest sequence NVIDIA's own published runs split (NeMo 24.07 performance summary,
     * DGX-H100 fp8: Llama 3 8B and 70B at seq 8192 with cp 2; the calibration rows nemo-24.07-h100-fp8-llama3-*).
     */
    public static Materiality shipped() {
        return new Materiality(0.05, 0.20, dev.trainadvisor.perf.Fit.MODEL_ERROR, 0.5, Diagnosis.SURE, 0.7, 0.7, 0.85, 0.6, 0.85, 0.01, 0.03, 8192, "shipped");
    }

    /**
     * The severity of a cause that costs {@code impactFraction} of the step with {@code probability}: that of its
     * expected share, so that a cause the fit is unsure of weighs what it is likely to cost.
     */
    public Severity severity(double impactFraction, double probability) { return severity(probability * impactFraction); }

    /** Whether a cause of {@code probability} is singled out ({@link #singledOut}). */
    public boolean singles(double probability) { return probability >= singledOut; }

    /** The severity of a cause that costs {@code impactFraction} of the step. */
    public Severity severity(double impactFraction) {
        if (impactFraction >= high) return Severity.HIGH;
        if (impactFraction >= material) return Severity.MEDIUM;
        return Severity.LOW;
    }

    /**
     * Below what share of its expected value a fitted quantity is a fault: compute below 1 - modelError (slower than
     * the model's own error allows), a link below linkFaultRatio, the overlap below overlapFaultRatio.
     */
    public double faultRatio(dev.trainadvisor.perf.FitParam p) {
        return switch (p) {
            case COMPUTE_SCALE -> 1 - modelError;
            case INTRA_NODE_BUSBW, INTER_NODE_GBPS -> linkFaultRatio;
            case OVERLAP_FRACTION -> overlapFaultRatio;
        };
    }

    /** Whether {@code seconds} of a {@code stepS} step are worth reporting. */
    public boolean material(double seconds, double stepS) { return seconds >= material * stepS; }

    public Materiality withMaterial(double m) {
        return new Materiality(m, high, modelError, faultPosterior, singledOut, linkFaultRatio, overlapFaultRatio, waveEfficiency, memoryHeadroom,
                recomputeMemory, lossScaleSkips, accounting, longSequence, origin, history);
    }

    public Materiality withModelError(double e) {
        return new Materiality(material, high, e, faultPosterior, singledOut, linkFaultRatio, overlapFaultRatio, waveEfficiency, memoryHeadroom,
                recomputeMemory, lossScaleSkips, accounting, longSequence, origin, history);
    }

    public Materiality from(String who) {
        return new Materiality(material, high, modelError, faultPosterior, singledOut, linkFaultRatio, overlapFaultRatio, waveEfficiency, memoryHeadroom,
                recomputeMemory, lossScaleSkips, accounting, longSequence, who, history);
    }
}
