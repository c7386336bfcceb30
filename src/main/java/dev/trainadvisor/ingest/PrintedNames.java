package dev.trainadvisor.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Names a log prints again and again in the same order (a timer block's timers, every step), each with what a parser
 * keeps for it. Found from the line's characters: no string per name per line once the name is known; the next
 * name looked up is most likely the one after the last found, so the search starts there.
 */
final class PrintedNames<T> {
    private final List<String> names = new ArrayList<>();
    private final List<T> values = new ArrayList<>();
    private final Function<String, T> make;
    private final int max;
    private int next;

    /** {@code make} gives a new name's value; at most {@code max} names are kept (later ones are made each time). */
    PrintedNames(Function<String, T> make, int max) {
        this.make = make;
        this.max = max;
    }

    /** The value of the name printed as {@code s[from, to)}. */
    T get(String s, int from, int to) {
        int len = to - from;
        for (int k = 0, m = names.size(); k < m; k++) {
            int i = (next + k) % m;
            String n = names.get(i);
            if (n.length() == len && s.regionMatches(from, n, 0, len)) {
                next = (i + 1) % m;
                return values.get(i);
            }
        }
        String name = s.substring(from, to);
        T value = make.apply(name);
        if (names.size() < max) {
            names.add(name);
            values.add(value);
        }
        return value;
    }

    /** The values kept, in the order their names were first printed. */
    List<T> values() { return values; }
}
