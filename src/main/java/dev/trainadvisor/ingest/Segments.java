package dev.trainadvisor.ingest;

/**
 * Megatron's {@code key: value | key: value |} (or argonne's {@code key=value |}) read for a fixed set of keys, in place:
 * the same splitting as {@link MegatronCore#segments} and the same key normalization ({@link MegatronCore#normalize}),
 * but no map, no key strings and no value strings. An iteration line has a dozen segments and a log has millions of
 * lines; the parser needs a few of the values.
 *
 * <p>{@link #read} fills an {@code int[2 x keys]}: the bounds {@code [at[2k], at[2k+1])} of the value of key k in the
 * line (stripped, as the map's value would be), or -1 when no segment has the key. As with the map, the first segment
 * of a key wins.
 */
final class Segments {
    private final String[] keys;
    /** For each ASCII character, the keys that start with it: a segment's key is compared only with those. */
    private final int[][] byFirst = new int[128][0];

    /** {@code keys}: normalized, as {@link MegatronCore#normalize} gives them (ASCII). */
    Segments(String... keys) {
        this.keys = keys.clone();
        for (int k = 0; k < keys.length; k++) {
            int[] old = byFirst[keys[k].charAt(0)];
            byFirst[keys[k].charAt(0)] = java.util.Arrays.copyOf(old, old.length + 1);
            byFirst[keys[k].charAt(0)][old.length] = k;
        }
    }

    /** A fresh bounds array for {@link #read}. */
    int[] bounds() { return new int[2 * keys.length]; }

    /** Index of a key (as given to the constructor). */
    int index(String key) {
        for (int k = 0; k < keys.length; k++) if (keys[k].equals(key)) return k;
        throw new IllegalArgumentException(key);
    }

    static boolean has(int[] at, int k) { return at[2 * k] >= 0; }

    /** {@link Num#first} of key k's value, NaN when absent. */
    static double first(String s, int[] at, int k) {
        return at[2 * k] < 0 ? Double.NaN : Num.first(s, at[2 * k], at[2 * k + 1]);
    }

    /** Fills {@code at} from the segments of {@code s[from, to)}. Every search stays inside its segment. */
    void read(String s, int from, int to, int[] at) {
        java.util.Arrays.fill(at, -1);
        int start = from;
        while (start <= to) {
            int bar = s.indexOf('|', start);
            int end = bar < 0 || bar > to ? to : bar;
            segment(s, start, end, at);
            start = end + 1;
        }
    }

    /** One segment {@code s[a, b)}: {@code key: value}, {@code key=value} or {@code key:value}. */
    private void segment(String s, int a, int b, int[] at) {
        while (a < b && whitespace(s.charAt(a))) a++;
        while (b > a && whitespace(s.charAt(b - 1))) b--;
        if (a == b) return;
        int sep = indexOf(s, a, b, ':', ' ');
        if (sep < 0) sep = indexOf(s, a, b, '=', '\0');
        if (sep < 0) sep = indexOf(s, a, b, ':', '\0');
        if (sep <= a) return;
        int k = key(s, a, sep);
        if (k < 0 || at[2 * k] >= 0) return;
        int valueAt = s.charAt(sep) == ':' && sep + 1 < b && s.charAt(sep + 1) == ' ' ? sep + 2 : sep + 1;
        int v = Math.min(valueAt, b);
        while (v < b && whitespace(s.charAt(v))) v++;
        at[2 * k] = v;
        at[2 * k + 1] = b;
    }

    /** Character.isWhitespace, without its table look-up for the printable ASCII that make up most of a log. */
    static boolean whitespace(char c) {
        if (c == ' ') return true;
        return (c < ' ' || c >= 0x80) && Character.isWhitespace(c);
    }

    /** First index in {@code [a, b)} of {@code c} (followed by {@code next} unless that is NUL), or -1. */
    private static int indexOf(String s, int a, int b, char c, char next) {
        for (int i = a; i < b; i++) {
            if (s.charAt(i) != c) continue;
            if (next == '\0') return i;
            if (i + 1 < b && s.charAt(i + 1) == next) return i;
        }
        return -1;
    }

    /** Which of the keys {@code s[a, b)} normalizes to, or -1. Only the keys with its first character are compared. */
    private int key(String s, int a, int b) {
        while (a < b && norm(s.charAt(a)) < 0) a++;          // normalize drops leading separators
        if (a == b) return -1;
        int first = norm(s.charAt(a));
        if (first >= byFirst.length) return -1;               // the keys are ASCII
        for (int k : byFirst[first]) if (normalizesTo(s, a, b, keys[k])) return k;
        return -1;
    }

    /** {@code MegatronCore.normalize(s.substring(a, b)).equals(key)}, without building the string; stops at the first difference. */
    private static boolean normalizesTo(String s, int a, int b, String key) {
        int j = 0, n = key.length();
        boolean space = true, pending = false;
        for (int i = a; i < b; i++) {
            int c = norm(s.charAt(i));
            if (c < 0) {
                if (!space) pending = true;
                space = true;
                continue;
            }
            if (pending) {
                if (j >= n || key.charAt(j++) != ' ') return false;
                pending = false;
            }
            if (j >= n || key.charAt(j++) != c) return false;
            space = false;
        }
        return j == n;
    }

    /** A character as normalize sees it: lower case, or -1 for a separator ({@code _ ( )} and white space). */
    private static int norm(char c) {
        if (c < ASCII.length) return ASCII[c];
        char l = Character.toLowerCase(c);
        return l == '_' || l == '(' || l == ')' || Character.isWhitespace(l) ? -1 : l;
    }

    /** {@link #norm} of the ASCII characters, looked up: key characters are nearly all ASCII. */
    private static final int[] ASCII = new int[128];

    static {
        for (char c = 0; c < 128; c++) {
            char l = Character.toLowerCase(c);
            ASCII[c] = l == '_' || l == '(' || l == ')' || Character.isWhitespace(l) ? -1 : l;
        }
    }
}
