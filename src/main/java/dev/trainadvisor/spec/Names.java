package dev.trainadvisor.spec;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** Name matching for catalogue keys: case-, space- and punctuation-insensitive, with nearest-name hints. */
public final class Names {
    private Names() {}

    /** "A100 80GB SXM" and "a100-80gb_sxm" both become "a10080gbsxm". */
    public static String normalize(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toLowerCase(Locale.ROOT).toCharArray()) if (Character.isLetterOrDigit(c)) b.append(c);
        return b.toString();
    }

    /**
     * Up to {@code n} names from {@code known} closest to {@code wanted}, comma-separated: names that
     * contain what was typed (or are contained in it) first, so "A100" suggests the A100s and "zero"
     * the zero_* keys; then by edit distance.
     */
    public static String nearest(String wanted, Collection<String> known, int n) {
        String w = normalize(wanted);
        List<String> sorted = new ArrayList<>(known);
        sorted.sort(Comparator.<String>comparingInt(k -> distance(w, normalize(k))).thenComparing(k -> k));
        // what contains the typed name (or is contained in it) is what was meant: suggest only those if any
        List<String> overlapping = sorted.stream().filter(k -> overlaps(w, normalize(k))).toList();
        if (!overlapping.isEmpty()) sorted = new ArrayList<>(overlapping);
        List<String> out = new ArrayList<>();
        for (String k : sorted) {
            if (out.size() == n) break;
            out.add(k);
        }
        return String.join(", ", out);
    }

    /**
     * Up to {@code n} names from {@code known} near enough to {@code wanted} to be what was meant (a mistyped option or
     * command): within an edit distance of a third of its length (at least 2) after {@link #normalize}, nearest first;
     * none when nothing is that near.
     */
    public static List<String> near(String wanted, Collection<String> known, int n) {
        String w = normalize(wanted);
        int most = Math.max(2, w.length() / 3);
        return known.stream().filter(k -> distance(w, normalize(k)) <= most)
                .sorted(Comparator.<String>comparingInt(k -> distance(w, normalize(k))).thenComparing(k -> k)).limit(n).toList();
    }

    private static boolean overlaps(String w, String k) {
        return !w.isEmpty() && !k.isEmpty() && (k.contains(w) || w.contains(k) && k.length() >= 3);
    }

    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) prev[j] = j;
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev; prev = cur; cur = t;
        }
        return prev[b.length()];
    }
}
