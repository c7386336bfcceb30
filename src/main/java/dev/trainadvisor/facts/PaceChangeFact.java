package dev.trainadvisor.facts;

/**
 * The pace of the run's steps changes (history.HistoryAnalysis#paceChange): the median step before and from
 * {@code startStep}.
 *
 * @param before entries before the change
 * @param after  entries from it
 */
public record PaceChangeFact(long startStep, double beforeS, double afterS, int before, int after, String basis) {
    /** after / before - 1: 0.43 is 43% slower. */
    public double change() { return afterS / beforeS - 1; }

    /** Of each step at the new pace, the share lost to the change. */
    public double lostShare() { return Math.max(0, 1 - beforeS / afterS); }

    /** Of the steady wall time, the share lost to the change. */
    public double wallShare() { return lostShare() * afterS * after / (beforeS * before + afterS * after); }
}
