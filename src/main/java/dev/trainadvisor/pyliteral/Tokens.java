package dev.trainadvisor.pyliteral;

/** The token stream, statements as token ranges, and each bracket's partner. */
final class Tokens {
    /** Token kinds. */
    static final int NUM = 0, STR = 1, FSTR = 2, NAME = 3, OP = 4, ERR = 5;

    final String src;
    int n;
    int[] kind = new int[64];
    Object[] val = new Object[64];   // Long/Double for NUM, String for STR/NAME/OP, message for ERR
    int[] line = new int[64];
    int[] from = new int[64];
    int[] to = new int[64];
    int[] match;                      // partner bracket, -1 when unmatched or not a bracket
    int stmtCount;
    int[] stmtStart = new int[16], stmtEnd = new int[16], stmtIndent = new int[16];

    Tokens(String src) { this.src = src; }

    void add(int k, Object v, int ln, int f, int t) {
        if (n == kind.length) {
            int c = n * 2;
            kind = java.util.Arrays.copyOf(kind, c);
            val = java.util.Arrays.copyOf(val, c);
            line = java.util.Arrays.copyOf(line, c);
            from = java.util.Arrays.copyOf(from, c);
            to = java.util.Arrays.copyOf(to, c);
        }
        kind[n] = k; val[n] = v; line[n] = ln; from[n] = f; to[n] = t;
        n++;
    }

    void stmt(int start, int end, int indent) {
        if (end <= start) return;
        if (stmtCount == stmtStart.length) {
            int c = stmtCount * 2;
            stmtStart = java.util.Arrays.copyOf(stmtStart, c);
            stmtEnd = java.util.Arrays.copyOf(stmtEnd, c);
            stmtIndent = java.util.Arrays.copyOf(stmtIndent, c);
        }
        stmtStart[stmtCount] = start; stmtEnd[stmtCount] = end; stmtIndent[stmtCount] = indent;
        stmtCount++;
    }

    boolean isOp(int i, String op) { return i >= 0 && i < n && kind[i] == OP && op.equals(val[i]); }

    boolean opener(int i) { return isOp(i, "(") || isOp(i, "[") || isOp(i, "{"); }

    boolean closer(int i) { return isOp(i, ")") || isOp(i, "]") || isOp(i, "}"); }

    /** Up to 60 characters of source from token a to token b-1, on one line. */
    String text(int a, int b) {
        if (a >= n || b <= a) return "";
        int f = from[a], e = Math.min(to[Math.min(b, n) - 1], f + 60);
        String s = src.substring(f, Math.max(f, e)).replaceAll("\\s+", " ");
        return e < to[Math.min(b, n) - 1] ? s + "..." : s;
    }
}
