package dev.trainadvisor.ingest;

import java.util.Arrays;

/**
 * Step number to row (0, 1, 2, ... in the order steps are first seen) for {@link StepSeries}, with primitive longs, so
 * that a log of a million steps costs no boxed Long and no tree node per step.
 *
 * <p>Logs print steps in order, so while every new step is larger than those before, the rows are sorted by step: a
 * new step is appended and an old one is found by binary search. The first step that comes out of order (a restart,
 * ranks interleaving) switches to an open-addressing hash table. A table from the start would cost a cache miss per
 * step on a large log.
 */
final class StepIndex {
    /** Step number of each row. */
    private long[] steps = new long[64];
    private int size;
    /** Hash slots holding row + 1 (0 = empty), at most half full; null while the rows are sorted. */
    private int[] slots;
    /** The row found last: parsers look up the same step several times in a row (one line, several metrics). */
    private int lastRow = -1;
    private long maxStep = Long.MIN_VALUE;
    /** Rows in step order once steps came out of order, computed on demand and dropped when a step is added. */
    private int[] order;

    int size() { return size; }

    long step(int row) { return steps[row]; }

    long maxStep() { return maxStep; }

    /** The row of {@code step}; when it has none, a new row if {@code add}, else -1. */
    int rowOf(long step, boolean add) {
        if (lastRow >= 0 && steps[lastRow] == step) return lastRow;
        if (slots == null) {
            if (size == 0 || step > maxStep) return add ? append(step) : -1;
            int row = Arrays.binarySearch(steps, 0, size, step);
            if (row >= 0) return lastRow = row;
            if (!add) return -1;
            slots = new int[Math.max(128, Integer.highestOneBit(size) * 4)];
            for (int r = 0; r < size; r++) slots[free(slots, steps[r])] = r + 1;
        }
        int mask = slots.length - 1;
        int i = hash(step) & mask;
        while (slots[i] != 0) {
            int row = slots[i] - 1;
            if (steps[row] == step) return lastRow = row;
            i = (i + 1) & mask;
        }
        if (!add) return -1;
        int row = append(step);
        slots[i] = row + 1;
        if (size * 2 > slots.length) rehash();
        return row;
    }

    private int append(long step) {
        if (size == steps.length) steps = Arrays.copyOf(steps, size * 2);
        steps[size] = step;
        maxStep = Math.max(maxStep, step);
        order = null;
        return lastRow = size++;
    }

    private static int hash(long step) {
        long h = step * 0x9E3779B97F4A7C15L;     // Fibonacci hashing: steps 10 apart spread over the table
        return (int) (h ^ (h >>> 32));
    }

    /** The empty slot where {@code step} goes. */
    private static int free(int[] table, long step) {
        int mask = table.length - 1;
        int i = hash(step) & mask;
        while (table[i] != 0) i = (i + 1) & mask;
        return i;
    }

    private void rehash() {
        int[] bigger = new int[slots.length * 2];
        for (int row = 0; row < size; row++) bigger[free(bigger, steps[row])] = row + 1;
        slots = bigger;
    }

    /** The rows ordered by step number (shared: callers must not change it). */
    int[] rowsInStepOrder() {
        if (order != null) return order;
        int[] o = new int[size];
        if (slots == null) {
            for (int row = 0; row < size; row++) o[row] = row;
        } else {
            long[] sorted = Arrays.copyOf(steps, size);
            Arrays.sort(sorted);
            for (int k = 0; k < size; k++) o[k] = rowOf(sorted[k], false);
        }
        return order = o;
    }
}
