package dev.trainadvisor.pyliteral;

import java.util.ArrayList;
import java.util.List;

/** What could not be evaluated, one line each, at most {@link #MAX} kept (then a count of the rest). */
public final class Warnings {
    /** Warnings kept; a file of 10,000 unreadable lines reports 100 and a count. */
    public static final int MAX = 100;

    private final List<String> list = new ArrayList<>();
    private int dropped;

    public void add(String s) {
        if (list.size() < MAX) list.add(s);
        else dropped++;
    }

    /** The warnings kept, then "N more warnings not shown" when some were dropped. */
    public List<String> list() {
        if (dropped == 0) return list;
        List<String> l = new ArrayList<>(list);
        l.add(dropped + " more warnings not shown");
        return l;
    }
}
