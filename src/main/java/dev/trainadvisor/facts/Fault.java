package dev.trainadvisor.facts;

import dev.trainadvisor.perf.FitParam;

/**
 * A derived fact (rules/faults.drl inserts it logically): one quantity of the run is far from what it should be.
 *
 * @param probability how sure the finding is: the fit's probability for it (1 for a measurement)
 * @param source      what found it
 */
public record Fault(FitParam param, double fitted, double expected, double probability, Source source) {

    public enum Source {
        /** The fit's probability, summed over its hypotheses, that the quantity is below the fault ratio. */
        FIT_PROBABILITY,
        /** The hypothesis the fit chose frees the quantity and puts it below the fault ratio. */
        FIT_CHOSEN,
        /** The run file measured it (nccl-tests). */
        MEASURED
    }

    public double ratio() { return fitted / expected; }

    /** The highest probability among {@code faults} (Fault facts; anything else is skipped), 0 for none. */
    public static double mostLikely(java.util.Collection<?> faults) {
        double p = 0;
        for (Object o : faults) if (o instanceof Fault f) p = Math.max(p, f.probability());
        return p;
    }

    /**
     * How sure a finding of unhidden communication is: as sure as the likeliest of the overlap's {@code faults} when the
     * fit found one (a claim that is partly a fault is as sure as that part), else certain: an overlap the run switched
     * off ({@code off}: Saving facts of the configuration it states) is what the run file says.
     */
    public static double overlapProbability(java.util.Collection<?> off, java.util.Collection<?> faults) {
        return faults.isEmpty() ? 1 : mostLikely(faults);
    }

    /** Whether the run measured the quantity rather than the fit inferring it. */
    public boolean measured() { return source == Source.MEASURED; }
}
